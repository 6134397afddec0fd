// max_pool2d: the largest value of each window; the forward records where it was, so the
// backward only routes each output's gradient back to that input. float64: the maximum over each
// window gathered by ops::unfold_windows (-inf over the padding), its gradient max's.
#include <cmath>

#include "autograd/node.h"
#include "ops/common.h"
#include "ops/window.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

struct MaxPool2dBackward final : autograd::Node {
  const char* name() const override { return "MaxPool2DWithIndicesBackward0"; }
  autograd::Grads apply(const Tensor& g) override {
    Tensor dy = g.contiguous();
    Tensor dx = make_tensor(input_shape, kFloat32, dy.device());
    backend_of(dx).max_pool2d_backward(dy.data_ptr<float>(), argmax.data_ptr<int64_t>(),
                                       dx.data_ptr<float>(), window);
    return {dx};
  }
  Tensor argmax;  // [N, C, out_h, out_w]: each maximum's position in its input plane
  Shape input_shape;
  backend::Window2d window{};
};

}  // namespace

Tensor max_pool2d(const Tensor& input, Size2 kernel_size, Size2 stride, Size2 padding) {
  if (stride.h == 0 && stride.w == 0) stride = kernel_size;
  const backend::Window2d w =
      ops::make_window("max_pool2d", input, kernel_size, stride, padding, true);
  if (input.dtype() == kFloat64)
    return std::get<0>(ops::unfold_windows(input, w, 1, -INFINITY).max(1))
        .reshape({w.batch, w.channels, w.out_h, w.out_w});
  Tensor x = input.contiguous();
  const Shape out_shape{w.batch, w.channels, w.out_h, w.out_w};
  Tensor y = make_tensor(out_shape, kFloat32, x.device());
  Tensor argmax = make_tensor(out_shape, kInt64, x.device());
  backend_of(y).max_pool2d_forward(x.data_ptr<float>(), y.data_ptr<float>(),
                                   argmax.data_ptr<int64_t>(), w);
  if (autograd::needs_grad({&input})) {
    auto node = std::make_shared<MaxPool2dBackward>();
    node->argmax = argmax;
    node->input_shape = input.shape();
    node->window = w;
    autograd::connect(y, node, {&input});
  }
  return y;
}

}  // namespace torchlet
