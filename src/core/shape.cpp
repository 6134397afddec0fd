// Shape: construction (checked against kMaxDims and negative sizes) and printing.
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

}  // namespace torchlet
