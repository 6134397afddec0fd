// DType: the element types a tensor can hold, with PyTorch's names (kFloat32, kFloat64, kInt64,
// kBool).
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>

namespace torchlet {

enum class DType : int8_t { Float32 = 0, Int64 = 1, Bool = 2, Float64 = 3 };

inline constexpr DType kFloat32 = DType::Float32;
inline constexpr DType kFloat = DType::Float32;
inline constexpr DType kFloat64 = DType::Float64;
inline constexpr DType kDouble = DType::Float64;
inline constexpr DType kInt64 = DType::Int64;
inline constexpr DType kLong = DType::Int64;
inline constexpr DType kBool = DType::Bool;

constexpr std::size_t element_size(DType dtype) noexcept {
  switch (dtype) {
    case DType::Float32: return 4;
    case DType::Int64: return 8;
    case DType::Bool: return 1;
    case DType::Float64: return 8;
  }
  return 0;
}

constexpr bool is_floating_point(DType dtype) noexcept {
  return dtype == DType::Float32 || dtype == DType::Float64;
}

// PyTorch's torch.promote_types: the dtype both operands of an op are computed in, the higher of
// the two in the order bool < int64 < float32 < float64.
constexpr DType promote_types(DType a, DType b) noexcept {
  auto rank = [](DType d) {
    return d == DType::Bool ? 0 : d == DType::Int64 ? 1 : d == DType::Float32 ? 2 : 3;
  };
  return rank(a) >= rank(b) ? a : b;
}

// PyTorch's categories of dtypes, lowest first: bool, integers, floating point.
constexpr int dtype_category(DType dtype) noexcept {
  return dtype == DType::Bool ? 0 : is_floating_point(dtype) ? 2 : 1;
}

// PyTorch's torch.result_type of two tensors, each given by its dtype and whether it is 0-dim.
// A 0-dim tensor is a number held in a tensor: against a dimensioned tensor it counts only when
// it is of a higher category (float32 tensor * float64 0-dim tensor is float32; int64 tensor *
// float64 0-dim tensor is float64). Two operands of the same kind promote as promote_types.
constexpr DType result_type(DType a, bool a_0dim, DType b, bool b_0dim) noexcept {
  if (a_0dim == b_0dim) return promote_types(a, b);
  const DType dimensioned = a_0dim ? b : a, number = a_0dim ? a : b;
  return dtype_category(number) > dtype_category(dimensioned) ? promote_types(a, b) : dimensioned;
}

// "float32", "float64", "int64", "bool".
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
constexpr DType dtype_of<double>() {
  return DType::Float64;
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
