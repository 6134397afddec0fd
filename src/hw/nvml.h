// NVML (libnvidia-ml), loaded at run time: the driver version, free memory, clocks and PCIe
// link of a device (internal to src/hw). Declared by hand, as nvtop does: torchlet never
// includes nvml.h or links the library.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hw/dynlib.h"

namespace torchlet::hw {

struct NvmlDeviceInfo {
  std::optional<uint64_t> free_bytes;
  std::optional<int> max_sm_mhz;
  std::optional<int> pcie_gen_max, pcie_width_max, pcie_gen_current, pcie_width_current;
};

class Nvml {
 public:
  explicit Nvml(const std::vector<std::string>& sonames);
  ~Nvml();  // nvmlShutdown when nvmlInit succeeded
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  const DynLib& library() const { return lib_; }
  bool ready() const { return ready_; }                // loaded and initialised
  const std::string& error() const { return error_; }  // why not ready
  std::string driver_version() const;                  // "" when unknown
  std::optional<int> cuda_driver_version() const;      // 13000 = CUDA 13.0
  // pci_bus_id as "00000000:18:00.0"; empty fields where NVML has no answer.
  NvmlDeviceInfo device(const std::string& pci_bus_id) const;

 private:
  DynLib lib_;
  bool ready_ = false;
  std::string error_;
};

}  // namespace torchlet::hw
