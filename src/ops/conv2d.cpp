// conv2d as im2col + one GEMM (the Caffe approach): every output pixel's window becomes a
// column of `col` [channels * kh * kw, images * pixels], and W col gives the output as
// [out_channels, images * pixels], which one elementwise pass turns into NCHW while adding the
// bias. The backward runs the same steps in reverse: dW = dY col^T, dcol = W^T dY then col2im,
// db = sums of dY. Images go through in chunks that keep col under kColFloats, so a large batch
// needs no large workspace; the backward recomputes col rather than keeping it. float64 runs
// the same layout composed (ops::unfold_windows and one matmul), its gradients from those ops.
#include <algorithm>

#include "autograd/node.h"
#include "ops/common.h"
#include "ops/conv_plan.h"
#include "ops/window.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

using ops::ConvPlan;

struct Conv2dBackward final : autograd::Node {
  const char* name() const override { return "ConvolutionBackward0"; }
  autograd::Grads apply(const Tensor& g) override {
    const ConvPlan& p = plan;
    Tensor dy = g.contiguous();
    backend::Backend& be = backend_of(dy);
    const Device device = dy.device();
    autograd::Grads grads;
    if (needs_grad(0)) grads[0] = make_tensor(x.shape(), kFloat32, device);
    if (needs_grad(1)) grads[1] = make_tensor(w.shape(), kFloat32, device);
    if (needs_grad(2)) {  // db = the sum of dY over images and pixels
      Tensor per_image = make_tensor(Shape{p.w.batch * p.out_channels}, kFloat32, device);
      be.sum_dim(dy.data_ptr<float>(), per_image.data_ptr<float>(), p.w.batch * p.out_channels,
                 p.pixels, 1, 1.0f);
      grads[2] = make_tensor(Shape{p.out_channels}, kFloat32, device);
      be.sum_dim(per_image.data_ptr<float>(), grads[2].data_ptr<float>(), 1, p.w.batch,
                 p.out_channels, 1.0f);
    }
    if (!needs_grad(0) && !needs_grad(1)) return grads;
    Tensor dy_cols = make_tensor(Shape{p.out_channels, p.chunk * p.pixels}, kFloat32, device);
    Tensor col = make_tensor(Shape{p.patch, p.chunk * p.pixels}, kFloat32, device);
    for (int64_t first = 0; first < p.w.batch; first += p.chunk) {
      const int64_t images = std::min(p.chunk, p.w.batch - first), columns = images * p.pixels;
      be.strided_copy(dy.data_ptr<float>() + first * p.out_channels * p.pixels,
                      dy_cols.data_ptr<float>(), kFloat32, p.to_columns(images));
      if (needs_grad(1)) {  // dW [oc, patch] += dY_cols col^T
        be.im2col(x.data_ptr<float>() + first * p.image_floats(), col.data_ptr<float>(),
                  p.part(images));
        be.gemm(false, true, p.out_channels, p.patch, columns, 1.0f, dy_cols.data_ptr<float>(),
                columns, col.data_ptr<float>(), columns, first == 0 ? 0.0f : 1.0f,
                grads[1].data_ptr<float>(), p.patch);
      }
      if (needs_grad(0)) {  // dcol = W^T dY_cols, then summed back into the images
        be.gemm(true, false, p.patch, columns, p.out_channels, 1.0f, w.data_ptr<float>(), p.patch,
                dy_cols.data_ptr<float>(), columns, 0.0f, col.data_ptr<float>(), columns);
        be.col2im(col.data_ptr<float>(), grads[0].data_ptr<float>() + first * p.image_floats(),
                  p.part(images));
      }
    }
    return grads;
  }
  Tensor x, w;  // contiguous input and weight
  ConvPlan plan{backend::Window2d{}, 0};
};

// float64: col [N, patch, pixels] gathered by index_select, W col by matmul.
Tensor conv2d_float64(const Tensor& input, const Tensor& weight, const Tensor& bias,
                      const backend::Window2d& w) {
  const int64_t out_channels = weight.size(0);
  const Tensor col = ops::unfold_windows(input, w, w.channels, 0.0);
  Tensor y = matmul(weight.reshape({out_channels, col.size(1)}), col);
  if (bias.defined()) y = y + bias.reshape({1, out_channels, 1});
  return y.reshape({w.batch, out_channels, w.out_h, w.out_w});
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, Size2 stride,
              Size2 padding) {
  ops::check_defined("conv2d", {"input", input});
  ops::check_defined("conv2d", {"weight", weight});
  ops::check_same_device("conv2d", {{"weight", weight}, {"bias", bias}, {"input", input}});
  const DType dtype = input.dtype() == kFloat64 ? kFloat64 : kFloat32;
  ops::check_dtype("conv2d", {"weight", weight}, dtype);
  TORCHLET_CHECK(weight.dim() == 4, "conv2d: Expected 4-D weight [out_channels, in_channels, ",
                 "kernel_h, kernel_w], but got weight of shape ", weight.shape());
  const Shape& ws = weight.shape();
  const backend::Window2d window =
      ops::make_window("conv2d", input, Size2(ws[2], ws[3]), stride, padding, false);
  TORCHLET_CHECK(window.channels == ws[1], "conv2d: Expected input with ", ws[1],
                 " channels (weight is ", ws, "), but got input of shape ", input.shape());
  if (bias.defined()) {
    ops::check_dtype("conv2d", {"bias", bias}, dtype);
    TORCHLET_CHECK(bias.dim() == 1 && bias.shape()[0] == ws[0], "conv2d: Expected bias of shape [",
                   ws[0], "], but got ", bias.shape());
  }
  if (dtype == kFloat64) return conv2d_float64(input, weight, bias, window);
  const ConvPlan p(window, ws[0]);
  Tensor x = input.contiguous(), w = weight.contiguous();
  Tensor b = bias.defined() ? bias.contiguous() : bias;
  const Device device = x.device();
  Tensor y = make_tensor(Shape{p.w.batch, p.out_channels, p.w.out_h, p.w.out_w}, kFloat32, device);
  backend::Backend& be = backend_of(y);
  Tensor col = make_tensor(Shape{p.patch, p.chunk * p.pixels}, kFloat32, device);
  Tensor y_cols = make_tensor(Shape{p.out_channels, p.chunk * p.pixels}, kFloat32, device);
  for (int64_t first = 0; first < p.w.batch; first += p.chunk) {
    const int64_t images = std::min(p.chunk, p.w.batch - first), columns = images * p.pixels;
    be.im2col(x.data_ptr<float>() + first * p.image_floats(), col.data_ptr<float>(),
              p.part(images));
    be.gemm(false, false, p.out_channels, columns, p.patch, 1.0f, w.data_ptr<float>(), p.patch,
            col.data_ptr<float>(), columns, 0.0f, y_cols.data_ptr<float>(), columns);
    float* y_part = y.data_ptr<float>() + first * p.out_channels * p.pixels;
    if (b.defined())
      be.binary(backend::BinaryOp::Add, kFloat32, y_cols.data_ptr<float>(), b.data_ptr<float>(),
                y_part, p.to_nchw(images, true));
    else
      be.strided_copy(y_cols.data_ptr<float>(), y_part, kFloat32, p.to_nchw(images, false));
  }
  if (autograd::needs_grad({&input, &weight, &bias})) {
    auto node = std::make_shared<Conv2dBackward>();
    node->x = x.detach();
    node->w = w.detach();
    node->plan = p;
    autograd::connect(y, node, {&input, &weight, &bias});
  }
  return y;
}

}  // namespace torchlet
