// Device parsing and printing: "cpu", "cuda", "cuda:N".
#include "torchlet/device.h"

#include <charconv>

#include "torchlet/error.h"

namespace torchlet {

namespace {

[[noreturn]] void bad_device(std::string_view spec) {
  TORCHLET_CHECK(false, "Expected a device string such as 'cpu', 'cuda' or 'cuda:1', but got '",
                 spec, "'");
  __builtin_unreachable();
}

}  // namespace

Device::Device(std::string_view spec) : type_(DeviceType::CPU), index_(-1) {
  if (spec == "cpu") return;
  if (spec.substr(0, 4) != "cuda") bad_device(spec);
  type_ = DeviceType::CUDA;
  index_ = 0;
  if (spec.size() == 4) return;
  if (spec[4] != ':' || spec.size() == 5) bad_device(spec);
  const char* first = spec.data() + 5;
  const char* last = spec.data() + spec.size();
  if (*first < '0' || *first > '9') bad_device(spec);  // rejects "-1", "+1", "x"
  auto [end, ec] = std::from_chars(first, last, index_);
  if (ec != std::errc() || end != last) bad_device(spec);
}

Device::Device(DeviceType type, int index) : type_(type), index_(index) {
  if (type == DeviceType::CPU) {
    TORCHLET_CHECK(index == -1 || index == 0, "Expected CPU device index -1 or 0, but got ", index);
    index_ = -1;
    return;
  }
  TORCHLET_CHECK(type == DeviceType::CUDA, "Expected device type CPU or CUDA, but got ",
                 static_cast<int>(type));
  TORCHLET_CHECK(index >= -1, "Expected a CUDA device index >= 0, but got ", index);
  if (index_ == -1) index_ = 0;
}

std::string Device::str() const {
  return is_cpu() ? std::string("cpu") : "cuda:" + std::to_string(index_);
}

std::ostream& operator<<(std::ostream& out, const Device& device) { return out << device.str(); }

}  // namespace torchlet
