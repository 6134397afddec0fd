// gpu_report: the CUDA driver API (libcuda.so.1) for devices, names, memory, compute capability
// and clocks; NVML for free memory, clocks, PCIe and the driver version; libcudart and cuDNN
// for their versions. Everything through dlopen; what is missing becomes a reason, not an error.
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "hw/nvml.h"
#include "hw/text.h"
#include "torchlet/cuda.h"
#include "torchlet/hw/gpu.h"

namespace torchlet::hw {
namespace {

#ifdef TORCHLET_WITH_CUDA  // defined by builds with the CUDA backend
constexpr bool kBuiltWithCuda = true;
#else
constexpr bool kBuiltWithCuda = false;
#endif

// The driver API subset torchlet uses (cuda.h; enum values are a stable ABI).
using CUresult = int;
using CUdevice = int;
enum Attribute : int {
  kClockRateKhz = 13,
  kMultiprocessorCount = 16,
  kIntegrated = 18,
  kPciBusId = 33,
  kPciDeviceId = 34,
  kMemoryClockRateKhz = 36,
  kGlobalMemoryBusWidth = 37,
  kL2CacheSize = 38,
  kPciDomainId = 50,
  kComputeCapabilityMajor = 75,
  kComputeCapabilityMinor = 76,
};
constexpr CUresult kErrorInsufficientDriver = 35;
constexpr CUresult kErrorNoDevice = 100;
constexpr CUresult kErrorSystemDriverMismatch = 803;

struct DriverApi {
  CUresult (*init)(unsigned int) = nullptr;
  CUresult (*driver_get_version)(int*) = nullptr;
  CUresult (*device_get_count)(int*) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*device_get_name)(char*, int, CUdevice) = nullptr;
  CUresult (*device_total_mem)(std::size_t*, CUdevice) = nullptr;
  CUresult (*device_get_attribute)(int*, int, CUdevice) = nullptr;
  CUresult (*get_error_name)(CUresult, const char**) = nullptr;

  explicit DriverApi(const DynLib& lib)
      : init(lib.get<decltype(init)>("cuInit")),
        driver_get_version(lib.get<decltype(driver_get_version)>("cuDriverGetVersion")),
        device_get_count(lib.get<decltype(device_get_count)>("cuDeviceGetCount")),
        device_get(lib.get<decltype(device_get)>("cuDeviceGet")),
        device_get_name(lib.get<decltype(device_get_name)>("cuDeviceGetName")),
        device_total_mem(lib.get<decltype(device_total_mem)>("cuDeviceTotalMem_v2")),
        device_get_attribute(lib.get<decltype(device_get_attribute)>("cuDeviceGetAttribute")),
        get_error_name(lib.get<decltype(get_error_name)>("cuGetErrorName")) {}

