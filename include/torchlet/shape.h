// Shape: a tensor's sizes, stored inline (at most kMaxDims dimensions) so that making and
// copying one never touches the heap. Also used for strides.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace torchlet {

class Shape {
 public:
  static constexpr int kMaxDims = 6;

  Shape() = default;
  Shape(std::initializer_list<int64_t> sizes);  // NOLINT: Shape s = {2, 3};
  Shape(std::span<const int64_t> sizes);        // NOLINT
  Shape(const std::vector<int64_t>& sizes) : Shape(std::span<const int64_t>(sizes)) {}  // NOLINT

  // constexpr, so that CUDA kernels (nvcc's --expt-relaxed-constexpr) read a Shape too.
  constexpr int size() const noexcept { return ndim_; }
  bool empty() const noexcept { return ndim_ == 0; }
  constexpr int64_t operator[](int i) const noexcept { return sizes_[i]; }
  int64_t& operator[](int i) noexcept { return sizes_[i]; }
  const int64_t* begin() const noexcept { return sizes_.data(); }
  const int64_t* end() const noexcept { return sizes_.data() + ndim_; }
  int64_t back() const noexcept { return sizes_[ndim_ - 1]; }

  // The product of the sizes (1 for a scalar's empty shape).
  int64_t numel() const noexcept;
  std::vector<int64_t> vec() const { return {begin(), end()}; }
  // "[120, 4]".
  std::string str() const;

  friend bool operator==(const Shape& a, const Shape& b) noexcept;

 private:
  std::array<int64_t, kMaxDims> sizes_{};
  int ndim_ = 0;
};

std::ostream& operator<<(std::ostream& out, const Shape& shape);

// A dimension index in [-ndim, ndim) made non-negative, as PyTorch wraps dims (a scalar takes
// -1 and 0); throws naming the op otherwise: "sum: Expected dim in [-2, 1], but got 2".
int normalize_dim(const char* op, int64_t dim, int ndim);

}  // namespace torchlet
