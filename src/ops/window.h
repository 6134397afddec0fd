// The checks and output size shared by conv2d and max_pool2d: a Window2d from an NCHW input,
// a kernel size, stride and padding, with PyTorch's error messages. Internal header.
#pragma once

#include "backends/backend.h"
#include "torchlet/functional.h"

namespace torchlet::ops {

// Checks input is a 4-D float32 [N, C, H, W] tensor, stride >= 1, padding >= 0 (at most
// half the kernel when max_half_kernel_padding, as pooling requires) and that the output has
// at least one pixel; returns the window with out_h, out_w filled.
backend::Window2d make_window(const char* op, const Tensor& input, Size2 kernel, Size2 stride,
                              Size2 padding, bool max_half_kernel_padding);

}  // namespace torchlet::ops