  bool complete() const {
    return init && driver_get_version && device_get_count && device_get && device_get_name &&
           device_total_mem && device_get_attribute;
  }
  int attribute(int attr, CUdevice d) const {
    int v = 0;
    return device_get_attribute(&v, attr, d) == 0 ? v : 0;
  }
  std::string error_name(CUresult rc) const {
    const char* name = nullptr;
    const std::string code = "error " + std::to_string(rc);
    return get_error_name && get_error_name(rc, &name) == 0 && name
               ? std::string(name) + " (" + code + ")"
               : code;
  }
};

LibraryStatus status(const DynLib& lib) { return {lib.found(), lib.path(), lib.error()}; }

// NVIDIA display (0x0300) and 3D (0x0302) controllers on the PCI bus, driver or not.
int count_pci_nvidia_gpus() {
  std::error_code ec;
  int n = 0;
  for (const auto& dev : std::filesystem::directory_iterator("/sys/bus/pci/devices", ec)) {
    const auto vendor = text::read_file(dev.path() / "vendor");
    const auto cls = text::read_file(dev.path() / "class");
    if (vendor && cls && text::trim(*vendor) == "0x10de" &&
        (cls->starts_with("0x0300") || cls->starts_with("0x0302")))
      ++n;
  }
  return n;
}

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.126.20  ..." -> "580.126.20".
std::string proc_driver_version() {
  const auto s = text::read_file("/proc/driver/nvidia/version");
  if (!s) return "";
  const std::vector<std::string> words = text::split(*s, " \t\n");
  for (std::size_t i = 0; i + 1 < words.size(); ++i)
    if (words[i] == "Module") return words[i + 1];
  return "";
}

std::string init_failure(const DriverApi& api, CUresult rc) {
  const std::string what = "cuInit: " + api.error_name(rc);
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (rc == kErrorNoDevice)
    return "the NVIDIA driver is installed but found no CUDA device (" + what + ")" +
           (visible ? std::string("; CUDA_VISIBLE_DEVICES='") + visible + "' may hide them" : "");
  if (rc == kErrorInsufficientDriver)
    return "the NVIDIA driver is too old for this CUDA (" + what + ")";
  if (rc == kErrorSystemDriverMismatch)
    return "the driver library and the kernel module have different versions (" + what +
           "): reboot or reinstall the driver";
  return "the NVIDIA driver failed to start (" + what + ")";
}

GpuDevice read_device(const DriverApi& api, const Nvml& nvml, int index) {
  GpuDevice d;
  d.index = index;
  CUdevice dev = 0;
  if (api.device_get(&dev, index) != 0) {
    d.notes.push_back("cuDeviceGet failed for this ordinal");
    return d;
  }
  char name[256] = {};
  if (api.device_get_name(name, sizeof name, dev) == 0) d.name = name;
  std::size_t total = 0;  // size_t end to end: 32-bit byte counts wrap on 12 GB cards
  if (api.device_total_mem(&total, dev) == 0) d.total_bytes = total;
  d.cc_major = api.attribute(kComputeCapabilityMajor, dev);
  d.cc_minor = api.attribute(kComputeCapabilityMinor, dev);
  d.arch = gpu_arch(d.cc_major, d.cc_minor);
  d.sm_count = api.attribute(kMultiprocessorCount, dev);
  if (const int khz = api.attribute(kClockRateKhz, dev)) d.sm_clock_mhz = khz / 1000;
  if (const int khz = api.attribute(kMemoryClockRateKhz, dev)) d.memory_clock_mhz = khz / 1000;
  d.bus_width_bits = api.attribute(kGlobalMemoryBusWidth, dev);
  d.l2_bytes = api.attribute(kL2CacheSize, dev);
  d.integrated = api.attribute(kIntegrated, dev) != 0;
  char bus_id[32];
  std::snprintf(bus_id, sizeof bus_id, "%08X:%02X:%02X.0", api.attribute(kPciDomainId, dev),
                api.attribute(kPciBusId, dev), api.attribute(kPciDeviceId, dev));
  d.pci_bus_id = bus_id;

  const NvmlDeviceInfo info = nvml.device(d.pci_bus_id);
  d.free_bytes = info.free_bytes;
  if (info.max_sm_mhz) d.sm_clock_mhz = info.max_sm_mhz;
  d.pcie_gen_max = info.pcie_gen_max;
  d.pcie_width_max = info.pcie_width_max;
  d.pcie_gen_current = info.pcie_gen_current;
  d.pcie_width_current = info.pcie_width_current;

  d.name_info = parse_gpu_name(d.name);
  GpuPeakInputs in;
  in.cc_major = d.cc_major;
  in.cc_minor = d.cc_minor;
  in.sm_count = d.sm_count;
  in.boost_mhz = d.sm_clock_mhz.value_or(0);
  in.geforce = text::istarts_with(d.name_info.brand, "GeForce");
  in.tensor_cores = !(d.name_info.brand == "GeForce GTX" && d.name_info.generation == 16);
  if (!d.integrated) {
    in.bus_width_bits = d.bus_width_bits;
    in.memory_gbps = 2.0 * d.memory_clock_mhz.value_or(0) / 1000.0;
    d.vram = vram_verdict(d.total_bytes);
  } else {
    d.notes.push_back(
        "integrated GPU: it shares system memory, so the VRAM verdict and the "
        "bandwidth formula do not apply");
  }
  d.peaks = estimate_gpu_peaks(in);
  return d;
}

}  // namespace

