// Shape: construction (checked against kMaxDims), printing, and dimension indices
// (normalize_dim).
#include "torchlet/shape.h"

#include <algorithm>

#include "torchlet/error.h"

namespace torchlet {

Shape::Shape(std::initializer_list<int64_t> sizes)
    : Shape(std::span<const int64_t>(sizes.begin(), sizes.size())) {}

Shape::Shape(std::span<const int64_t> sizes) {
  TORCHLET_CHECK(sizes.size() <= kMaxDims, "Expected at most ", kMaxDims, " dimensions, but got ",
                 sizes.size());
  ndim_ = static_cast<int>(sizes.size());
  std::copy(sizes.begin(), sizes.end(), sizes_.begin());
}

int64_t Shape::numel() const noexcept {
  int64_t n = 1;
  for (int i = 0; i < ndim_; ++i) n *= sizes_[i];
  return n;
}

std::string Shape::str() const {
  std::string s = "[";
  for (int i = 0; i < ndim_; ++i) {
    if (i) s += ", ";
    s += std::to_string(sizes_[i]);
  }
  return s + "]";
}

bool operator==(const Shape& a, const Shape& b) noexcept {
  return a.ndim_ == b.ndim_ && std::equal(a.begin(), a.end(), b.begin());
}

std::ostream& operator<<(std::ostream& out, const Shape& shape) { return out << shape.str(); }

int normalize_dim(const char* op, int64_t dim, int ndim) {
  const int64_t lo = ndim == 0 ? -1 : -ndim, hi = ndim == 0 ? 0 : ndim - 1;
  TORCHLET_CHECK(dim >= lo && dim <= hi, op, ": Expected dim in [", lo, ", ", hi, "], but got ",
                 dim);
  return static_cast<int>(dim < 0 ? dim + (ndim == 0 ? 1 : ndim) : dim);
}

}  // namespace torchlet
