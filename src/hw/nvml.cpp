// The NVML calls torchlet makes, with the types and constants copied from nvml.h (NVML API
// version 13; ../shared/reference/hwinfo.md section 3). nvmlMemory_v2_t's version field is
// NVML_STRUCT_VERSION(Memory, 2) = sizeof | 2 << 24, not 2.
#include "hw/nvml.h"

namespace torchlet::hw {
namespace {

using NvmlReturn = int;  // nvmlReturn_t; NVML_SUCCESS = 0
struct NvmlDevice;       // nvmlDevice_t points to it
struct NvmlMemoryV1 {
  unsigned long long total, free, used;
};
struct NvmlMemoryV2 {
  unsigned int version;
  unsigned long long total, reserved, free, used;
};
constexpr unsigned int kNvmlMemoryV2 = sizeof(NvmlMemoryV2) | (2u << 24);
constexpr unsigned int kNvmlClockSm = 1;      // NVML_CLOCK_SM
constexpr unsigned int kNvmlBufferSize = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE and friends

template <typename F, typename... Args>
bool call(const DynLib& lib, const char* symbol, Args... args) {
  const F f = lib.get<F>(symbol);
  return f && f(args...) == 0;
}

std::optional<int> uint_query(const DynLib& lib, const char* symbol, NvmlDevice* d) {
  unsigned int v = 0;
  if (!call<NvmlReturn (*)(NvmlDevice*, unsigned int*)>(lib, symbol, d, &v)) return std::nullopt;
  return static_cast<int>(v);
}

}  // namespace

Nvml::Nvml(const std::vector<std::string>& sonames) : lib_(sonames) {
  if (!lib_.found()) {
    error_ = lib_.error();
    return;
  }
  const auto init = lib_.get<NvmlReturn (*)()>("nvmlInit_v2");
  const NvmlReturn rc = init ? init() : -1;
  ready_ = rc == 0;
  if (!ready_) {
    const auto message = lib_.get<const char* (*)(NvmlReturn)>("nvmlErrorString");
    error_ = "nvmlInit_v2 failed: " + std::string(init && message ? message(rc) : "symbol missing");
  }
}

Nvml::~Nvml() {
  if (ready_) call<NvmlReturn (*)()>(lib_, "nvmlShutdown");
}

std::string Nvml::driver_version() const {
  char buf[kNvmlBufferSize] = {};
  if (!ready_ || !call<NvmlReturn (*)(char*, unsigned int)>(lib_, "nvmlSystemGetDriverVersion", buf,
                                                            kNvmlBufferSize))
    return "";
  return buf;
}

std::optional<int> Nvml::cuda_driver_version() const {
  int v = 0;
  if (!ready_ || !call<NvmlReturn (*)(int*)>(lib_, "nvmlSystemGetCudaDriverVersion_v2", &v))
    return std::nullopt;
  return v;
}

NvmlDeviceInfo Nvml::device(const std::string& pci_bus_id) const {
  NvmlDeviceInfo info;
  NvmlDevice* d = nullptr;
  if (!ready_ || !call<NvmlReturn (*)(const char*, NvmlDevice**)>(
                     lib_, "nvmlDeviceGetHandleByPciBusId_v2", pci_bus_id.c_str(), &d))
    return info;
  NvmlMemoryV2 v2{};
  v2.version = kNvmlMemoryV2;
  NvmlMemoryV1 v1{};
  if (call<NvmlReturn (*)(NvmlDevice*, NvmlMemoryV2*)>(lib_, "nvmlDeviceGetMemoryInfo_v2", d, &v2))
    info.free_bytes = v2.free;
  else if (call<NvmlReturn (*)(NvmlDevice*, NvmlMemoryV1*)>(lib_, "nvmlDeviceGetMemoryInfo", d,
                                                            &v1))
    info.free_bytes = v1.free;
  unsigned int mhz = 0;
  if (call<NvmlReturn (*)(NvmlDevice*, unsigned int, unsigned int*)>(
          lib_, "nvmlDeviceGetMaxClockInfo", d, kNvmlClockSm, &mhz))
    info.max_sm_mhz = static_cast<int>(mhz);
  info.pcie_gen_max = uint_query(lib_, "nvmlDeviceGetMaxPcieLinkGeneration", d);
  info.pcie_width_max = uint_query(lib_, "nvmlDeviceGetMaxPcieLinkWidth", d);
  info.pcie_gen_current = uint_query(lib_, "nvmlDeviceGetCurrPcieLinkGeneration", d);
  info.pcie_width_current = uint_query(lib_, "nvmlDeviceGetCurrPcieLinkWidth", d);
  return info;
}

}  // namespace torchlet::hw
