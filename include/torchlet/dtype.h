// DType: the element types a tensor can hold, with PyTorch's names (kFloat32, kInt64, kBool).
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>

namespace torchlet {

enum class DType : int8_t { Float32 = 0, Int64 = 1, Bool = 2 };

inline constexpr DType kFloat32 = DType::Float32;
inline constexpr DType kFloat = DType::Float32;
inline constexpr DType kInt64 = DType::Int64;
inline constexpr DType kLong = DType::Int64;
inline constexpr DType kBool = DType::Bool;

constexpr std::size_t element_size(DType dtype) noexcept {
  switch (dtype) {
    case DType::Float32: return 4;
    case DType::Int64: return 8;
    case DType::Bool: return 1;
  }
  return 0;
}

// "float32", "int64", "bool".
const char* dtype_name(DType dtype) noexcept;
std::ostream& operator<<(std::ostream& out, DType dtype);

// The DType of a C++ element type: dtype_of<float> == kFloat32.
template <typename T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() {
  return DType::Float32;
}
template <>
constexpr DType dtype_of<int64_t>() {
  return DType::Int64;
}
template <>
constexpr DType dtype_of<bool>() {
  return DType::Bool;
}

}  // namespace torchlet
