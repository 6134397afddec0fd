// What every op shares: argument checks with the messages users read, dimension handling,
// and the internal ops other ops are built from (expand, sum_to). Internal header.
#pragma once

#include <initializer_list>

#include "core/tensor_impl.h"
#include "torchlet/error.h"

namespace torchlet::ops {

// A named argument of an op, for error messages.
struct Arg {
  const char* name;
  const Tensor& tensor;
};

// Throws unless every defined argument is on the first one's device, e.g. "Expected all
// tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
// (argument 'input' of linear)".
void check_same_device(const char* op, std::initializer_list<Arg> args);
// The same check on devices alone: the first argument's device is the reference.
void check_same_device(const char* op,
                       std::initializer_list<std::pair<const char*, Device>> devices);
void check_defined(const char* op, const Arg& arg);
void check_dtype(const char* op, const Arg& arg, DType expected);
void check_dim(const char* op, const Arg& arg, int expected_dim);
// A dim in [-ndim, ndim) made non-negative; throws naming the op otherwise.
int normalize_dim(const char* op, int64_t dim, int ndim);

// Views `t` as `shape` without copying: dimensions of size 1 (or missing in front) get
// stride 0. Used for broadcasting gradients back.
Tensor expand(const Tensor& t, const Shape& shape);
// Sums `t` over the dimensions it was broadcast along, giving a tensor of `shape`.
Tensor sum_to(const Tensor& t, const Shape& shape);
// PyTorch's broadcast of two shapes; throws naming op when they do not broadcast.
Shape broadcast_shape(const char* op, const Shape& a, const Shape& b);
// a op b with broadcasting and type promotion (ops/binary.cpp), for ops that pick the op code.
Tensor binary(backend::BinaryOp op, const Tensor& a, const Tensor& b);

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
