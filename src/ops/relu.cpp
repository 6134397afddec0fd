// relu: max(x, 0) elementwise; the backward passes the gradient where x > 0.
#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

struct ReluBackward final : autograd::Node {
  const char* name() const override { return "ReluBackward0"; }
  autograd::Grads apply(const Tensor& g) override {
    Tensor dy = g.contiguous();
    Tensor dx = make_tensor(x.shape(), kFloat32, x.device());
    backend_of(dx).relu_backward(x.data_ptr<float>(), dy.data_ptr<float>(), dx.data_ptr<float>(),
                                 x.numel());
    return {dx};
  }
  Tensor x;  // contiguous input
};

}  // namespace

Tensor relu(const Tensor& input) {
  ops::check_defined("relu", {"input", input});
  // float64: where(x > 0, x, 0), whose gradient is relu's (0 at x == 0, as PyTorch's).
  if (input.dtype() == kFloat64) return where(input > 0, input, 0.0);
  ops::check_dtype("relu", {"input", input}, kFloat32);
  Tensor x = input.contiguous();
  Tensor y = make_tensor(x.shape(), kFloat32, x.device());
  backend_of(y).relu_forward(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  if (autograd::needs_grad({&input})) {
    auto node = std::make_shared<ReluBackward>();
    node->x = x.detach();
    autograd::connect(y, node, {&input});
  }
  return y;
}

Tensor Tensor::relu() const { return torchlet::relu(*this); }

}  // namespace torchlet
