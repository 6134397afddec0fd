// Device: where a tensor's memory lives, a (type, index) pair such as cpu or cuda:1.
// A small validated value type; parsing "cuda:1" and printing it round-trip.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace torchlet {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };

inline constexpr int kNumDeviceTypes = 2;

class Device {
 public:
  // "cpu", "cuda" (index 0) or "cuda:N"; anything else throws torchlet::Error naming the string.
  Device(std::string_view spec);  // NOLINT: implicit, as torch::Device("cuda:1") is used
  Device(const char* spec) : Device(std::string_view(spec)) {}         // NOLINT
  Device(const std::string& spec) : Device(std::string_view(spec)) {}  // NOLINT
  // index -1 means "the default one": 0 for CUDA, and always -1 for the CPU.
  explicit Device(DeviceType type, int index = -1);

  DeviceType type() const noexcept { return type_; }
  // The CPU has index -1, as in PyTorch; a CUDA device has index >= 0.
  int index() const noexcept { return index_; }
  bool is_cpu() const noexcept { return type_ == DeviceType::CPU; }
  bool is_cuda() const noexcept { return type_ == DeviceType::CUDA; }
  std::string str() const;

  friend bool operator==(const Device& a, const Device& b) noexcept {
    return a.type_ == b.type_ && a.index_ == b.index_;
  }

 private:
  DeviceType type_;
  int index_;
};

inline const Device kCPU{DeviceType::CPU};

std::ostream& operator<<(std::ostream& out, const Device& device);

}  // namespace torchlet