GpuReport gpu_report(const GpuLibraryNames& libraries) {
  GpuReport r;
  r.built_with_cuda = kBuiltWithCuda;
  r.pci_nvidia_gpus = count_pci_nvidia_gpus();
  const DynLib driver(libraries.driver);
  const Nvml nvml(libraries.nvml);
  const DynLib runtime(libraries.runtime);
  const DynLib cudnn(libraries.cudnn);
  r.driver = status(driver);
  r.nvml = {nvml.library().found(), nvml.library().path(), nvml.error()};
  r.runtime = status(runtime);
  r.cudnn = status(cudnn);

  r.driver_version = nvml.driver_version();
  if (r.driver_version.empty()) r.driver_version = proc_driver_version();
  if (const auto get = runtime.get<int (*)(int*)>("cudaRuntimeGetVersion")) {
    int v = 0;
    if (get(&v) == 0) r.cuda_runtime_version = v;
  }
  if (const auto get = cudnn.get<std::size_t (*)()>("cudnnGetVersion"))
    r.cudnn_version = static_cast<long long>(get());

  if (!driver.found()) {
    r.reasons.push_back("no NVIDIA driver found (" + libraries.driver.front() +
                        " could not be loaded: " + driver.error() + ")" +
                        (r.pci_nvidia_gpus > 0 ? "; an NVIDIA GPU is on the PCI bus, so its "
                                                 "driver is not installed or not loaded"
                                               : ""));
  } else if (const DriverApi api(driver); !api.complete()) {
    r.reasons.push_back(driver.path() + " lacks the CUDA driver API functions torchlet needs");
  } else if (const CUresult rc = api.init(0); rc != 0) {
    r.reasons.push_back(init_failure(api, rc));
  } else {
    int v = 0;
    if (api.driver_get_version(&v) == 0) r.cuda_driver_version = v;
    int count = 0;
    if (api.device_get_count(&count) != 0) count = 0;
    for (int i = 0; i < count; ++i) r.devices.push_back(read_device(api, nvml, i));
    if (count == 0) r.reasons.push_back("the NVIDIA driver reports no CUDA device");
  }
  if (!r.cuda_driver_version) r.cuda_driver_version = nvml.cuda_driver_version();
  r.device_count = static_cast<int>(r.devices.size());
  r.current_device = r.device_count > 0 ? 0 : -1;
  r.cuda_available = r.built_with_cuda && r.device_count > 0 && torchlet::cuda::is_available();
  if (r.cuda_available) return r;
  if (r.cuda_driver_version && r.cuda_runtime_version &&
      *r.cuda_driver_version < *r.cuda_runtime_version) {
    r.reasons.push_back("the NVIDIA driver is too old: it supports CUDA up to " +
                        format_cuda_version(*r.cuda_driver_version) +
                        ", but the CUDA runtime found is " +
                        format_cuda_version(*r.cuda_runtime_version) + " (" + r.runtime.path + ")");
  }
  if (!r.built_with_cuda) {
    r.reasons.push_back(
        "this torchlet is a CPU-only build (built without CUDA), so it cannot "
        "use a GPU even where the driver sees one");
  } else if (r.device_count > 0) {
    r.reasons.push_back(
        "torchlet's CUDA backend found no usable device, although the driver sees " +
        std::to_string(r.device_count));
  }
  return r;
}

}  // namespace torchlet::hw
