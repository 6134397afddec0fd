// make_window: the argument checks and output size of conv2d and max_pool2d; unfold_windows
// and fold_windows, im2col and col2im composed from index_select and index_add for float64.
#include "ops/window.h"

#include <algorithm>
#include <vector>

#include "ops/common.h"

namespace torchlet::ops {

backend::Window2d make_window(const char* op, const Tensor& input, Size2 kernel, Size2 stride,
                              Size2 padding, bool max_half_kernel_padding) {
  check_defined(op, {"input", input});
  if (input.dtype() != kFloat64) check_dtype(op, {"input", input}, kFloat32);
  TORCHLET_CHECK(input.dim() == 4, op,
                 ": Expected 4-D input [batch, channels, height, width], but got input of shape ",
                 input.shape());
  TORCHLET_CHECK(kernel.h >= 1 && kernel.w >= 1, op,
                 ": Expected kernel_size >= 1, but got kernel_size (", kernel.h, ", ", kernel.w,
                 ")");
  TORCHLET_CHECK(stride.h >= 1 && stride.w >= 1, op, ": Expected stride >= 1, but got stride (",
                 stride.h, ", ", stride.w, ")");
  TORCHLET_CHECK(padding.h >= 0 && padding.w >= 0, op, ": Expected padding >= 0, but got padding (",
                 padding.h, ", ", padding.w, ")");
  if (max_half_kernel_padding)
    TORCHLET_CHECK(2 * padding.h <= kernel.h && 2 * padding.w <= kernel.w, op,
                   ": Expected padding at most half of kernel_size (", kernel.h, ", ", kernel.w,
                   "), but got padding (", padding.h, ", ", padding.w, ")");
  const Shape& s = input.shape();
  backend::Window2d w{s[0],     s[1],     s[2],      s[3],      kernel.h, kernel.w,
                      stride.h, stride.w, padding.h, padding.w, 0,        0};
  const int64_t span_h = w.height + 2 * w.pad_h - w.kernel_h;
  const int64_t span_w = w.width + 2 * w.pad_w - w.kernel_w;
  w.out_h = span_h < 0 ? 0 : span_h / w.stride_h + 1;
  w.out_w = span_w < 0 ? 0 : span_w / w.stride_w + 1;
  TORCHLET_CHECK(w.out_h >= 1 && w.out_w >= 1, op, ": Expected an input of at least ", w.kernel_h,
                 "x", w.kernel_w, " pixels with padding (", w.pad_h, ", ", w.pad_w,
                 "), but got input of shape ", s, ": the output would have size (", w.out_h, ", ",
                 w.out_w, ")");
  return w;
}

namespace {

// For each element of the column matrix [channels * kh * kw, out_h * out_w], its position in a
// flattened [channels, H, W] image, or channels * H * W (one past the end) over the padding.
Tensor window_positions(const backend::Window2d& w, int64_t channels, const Device& device) {
  const int64_t plane = w.height * w.width, pixels = w.out_h * w.out_w;
  std::vector<int64_t> at;
  at.reserve(static_cast<std::size_t>(channels * w.kernel_h * w.kernel_w * pixels));
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t i = 0; i < w.kernel_h; ++i)
      for (int64_t j = 0; j < w.kernel_w; ++j)
        for (int64_t oy = 0; oy < w.out_h; ++oy)
          for (int64_t ox = 0; ox < w.out_w; ++ox) {
            const int64_t y = oy * w.stride_h - w.pad_h + i, x = ox * w.stride_w - w.pad_w + j;
            const bool inside = y >= 0 && y < w.height && x >= 0 && x < w.width;
            at.push_back(inside ? c * plane + y * w.width + x : channels * plane);
          }
  return tensor(at, device);
}

}  // namespace

Tensor unfold_windows(const Tensor& x, const backend::Window2d& w, int64_t channels, double pad) {
  const int64_t image = channels * w.height * w.width,
                images = x.numel() / std::max<int64_t>(image, 1);
  const Tensor flat = x.reshape({images, image});
  const Tensor padded =
      cat({flat, full({images, 1}, pad, TensorOptions(x.device()).with_dtype(x.dtype()))}, 1);
  return index_select(padded, 1, window_positions(w, channels, x.device()))
      .reshape({images, channels * w.kernel_h * w.kernel_w, w.out_h * w.out_w});
}

Tensor fold_windows(const Tensor& cols, const backend::Window2d& w, int64_t channels) {
  const int64_t image = channels * w.height * w.width, images = cols.size(0);
  const Tensor sums =
      index_add(zeros({images, image + 1}, TensorOptions(cols.device()).with_dtype(cols.dtype())),
                1, window_positions(w, channels, cols.device()),
                cols.reshape({images, cols.numel() / std::max<int64_t>(images, 1)}));
  return sums.slice(1, 0, image).reshape({images, channels, w.height, w.width});
}

}  // namespace torchlet::ops
