// The GPU report of `torchlet info`: CUDA's state on this machine, read through the driver
// API (libcuda.so.1), NVML, the CUDA runtime and cuDNN, all loaded at run time with dlopen,
// so the same binary runs where none of them exist and then says why CUDA is unavailable.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "torchlet/hw/gpu_specs.h"
#include "torchlet/hw/names.h"

namespace torchlet::hw {

// Whether a run-time library was found: its path when it was, dlerror()'s text when not.
struct LibraryStatus {
  bool found = false;
  std::string path;
  std::string error;
};

struct GpuDevice {
  int index = 0;  // CUDA's ordinal (CUDA_VISIBLE_DEVICES applies)
  std::string name;
  std::string pci_bus_id;  // "00000000:18:00.0", as nvidia-smi prints it
  uint64_t total_bytes = 0;
  std::optional<uint64_t> free_bytes;  // NVML
  int cc_major = 0, cc_minor = 0;
  GpuArch arch;
  int sm_count = 0;
  std::optional<int> sm_clock_mhz;      // max SM clock
  std::optional<int> memory_clock_mhz;  // CUDA's memory clock (data rate = 2 x this)
  int bus_width_bits = 0;
  int l2_bytes = 0;
  bool integrated = false;
  std::optional<int> pcie_gen_max, pcie_width_max, pcie_gen_current, pcie_width_current;
  GpuPeaks peaks;
  VramVerdict vram;
  GpuName name_info;
  std::vector<std::string> notes;
};

struct GpuReport {
  bool built_with_cuda = false;      // this torchlet has a CUDA backend
  bool cuda_available = false;       // built with CUDA, and a device is usable
  std::vector<std::string> reasons;  // why cuda_available is false, most basic first
  LibraryStatus driver, nvml, runtime, cudnn;
  std::string driver_version;               // "580.126.20"
  std::optional<int> cuda_driver_version;   // cuDriverGetVersion: the newest CUDA it supports
  std::optional<int> cuda_runtime_version;  // cudaRuntimeGetVersion of the libcudart found
  std::optional<long long> cudnn_version;   // cudnnGetVersion (91900 = 9.19.0)
  int pci_nvidia_gpus = 0;                  // NVIDIA display controllers on the PCI bus (/sys)
  int device_count = 0;
  int current_device = -1;  // -1 without devices
  std::vector<GpuDevice> devices;
};

// The sonames tried, in order; tests replace them to simulate a missing library.
struct GpuLibraryNames {
  std::vector<std::string> driver = {"libcuda.so.1", "libcuda.so"};
  std::vector<std::string> nvml = {"libnvidia-ml.so.1", "libnvidia-ml.so"};
  std::vector<std::string> runtime = {"libcudart.so.13", "libcudart.so.12", "libcudart.so"};
  std::vector<std::string> cudnn = {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so"};
};

// Reads this machine. Never throws. Libraries found stay mapped (RTLD_NODELETE): unloading a
// driver that cuInit started is unsafe, and the CUDA backend would load it again anyway.
GpuReport gpu_report(const GpuLibraryNames& libraries = {});

}  // namespace torchlet::hw
