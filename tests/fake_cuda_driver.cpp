// A stand-in for libcuda.so.1, libnvidia-ml.so.1 and libcudart that serves one recorded H200
// (name, MiB, compute capability and PCIe from ../shared/reference/hwinfo.md section 6; SMs and
// clocks from data/gpus.csv), so the GPU report's device path is tested without a GPU.
// TORCHLET_FAKE_CUINIT sets cuInit's result; TORCHLET_FAKE_CUDA_VERSION the driver's CUDA.
#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

struct NvmlMemoryV2 {
  unsigned int version;
  unsigned long long total, reserved, free, used;
};

constexpr unsigned long long kTotal = 143771ull << 20;  // nvidia-smi: 143771 MiB
constexpr unsigned long long kFree = 143000ull << 20;
int device_handle;  // NVML hands out its address

}  // namespace

extern "C" {

int cuInit(unsigned int) { return env_int("TORCHLET_FAKE_CUINIT", 0); }
int cuGetErrorName(int error, const char** name) {
  *name = error == 100  ? "CUDA_ERROR_NO_DEVICE"
          : error == 35 ? "CUDA_ERROR_INSUFFICIENT_DRIVER"
                        : "CUDA_ERROR_UNKNOWN";
  return 0;
}
int cuDriverGetVersion(int* v) {
  *v = env_int("TORCHLET_FAKE_CUDA_VERSION", 13000);
  return 0;
}
int cuDeviceGetCount(int* n) {
  *n = 1;
  return 0;
}
int cuDeviceGet(int* device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? 0 : 101;  // CUDA_ERROR_INVALID_DEVICE
}
int cuDeviceGetName(char* name, int length, int) {
  std::strncpy(name, "NVIDIA H200", static_cast<std::size_t>(length));
  return 0;
}
int cuDeviceTotalMem_v2(std::size_t* bytes, int) {
  *bytes = kTotal;
  return 0;
}
int cuDeviceGetAttribute(int* value, int attribute, int) {
  switch (attribute) {
    case 13: *value = 1980000; break;   // clock rate, kHz
    case 16: *value = 132; break;       // SMs
    case 18: *value = 0; break;         // integrated
    case 33: *value = 0x18; break;      // PCI bus
    case 34: *value = 0; break;         // PCI device
    case 36: *value = 3125000; break;   // memory clock, kHz (6.25 Gbps per pin)
    case 37: *value = 6144; break;      // bus width
    case 38: *value = 60 << 20; break;  // L2
    case 50: *value = 0; break;         // PCI domain
    case 75: *value = 9; break;         // compute capability
    case 76: *value = 0; break;
    default: return 1;  // CUDA_ERROR_INVALID_VALUE
  }
  return 0;
}

int cudaRuntimeGetVersion(int* v) {
  *v = 13000;
  return 0;
}

int nvmlInit_v2() { return 0; }
int nvmlShutdown() { return 0; }
const char* nvmlErrorString(int) { return "fake"; }
int nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  std::strncpy(version, "580.126.20", length);
  return 0;
}
int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, void** device) {
  if (std::strcmp(bus_id, "00000000:18:00.0") != 0) return 6;  // NVML_ERROR_NOT_FOUND
  *device = &device_handle;
  return 0;
}
int nvmlDeviceGetMemoryInfo_v2(void*, NvmlMemoryV2* m) {
  if (m->version != (sizeof(NvmlMemoryV2) | (2u << 24))) return 25;  // ARGUMENT_VERSION_MISMATCH
  m->total = kTotal;
  m->free = kFree;
  m->used = kTotal - kFree;
  return 0;
}
int nvmlDeviceGetMaxClockInfo(void*, unsigned int type, unsigned int* mhz) {
  *mhz = type == 1 ? 1980 : 3201;
  return 0;
}
int nvmlDeviceGetMaxPcieLinkGeneration(void*, unsigned int* v) {
  *v = 5;
  return 0;
}
int nvmlDeviceGetMaxPcieLinkWidth(void*, unsigned int* v) {
  *v = 16;
  return 0;
}
int nvmlDeviceGetCurrPcieLinkGeneration(void*, unsigned int* v) {
  *v = 1;  // idle GPUs drop their link
  return 0;
}
int nvmlDeviceGetCurrPcieLinkWidth(void*, unsigned int* v) {
  *v = 16;
  return 0;
}
}
