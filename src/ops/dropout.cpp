// dropout: inverted dropout with a counter-based mask (backends/counter_rng.h), one seed per
// call drawn from torchlet's generator, so manual_seed() makes it repeatable on every device.
// The backward multiplies by the same mask. float64 inputs get the float32 mask's pattern with
// their scale in double. dropout2d is dropout's mask for whole channels, broadcast over them.
#include "autograd/node.h"
#include "core/random_generator.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

struct DropoutBackward final : autograd::Node {
  const char* name() const override { return "NativeDropoutBackward0"; }
  autograd::Grads apply(const Tensor& g) override { return {g * mask}; }
  Tensor mask;  // 0 or 1 / (1 - p)
};

}  // namespace

Tensor dropout(const Tensor& input, double p, bool training) {
  ops::check_defined("dropout", {"input", input});
  TORCHLET_CHECK(p >= 0.0 && p <= 1.0,
                 "dropout: Expected a probability p between 0 and 1, but got p = ", p);
  if (!training || p == 0.0) return input;
  if (input.dtype() == kFloat64) {
    // float64: the float32 kernel's mask (the same draw, so the same elements as in float32)
    // as PyTorch's noise, keep / (1 - p) in double; the gradient is the product's.
    const Tensor keep = dropout(ones(input.shape(), input.device()), p, true) != 0.0;
    return input * (keep.to(kFloat64) / (1.0 - p));
  }
  ops::check_dtype("dropout", {"input", input}, kFloat32);
  backend::Backend& be = backend_of(input);
  TORCHLET_CHECK(!be.capturing(),
                 "dropout: a training-mode dropout cannot be captured in a CUDA graph (its "
                 "random seed would be frozen into every replay); call it outside the capture");
  Tensor x = input.contiguous();
  Tensor y = make_tensor(x.shape(), kFloat32, x.device());
  Tensor mask = make_tensor(x.shape(), kFloat32, x.device());
  be.dropout_forward(x.data_ptr<float>(), y.data_ptr<float>(), mask.data_ptr<float>(), x.numel(),
                     static_cast<float>(p), random::next_u64());
  if (autograd::needs_grad({&input})) {
    auto node = std::make_shared<DropoutBackward>();
    node->mask = mask;
    autograd::connect(y, node, {&input});
  }
  return y;
}

Tensor dropout2d(const Tensor& input, double p, bool training) {
  ops::check_defined("dropout2d", {"input", input});
  TORCHLET_CHECK(input.dim() >= 2, "dropout2d: Expected an input of at least 2 dimensions [N, C, ",
                 "...], but got shape ", input.shape());
  if (!training || p == 0.0) return dropout(input, p, training);
  std::vector<int64_t> per_channel(static_cast<std::size_t>(input.dim()), 1);
  per_channel[0] = input.size(0);
  per_channel[1] = input.size(1);
  return input * dropout(ones(Shape(per_channel), input.device()), p, true);
}

}  // namespace torchlet
