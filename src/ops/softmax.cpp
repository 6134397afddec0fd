// softmax and log_softmax along one dimension, numerically stable (max subtracted first).
#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

struct SoftmaxBackward final : autograd::Node {
  const char* name() const override { return log ? "LogSoftmaxBackward0" : "SoftmaxBackward0"; }
  autograd::Grads apply(const Tensor& g) override {
    Tensor dy = g.contiguous();
    Tensor dx = make_tensor(y.shape(), kFloat32, y.device());
    backend_of(dx).softmax_backward(y.data_ptr<float>(), dy.data_ptr<float>(), dx.data_ptr<float>(),
                                    split.outer, split.r, split.inner, log);
    return {dx};
  }
  Tensor y;  // the forward's output
  ops::Split3 split;
  bool log;
};

// float64: composed of other ops (their gradients give softmax's), exp(x - max) / sum or
// (x - max) - log(sum).
Tensor softmax_float64(const Tensor& x, int64_t dim, bool log) {
  const Tensor shifted = x - amax(x, {dim}, true).detach();
  const Tensor sum_exp = sum(exp(shifted), {dim}, true);
  return log ? shifted - torchlet::log(sum_exp) : exp(shifted) / sum_exp;
}

Tensor softmax_impl(const char* op, const Tensor& input, int64_t dim, bool log) {
  ops::check_defined(op, {"input", input});
  if (input.dtype() == kFloat64) return softmax_float64(input, dim, log);
  ops::check_dtype(op, {"input", input}, kFloat32);
  const int d = normalize_dim(op, dim, input.dim());
  const ops::Split3 s = ops::split_at(input.shape(), d);
  Tensor x = input.contiguous();
  Tensor y = make_tensor(x.shape(), kFloat32, x.device());
  backend_of(y).softmax_forward(x.data_ptr<float>(), y.data_ptr<float>(), s.outer, s.r, s.inner,
                                log);
  if (autograd::needs_grad({&input})) {
    auto node = std::make_shared<SoftmaxBackward>();
    node->y = y.detach();
    node->split = s;
    node->log = log;
    autograd::connect(y, node, {&input});
  }
  return y;
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim) { return softmax_impl("softmax", x, dim, false); }
Tensor log_softmax(const Tensor& x, int64_t dim) {
  return softmax_impl("log_softmax", x, dim, true);
}
Tensor Tensor::softmax(int64_t dim) const { return torchlet::softmax(*this, dim); }
Tensor Tensor::log_softmax(int64_t dim) const { return torchlet::log_softmax(*this, dim); }

}  // namespace torchlet
