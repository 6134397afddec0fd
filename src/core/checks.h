// The argument checks of ops and of the layers above them (nn's fused step), with the messages
// users read. Internal header of the core layer: ops reach it through ops/common.h, upper layers
// include it directly (they never include ops' private headers). Dimension indices are
// normalize_dim in torchlet/shape.h.
#pragma once

#include <initializer_list>
#include <utility>

#include "torchlet/tensor.h"

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

}  // namespace torchlet::ops
