// What every op shares: the argument checks (core/checks.h), dimension splits (split_at), and the
// internal ops other ops are built from (expand, sum_to). Internal header of ops: no other
// folder includes it.
#pragma once

#include "core/checks.h"
#include "core/tensor_impl.h"
#include "torchlet/error.h"

namespace torchlet::ops {

// Views `t` as `shape` without copying: dimensions of size 1 (or missing in front) get
// stride 0. Used for broadcasting gradients back.
Tensor expand(const Tensor& t, const Shape& shape);
// Sums `t` over the dimensions it was broadcast along, giving a tensor of `shape`.
Tensor sum_to(const Tensor& t, const Shape& shape);
// PyTorch's broadcast of two shapes; throws naming op when they do not broadcast.
Shape broadcast_shape(const char* op, const Shape& a, const Shape& b);
// a op b with broadcasting and type promotion (ops/binary.cpp), for ops that pick the op code.
Tensor binary(backend::BinaryOp op, const Tensor& a, const Tensor& b);

// Ends an in-place op (ops/inplace.cpp): writes its out-of-place result into self's memory, or,
// when autograd records the op, gives this handle the differentiable result (a new tensor).
// Throws naming op when the result's shape differs, its dtype is of a higher category, or self
// is a leaf that requires grad.
Tensor& assign_in_place(Tensor& self, const char* op, const Tensor& result);

// The contiguous [outer, r, inner] sizes around dimension d of shape.
struct Split3 {
  int64_t outer, r, inner;
};
Split3 split_at(const Shape& shape, int d);

}  // namespace torchlet::ops

namespace torchlet::ops {

// Drops size-1 dimensions and merges neighbours that both operands (and a contiguous output)
// walk as one, so kernels see the fewest, longest runs.
backend::Loop coalesce(const backend::Loop& loop);

}  // namespace torchlet::ops
