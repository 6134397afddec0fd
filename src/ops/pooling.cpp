// conv1d, max_pool1d, avg_pool2d and adaptive_avg_pool2d, composed from conv2d, max_pool2d and
// matmul, so every backend runs them and their gradients come with them: a 1-d layer is its
// 2-d op on [N, C, 1, L]; an average pool is conv2d with a constant kernel on each channel
// alone; an adaptive average pool is two averaging matrices, one over rows and one over columns.
#include <vector>

#include "ops/common.h"
#include "ops/window.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

void check_1d(const char* op, const Tensor& input) {
  ops::check_defined(op, {"input", input});
  TORCHLET_CHECK(input.dim() == 3, op, ": Expected 3-D input [batch, channels, length], but got ",
                 "input of shape ", input.shape());
}

// [out, in] of `like`'s dtype and device: row i averages inputs floor(i in / out) ..
// ceil((i + 1) in / out) - 1.
Tensor averaging_matrix(int64_t out, int64_t in, const Tensor& like) {
  std::vector<double> values(static_cast<std::size_t>(out * in), 0.0);
  for (int64_t i = 0; i < out; ++i) {
    const int64_t start = i * in / out, end = ((i + 1) * in + out - 1) / out;
    for (int64_t j = start; j < end; ++j)
      values[i * in + j] = 1.0 / static_cast<double>(end - start);
  }
  return tensor(values, Shape{out, in}, like.device()).to(like.dtype());
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t stride,
              int64_t padding) {
  check_1d("conv1d", input);
  ops::check_defined("conv1d", {"weight", weight});
  TORCHLET_CHECK(weight.dim() == 3, "conv1d: Expected 3-D weight [out_channels, in_channels, ",
                 "kernel_size], but got weight of shape ", weight.shape());
  return conv2d(input.unsqueeze(2), weight.unsqueeze(2), bias, Size2(1, stride), Size2(0, padding))
      .squeeze(2);
}

Tensor max_pool1d(const Tensor& input, int64_t kernel_size, int64_t stride, int64_t padding) {
  check_1d("max_pool1d", input);
  return max_pool2d(input.unsqueeze(2), Size2(1, kernel_size),
                    Size2(1, stride ? stride : kernel_size), Size2(0, padding))
      .squeeze(2);
}

Tensor avg_pool2d(const Tensor& input, Size2 kernel_size, Size2 stride, Size2 padding) {
  if (stride.h == 0 && stride.w == 0) stride = kernel_size;
  const backend::Window2d w =
      ops::make_window("avg_pool2d", input, kernel_size, stride, padding, true);
  const Tensor kernel = full({1, 1, kernel_size.h, kernel_size.w},
                             1.0 / static_cast<double>(kernel_size.h * kernel_size.w),
                             TensorOptions(input.device()).with_dtype(input.dtype()));
  return conv2d(input.reshape({w.batch * w.channels, 1, w.height, w.width}), kernel, Tensor(),
                stride, padding)
      .reshape({w.batch, w.channels, w.out_h, w.out_w});
}

Tensor adaptive_avg_pool2d(const Tensor& input, Size2 output_size) {
  ops::check_defined("adaptive_avg_pool2d", {"input", input});
  if (input.dtype() != kFloat64)
    ops::check_dtype("adaptive_avg_pool2d", {"input", input}, kFloat32);
  TORCHLET_CHECK(input.dim() == 4, "adaptive_avg_pool2d: Expected 4-D input [batch, channels, ",
                 "height, width], but got input of shape ", input.shape());
  TORCHLET_CHECK(output_size.h >= 1 && output_size.w >= 1, "adaptive_avg_pool2d: Expected ",
                 "output_size >= 1, but got output_size (", output_size.h, ", ", output_size.w,
                 ")");
  TORCHLET_CHECK(input.size(2) >= 1 && input.size(3) >= 1, "adaptive_avg_pool2d: Expected an ",
                 "input of at least 1x1 pixels, but got input of shape ", input.shape());
  const Tensor rows = averaging_matrix(output_size.h, input.size(2), input);
  const Tensor cols = averaging_matrix(output_size.w, input.size(3), input);
  return matmul(matmul(rows, input), cols.t());
}

}  // namespace torchlet
