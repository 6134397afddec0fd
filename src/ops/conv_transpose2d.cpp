// conv_transpose2d: conv2d's input gradient as an op of its own, on conv2d's kernels. The input
// [N, C, H, W] read as columns [C, images * H * W] times the weight [C, OC * kh * kw] gives col
// [OC * kh * kw, images * H * W], which col2im sums into the output image: the window runs over
// the output (an image of OC channels, H x W window positions). The backward is conv2d's
// forward: dx = W im2col(dy), dW = x_cols im2col(dy)^T. The bias is added by a broadcast add,
// so its gradient comes with it. float64 runs the same layout composed (matmul, then
// ops::fold_windows), its gradients from those ops.
#include <algorithm>

#include "autograd/node.h"
#include "ops/common.h"
#include "ops/conv_plan.h"
#include "ops/window.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

using ops::ConvPlan;

struct ConvTranspose2dBackward final : autograd::Node {
  const char* name() const override { return "ConvTranspose2dBackward"; }
  autograd::Grads apply(const Tensor& g) override {
    const ConvPlan& p = plan;
    const int64_t in_channels = p.out_channels;
    Tensor dy = g.contiguous();
    backend::Backend& be = backend_of(dy);
    const Device device = dy.device();
    autograd::Grads grads;
    if (needs_grad(0)) grads[0] = make_tensor(x.shape(), kFloat32, device);
    if (needs_grad(1)) grads[1] = make_tensor(w.shape(), kFloat32, device);
    Tensor col = make_tensor(Shape{p.patch, p.chunk * p.pixels}, kFloat32, device);
    Tensor cols = make_tensor(Shape{in_channels, p.chunk * p.pixels}, kFloat32, device);
    for (int64_t first = 0; first < p.w.batch; first += p.chunk) {
      const int64_t images = std::min(p.chunk, p.w.batch - first), columns = images * p.pixels;
      const int64_t x_offset = first * in_channels * p.pixels;
      be.im2col(dy.data_ptr<float>() + first * p.image_floats(), col.data_ptr<float>(),
                p.part(images));
      if (needs_grad(1)) {  // dW [C, patch] += x_cols col^T
        be.strided_copy(x.data_ptr<float>() + x_offset, cols.data_ptr<float>(), kFloat32,
                        p.to_columns(images));
        be.gemm(false, true, in_channels, p.patch, columns, 1.0f, cols.data_ptr<float>(), columns,
                col.data_ptr<float>(), columns, first == 0 ? 0.0f : 1.0f,
                grads[1].data_ptr<float>(), p.patch);
      }
      if (needs_grad(0)) {  // dx_cols [C, columns] = W col, then back to NCHW
        be.gemm(false, false, in_channels, columns, p.patch, 1.0f, w.data_ptr<float>(), p.patch,
                col.data_ptr<float>(), columns, 0.0f, cols.data_ptr<float>(), columns);
        be.strided_copy(cols.data_ptr<float>(), grads[0].data_ptr<float>() + x_offset, kFloat32,
                        p.to_nchw(images, false));
      }
    }
    return grads;
  }
  Tensor x, w;  // contiguous input and weight
  ConvPlan plan{backend::Window2d{}, 0};
};

}  // namespace

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, Size2 stride,
                        Size2 padding, Size2 output_padding) {
  const char* op = "conv_transpose2d";
  ops::check_defined(op, {"input", input});
  ops::check_defined(op, {"weight", weight});
  ops::check_same_device(op, {{"weight", weight}, {"bias", bias}, {"input", input}});
  const DType dtype = input.dtype() == kFloat64 ? kFloat64 : kFloat32;
  ops::check_dtype(op, {"input", input}, dtype);
  ops::check_dtype(op, {"weight", weight}, dtype);
  TORCHLET_CHECK(input.dim() == 4, op,
                 ": Expected 4-D input [batch, channels, height, width], but got input of shape ",
                 input.shape());
  TORCHLET_CHECK(weight.dim() == 4, op, ": Expected 4-D weight [in_channels, out_channels, ",
                 "kernel_h, kernel_w], but got weight of shape ", weight.shape());
  const Shape &s = input.shape(), &ws = weight.shape();
  TORCHLET_CHECK(s[1] == ws[0], op, ": Expected input with ", ws[0], " channels (weight is ", ws,
                 "), but got input of shape ", s);
  TORCHLET_CHECK(stride.h >= 1 && stride.w >= 1, op, ": Expected stride >= 1, but got stride (",
                 stride.h, ", ", stride.w, ")");
  TORCHLET_CHECK(padding.h >= 0 && padding.w >= 0, op, ": Expected padding >= 0, but got padding (",
                 padding.h, ", ", padding.w, ")");
  TORCHLET_CHECK(output_padding.h >= 0 && output_padding.w >= 0 && output_padding.h < stride.h &&
                     output_padding.w < stride.w,
                 op, ": Expected 0 <= output_padding < stride (", stride.h, ", ", stride.w,
                 "), but got output_padding (", output_padding.h, ", ", output_padding.w, ")");
  if (bias.defined()) {
    ops::check_dtype(op, {"bias", bias}, dtype);
    TORCHLET_CHECK(bias.dim() == 1 && bias.shape()[0] == ws[1], op, ": Expected bias of shape [",
                   ws[1], "], but got ", bias.shape());
  }
  const int64_t out_h = (s[2] - 1) * stride.h - 2 * padding.h + ws[2] + output_padding.h;
  const int64_t out_w = (s[3] - 1) * stride.w - 2 * padding.w + ws[3] + output_padding.w;
  TORCHLET_CHECK(out_h >= 1 && out_w >= 1, op, ": Expected an output of at least 1x1 pixels, but ",
                 "got size (", out_h, ", ", out_w, ") from input of shape ", s, " and padding (",
                 padding.h, ", ", padding.w, ")");
  // The window of the conv2d whose input gradient this is: over the output image, with the
  // input's H x W positions.
  const backend::Window2d window{s[0],     ws[1],    out_h,     out_w,     ws[2], ws[3],
                                 stride.h, stride.w, padding.h, padding.w, s[2],  s[3]};
  const ConvPlan p(window, s[1]);
  const int64_t in_channels = s[1];
  if (dtype == kFloat64) {  // col = W^T x by matmul, summed into the windows by index_add
    const Tensor col = matmul(weight.reshape({in_channels, p.patch}).t(),
                              input.reshape({s[0], in_channels, p.pixels}));
    const Tensor y = ops::fold_windows(col, window, ws[1]);
    return bias.defined() ? y + bias.reshape({1, ws[1], 1, 1}) : y;
  }
  Tensor x = input.contiguous(), w = weight.contiguous();
  const Device device = x.device();
  Tensor y = make_tensor(Shape{s[0], ws[1], out_h, out_w}, kFloat32, device);
  backend::Backend& be = backend_of(y);
  Tensor cols = make_tensor(Shape{in_channels, p.chunk * p.pixels}, kFloat32, device);
  Tensor col = make_tensor(Shape{p.patch, p.chunk * p.pixels}, kFloat32, device);
  for (int64_t first = 0; first < p.w.batch; first += p.chunk) {
    const int64_t images = std::min(p.chunk, p.w.batch - first), columns = images * p.pixels;
    be.strided_copy(x.data_ptr<float>() + first * in_channels * p.pixels, cols.data_ptr<float>(),
                    kFloat32, p.to_columns(images));
    be.gemm(true, false, p.patch, columns, in_channels, 1.0f, w.data_ptr<float>(), p.patch,
            cols.data_ptr<float>(), columns, 0.0f, col.data_ptr<float>(), columns);
    be.col2im(col.data_ptr<float>(), y.data_ptr<float>() + first * p.image_floats(),
              p.part(images));
  }
  if (autograd::needs_grad({&input, &weight})) {
    auto node = std::make_shared<ConvTranspose2dBackward>();
    node->x = x.detach();
    node->w = w.detach();
    node->plan = p;
    autograd::connect(y, node, {&input, &weight});
  }
  return bias.defined() ? y + bias.reshape({1, ws[1], 1, 1}) : y;
}

}  // namespace torchlet
