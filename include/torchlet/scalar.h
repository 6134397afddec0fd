// Scalar: a number passed to an op next to a tensor (x * 2, x.pow(0.5), clamp(x, 0, 6)), as
// LibTorch's c10::Scalar. It remembers whether it was written as a bool, an integer or a
// floating-point number, because PyTorch's type promotion depends on it: an int64 tensor times 2
// stays int64, times 2.5 becomes float32.
#pragma once

#include <cstdint>
#include <ostream>
#include <type_traits>

namespace torchlet {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Integral, Floating };

  template <typename T>
  requires std::is_arithmetic_v<T> Scalar(
      T value)  // NOLINT(google-explicit-constructor): numbers convert as in LibTorch
      : kind_(std::is_same_v<T, bool> ? Kind::Bool
              : std::is_integral_v<T> ? Kind::Integral
                                      : Kind::Floating),
        value_(static_cast<double>(value)),
        integer_(std::is_floating_point_v<T> ? 0 : static_cast<int64_t>(value)) {}

  Kind kind() const noexcept { return kind_; }
  bool is_floating_point() const noexcept { return kind_ == Kind::Floating; }
  bool is_integral() const noexcept { return kind_ == Kind::Integral; }
  bool is_bool() const noexcept { return kind_ == Kind::Bool; }
  double to_double() const noexcept { return value_; }
  // The value as written for integers and bools (exact beyond 2^53); truncated for floats.
  int64_t to_int64() const noexcept {
    return kind_ == Kind::Floating ? static_cast<int64_t>(value_) : integer_;
  }

 private:
  Kind kind_;
  double value_;
  int64_t integer_;
};

std::ostream& operator<<(std::ostream& out, const Scalar& s);

}  // namespace torchlet
