// The argument checks of ops and of nn (core/checks.h): the messages users read.
#include "core/checks.h"

#include "torchlet/error.h"

namespace torchlet::ops {

void check_defined(const char* op, const Arg& arg) {
  TORCHLET_CHECK(arg.tensor.defined(), op, ": Expected argument '", arg.name,
                 "' to be a defined tensor, but got an undefined Tensor()");
}

void check_same_device(const char* op,
                       std::initializer_list<std::pair<const char*, Device>> devices) {
  const Device* first = nullptr;
  for (const auto& [name, device] : devices) {
    if (!first) {
      first = &device;
      continue;
    }
    TORCHLET_CHECK(device == *first,
                   "Expected all tensors to be on the same device, but found "
                   "at least two devices, ",
                   *first, " and ", device, "! (argument '", name, "' of ", op, ")");
  }
}

void check_same_device(const char* op, std::initializer_list<Arg> args) {
  const Tensor* first = nullptr;
  for (const Arg& arg : args) {
    if (!arg.tensor.defined()) continue;
    if (!first) {
      first = &arg.tensor;
    } else if (arg.tensor.device() != first->device()) {
      check_same_device(op, {{"", first->device()}, {arg.name, arg.tensor.device()}});
    }
  }
}

void check_dtype(const char* op, const Arg& arg, DType expected) {
  TORCHLET_CHECK(arg.tensor.dtype() == expected, op, ": Expected argument '", arg.name,
                 "' to have dtype ", expected, ", but got ", arg.tensor.dtype());
}

void check_dim(const char* op, const Arg& arg, int expected_dim) {
  TORCHLET_CHECK(arg.tensor.dim() == expected_dim, op, ": Expected argument '", arg.name,
                 "' to be ", expected_dim, "-D, but got shape ", arg.tensor.shape());
}

}  // namespace torchlet::ops
