// The checks and output size shared by conv2d and max_pool2d: a Window2d from an NCHW input,
// a kernel size, stride and padding, with PyTorch's error messages; and the windows as
// index_select's gather, the composed float64 form of im2col and col2im. Internal header.
#pragma once

#include "backends/backend.h"
#include "torchlet/functional.h"

namespace torchlet::ops {

// Checks input is a 4-D float32 or float64 [N, C, H, W] tensor, stride >= 1, padding >= 0 (at most
// half the kernel when max_half_kernel_padding, as pooling requires) and that the output has
// at least one pixel; returns the window with out_h, out_w filled.
backend::Window2d make_window(const char* op, const Tensor& input, Size2 kernel, Size2 stride,
                              Size2 padding, bool max_half_kernel_padding);

// float64's im2col, composed (gradients from index_select's): x [N, C, H, W] viewed as
// [N * C / channels, channels, H, W] -> [N * C / channels, channels * kh * kw, out_h * out_w],
// each column one output pixel's window in im2col's order, `pad` where it hangs over the
// padding. channels is w.channels for a convolution, 1 for a pool (each plane alone).
Tensor unfold_windows(const Tensor& x, const backend::Window2d& w, int64_t channels, double pad);
// float64's col2im, composed (gradients from index_add's): cols [M, channels * kh * kw,
// out_h * out_w] summed into the [M, channels, H, W] images whose windows they are.
Tensor fold_windows(const Tensor& cols, const backend::Window2d& w, int64_t channels);

}  // namespace torchlet::ops
