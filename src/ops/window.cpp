// make_window: the argument checks and output size of conv2d and max_pool2d.
#include "ops/window.h"

#include "ops/common.h"

namespace torchlet::ops {

backend::Window2d make_window(const char* op, const Tensor& input, Size2 kernel, Size2 stride,
                              Size2 padding, bool max_half_kernel_padding) {
  check_defined(op, {"input", input});
  check_dtype(op, {"input", input}, kFloat32);
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

}  // namespace torchlet::ops
