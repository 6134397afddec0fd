// cross_entropy: the mean over the batch of -log softmax(logits)[target], fused: the forward
// keeps softmax(logits) so the backward is one kernel, (p - onehot) * dloss / N.
#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

struct CrossEntropyBackward final : autograd::Node {
  const char* name() const override { return "NllLossBackward0"; }
  autograd::Grads apply(const Tensor& g) override {
    const int64_t n = probs.shape()[0], c = probs.shape()[1];
    Tensor dloss = g.contiguous();
    Tensor dx = make_tensor(probs.shape(), kFloat32, probs.device());
    backend_of(dx).cross_entropy_backward(probs.data_ptr<float>(), target.data_ptr<int64_t>(),
                                          dloss.data_ptr<float>(), dx.data_ptr<float>(), n, c);
    return {dx};
  }
  Tensor probs, target;
};

}  // namespace

Tensor cross_entropy(const Tensor& input, const Tensor& target) {
  ops::check_defined("cross_entropy", {"input", input});
  ops::check_defined("cross_entropy", {"target", target});
  ops::check_same_device("cross_entropy", {{"input", input}, {"target", target}});
  // float64: the composed form (log_softmax and nll_loss), whose gradient is the same formula.
  if (input.dtype() == kFloat64) return cross_entropy(input, target, Tensor());
  ops::check_dtype("cross_entropy", {"input", input}, kFloat32);
  TORCHLET_CHECK(target.dtype() == kInt64,
                 "cross_entropy: Expected argument 'target' to have "
                 "dtype int64 (class indices), but got ",
                 target.dtype(), " (convert labels with .to(kInt64))");
  ops::check_dim("cross_entropy", {"input", input}, 2);
  ops::check_dim("cross_entropy", {"target", target}, 1);
  const int64_t n = input.shape()[0], c = input.shape()[1];
  TORCHLET_CHECK(target.shape()[0] == n, "cross_entropy: Expected target of shape [", n,
                 "] (one class index per row of input ", input.shape(), "), but got ",
                 target.shape());
  TORCHLET_CHECK(n > 0 && c > 0, "cross_entropy: Expected a non-empty input, but got shape ",
                 input.shape());
  Tensor x = input.contiguous();
  Tensor t = target.contiguous();
  Tensor loss = make_tensor(Shape{}, kFloat32, x.device());
  Tensor probs = make_tensor(x.shape(), kFloat32, x.device());
  backend_of(loss).cross_entropy_forward(x.data_ptr<float>(), t.data_ptr<int64_t>(),
                                         loss.data_ptr<float>(), probs.data_ptr<float>(), n, c);
  if (autograd::needs_grad({&input})) {
    auto node = std::make_shared<CrossEntropyBackward>();
    node->probs = probs;
    node->target = t.detach();
    autograd::connect(loss, node, {&input});
  }
  return loss;
}

}  // namespace torchlet
