// linear: y = x W^T + b through the backend's linear_forward (a GEMM and a bias add), and its
// backward in up to three kernels (dX = dY W, dW = dY^T X, db = column sums of dY), each only when
// needed.
#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

struct LinearBackward final : autograd::Node {
  const char* name() const override { return needs_grad(2) ? "AddmmBackward0" : "MmBackward0"; }
  autograd::Grads apply(const Tensor& g) override {
    const int64_t rows = x.shape()[0], in = x.shape()[1], out = w.shape()[0];
    Tensor dy = g.contiguous();
    backend::Backend& be = backend_of(dy);
    autograd::Grads grads;
    if (needs_grad(0)) {  // dX [rows, in] = dY [rows, out] W [out, in]
      grads[0] = make_tensor(Shape{rows, in}, kFloat32, dy.device());
      be.gemm(false, false, rows, in, out, 1.0f, dy.data_ptr<float>(), out, w.data_ptr<float>(), in,
              0.0f, grads[0].data_ptr<float>(), in);
      grads[0] = grads[0].reshape(input_shape);
    }
    if (needs_grad(1)) {  // dW [out, in] = dY^T [out, rows] X [rows, in]
      grads[1] = make_tensor(w.shape(), kFloat32, dy.device());
      be.gemm(true, false, out, in, rows, 1.0f, dy.data_ptr<float>(), out, x.data_ptr<float>(), in,
              0.0f, grads[1].data_ptr<float>(), in);
    }
    if (needs_grad(2)) {  // db [out] = sum over rows of dY
      grads[2] = make_tensor(Shape{out}, kFloat32, dy.device());
      be.sum_dim(dy.data_ptr<float>(), grads[2].data_ptr<float>(), 1, rows, out, 1.0f);
    }
    return grads;
  }
  Tensor x, w;  // x as [rows, in], contiguous; w contiguous
  Shape input_shape;
};

}  // namespace

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  ops::check_defined("linear", {"input", input});
  ops::check_defined("linear", {"weight", weight});
  // The parameters' device is the reference, so a model on the GPU fed CPU data blames the
  // data: "... cuda:0 and cpu! (argument 'input' of linear)".
  ops::check_same_device("linear", {{"weight", weight}, {"bias", bias}, {"input", input}});
  // float64 (a model.to(kFloat64)): x w^T + b composed of matmul and add, gradients from theirs.
  if (input.dtype() == kFloat64 && weight.dtype() == kFloat64) {
    ops::check_dim("linear", {"weight", weight}, 2);
    const Tensor y = matmul(input, weight.t());
    return bias.defined() ? y + bias : y;
  }
  ops::check_dtype("linear", {"input", input}, kFloat32);
  ops::check_dtype("linear", {"weight", weight}, kFloat32);
  ops::check_dim("linear", {"weight", weight}, 2);
  const int64_t out_features = weight.shape()[0], in_features = weight.shape()[1];
  TORCHLET_CHECK(input.dim() >= 1 && input.shape().back() == in_features,
                 "linear: Expected input with ", in_features,
                 " features in its last dimension "
                 "(weight is ",
                 weight.shape(), "), but got input of shape ", input.shape());
  if (bias.defined()) {
    ops::check_dtype("linear", {"bias", bias}, kFloat32);
    TORCHLET_CHECK(bias.dim() == 1 && bias.shape()[0] == out_features,
                   "linear: Expected bias "
                   "of shape [",
                   out_features, "], but got ", bias.shape());
  }
  const int64_t rows = input.numel() / std::max<int64_t>(in_features, 1);
  Tensor x = input.contiguous();
  Tensor w = weight.contiguous();
  Shape out_shape = input.shape();
  out_shape[out_shape.size() - 1] = out_features;
  Tensor out = make_tensor(out_shape, kFloat32, input.device());
  Tensor b = bias.defined() ? bias.contiguous() : bias;
  backend_of(out).linear_forward(x.data_ptr<float>(), w.data_ptr<float>(),
                                 b.defined() ? b.data_ptr<float>() : nullptr, out.data_ptr<float>(),
                                 rows, in_features, out_features);
  if (autograd::needs_grad({&input, &weight, &bias})) {
    auto node = std::make_shared<LinearBackward>();
    node->x = x.detach().reshape(Shape{rows, in_features});
    node->w = w.detach();
    node->input_shape = input.shape();
    autograd::connect(out, node, {&input, &weight, &bias});
  }
  return out;
}

}  // namespace torchlet
