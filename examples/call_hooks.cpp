// model(x) is not forward(x): nn::Module's call operator runs the forward pre-hooks, then
// forward(), then the forward hooks, exactly as PyTorch's nn.Module.__call__ does. This
// program prints each step, and shows hooks that change the input and the output.
#include <torchlet/torchlet.h>

#include <cstdio>

namespace tl = torchlet;
namespace nn = torchlet::nn;

struct Doubler : nn::Module {
  tl::Tensor forward(const tl::Tensor& x) override {
    std::printf("  forward(%.1f)\n", x.item());
    return x * 2.0f;
  }
};

int main() {
  Doubler model;
  std::printf("model.forward(1) skips the hooks:\n");
  model.forward(tl::tensor({1.0f}, {}));

  auto pre = model.register_forward_pre_hook([](nn::Module&, const tl::Tensor& x) {
    std::printf("  pre-hook sees %.1f and adds 10\n", x.item());
    return std::optional<tl::Tensor>(x + 10.0f);
  });
  auto post = model.register_forward_hook(
      [](nn::Module&, const tl::Tensor&, const tl::Tensor& y) -> std::optional<tl::Tensor> {
        std::printf("  hook sees the output %.1f\n", y.item());
        return std::nullopt;  // keep the output as it is
      });
  std::printf("model(1) runs pre-hooks, forward, hooks:\n");
  std::printf("  result %.1f\n", model(tl::tensor({1.0f}, {})).item());

  pre.remove();
  post.remove();
  std::printf("after remove(), model(1) is forward(1) again:\n");
  std::printf("  result %.1f\n", model(tl::tensor({1.0f}, {})).item());
}
