// torchlet::indexing, LibTorch's torch::indexing: the pieces of x.index({...}) and
// x.index_put_({...}, v), Python's x[...] written in C++. x.index({0, Slice(1, None), None,
// Ellipsis, mask}) is x[0, 1:, None, ..., mask]. Integers, Slice, None and Ellipsis make views;
// int64 and bool tensors (advanced indexing) gather copies, their result dimensions placed as
// NumPy and PyTorch place them.
#pragma once

#include <cstdint>
#include <optional>

#include "torchlet/tensor.h"

namespace torchlet::indexing {

struct NoneType {};
inline constexpr NoneType None{};
struct EllipsisType {};
inline constexpr EllipsisType Ellipsis{};

// One bound or step of a Slice: an integer, or None for Python's default.
struct SliceBound {
  SliceBound(NoneType) {}                   // NOLINT: Slice(None, 3)
  SliceBound(int64_t v) : value(v) {}       // NOLINT: Slice(1, 3)
  SliceBound(int v) : value(int64_t{v}) {}  // NOLINT
  std::optional<int64_t> value;
};

// start:stop:step; negative bounds count from the end and bounds out of range are clamped, as
// in Python. The step must be positive (PyTorch has no negative steps either).
class Slice {
 public:
  Slice(SliceBound start = None, SliceBound stop = None, SliceBound step = None)  // NOLINT
      : start_(start.value), stop_(stop.value), step_(step.value) {}
  std::optional<int64_t> start() const { return start_; }
  std::optional<int64_t> stop() const { return stop_; }
  std::optional<int64_t> step() const { return step_; }

 private:
  std::optional<int64_t> start_, stop_, step_;
};

class TensorIndex {
 public:
  enum class Kind { None, Ellipsis, Integer, Slice, Tensor };
  TensorIndex(NoneType) : kind_(Kind::None) {}                           // NOLINT
  TensorIndex(EllipsisType) : kind_(Kind::Ellipsis) {}                   // NOLINT
  TensorIndex(const char* ellipsis);                                     // NOLINT: "..." only
  TensorIndex(int64_t i) : kind_(Kind::Integer), integer_(i) {}          // NOLINT
  TensorIndex(int i) : kind_(Kind::Integer), integer_(i) {}              // NOLINT
  TensorIndex(Slice s) : kind_(Kind::Slice), slice_(s) {}                // NOLINT
  TensorIndex(Tensor t) : kind_(Kind::Tensor), tensor_(std::move(t)) {}  // NOLINT

  Kind kind() const { return kind_; }
  int64_t integer() const { return integer_; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  Slice slice_;
  Tensor tensor_;
};

}  // namespace torchlet::indexing
