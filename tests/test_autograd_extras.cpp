// PyTorch's autograd extras: a freed graph refuses a second backward unless retain_graph;
// autograd::grad against central finite differences; custom C++ Functions; grad_fn names;
// tensor hooks on leaves and non-leaves.
#include <string>
#include <vector>

#include "testing.h"

namespace torchlet {
namespace {

using testing::error_of;

const std::string kFreed =
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd::grad(). Specify retain_graph=true if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.";

// f(x, w) = sum(sigmoid(x * w) * x + exp(w) / 4), with x [2, 3] and w [3].
Tensor f(const Tensor& x, const Tensor& w) { return (sigmoid(x * w) * x + exp(w) / 4.0).sum(); }

// d f / d args[which] by central differences, in double from float evaluations.
std::vector<float> numeric_grad(std::vector<Tensor> args, std::size_t which) {
  NoGradGuard no_grad;
  std::vector<float> values = args[which].to_vector<float>();
  std::vector<float> out(values.size());
  const float h = 1e-2f;
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::vector<float> plus = values, minus = values;
    plus[i] += h, minus[i] -= h;
    args[which] = tensor(plus, args[which].shape());
    const double fp = f(args[0], args[1]).item<double>();
    args[which] = tensor(minus, args[which].shape());
    const double fm = f(args[0], args[1]).item<double>();
    out[i] = static_cast<float>((fp - fm) / (2.0 * h));
  }
  return out;
}

TEST(AutogradExtras, SecondBackwardThroughAFreedGraphThrowsUnlessRetained) {
  const Tensor x = testing::random_tensor({2, 3}, 1, true);
  const Tensor w = testing::random_tensor({3}, 2, true);
  Tensor loss = f(x, w);
  loss.backward({}, /*retain_graph=*/true);
  const std::vector<float> once = x.grad().to_vector<float>();
  loss.backward();  // the retained graph runs again, accumulating
  const std::vector<float> twice = x.grad().to_vector<float>();
  for (std::size_t i = 0; i < once.size(); ++i) EXPECT_FLOAT_EQ(twice[i], 2 * once[i]);
  EXPECT_EQ(error_of([&] { loss.backward(); }), kFreed);
  EXPECT_EQ(x.grad().to_vector<float>(), twice);  // the refused pass changed nothing
  // A new graph over the same leaves is fine.
  f(x, w).backward();
  EXPECT_EQ(error_of([&] { loss.backward({}, false, true); }),
            "backward: Expected create_graph=false (a differentiable backward is not supported), "
            "but got true");
}

TEST(AutogradExtras, GradMatchesFiniteDifferencesAndLeavesDotGradAlone) {
  const Tensor x = testing::random_tensor({2, 3}, 3, true);
  const Tensor w = testing::random_tensor({3}, 4, true);
  const std::vector<Tensor> grads = autograd::grad({f(x, w)}, {x, w});
  ASSERT_EQ(grads.size(), 2u);
  EXPECT_TRUE(testing::all_close(grads[0].to_vector<float>(), numeric_grad({x, w}, 0), 2e-3, 2e-3));
  EXPECT_TRUE(testing::all_close(grads[1].to_vector<float>(), numeric_grad({x, w}, 1), 2e-3, 2e-3));
  EXPECT_FALSE(x.grad().defined());
  EXPECT_FALSE(w.grad().defined());
  // A non-leaf input, a gradient for a non-scalar output, and the graph kept for a backward.
  const Tensor h = x * 2.0;
  const Tensor y = h * h;
  const Tensor weights = testing::random_tensor({2, 3}, 5);
  const Tensor dh = autograd::grad({y}, {h}, {weights}, /*retain_graph=*/true)[0];
  EXPECT_TRUE(testing::all_close(dh.to_vector<float>(),
                                 (weights * h * 2.0).detach().to_vector<float>(), 1e-6, 1e-6));
  y.backward(weights);
  EXPECT_TRUE(testing::all_close(x.grad().to_vector<float>(),
                                 (weights * h * 4.0).detach().to_vector<float>(), 1e-6, 1e-6));
}

TEST(AutogradExtras, GradRefusals) {
  const Tensor x = testing::random_tensor({3}, 6, true);
  const Tensor unused = testing::random_tensor({3}, 7, true);
  EXPECT_EQ(error_of([&] {
              autograd::grad({(x * x).sum()}, {x, unused});
            }),
            "autograd::grad: One of the differentiated Tensors (input 1) appears to not have been "
            "used in the graph. Set allow_unused=true if this is the desired behavior.");
  const auto grads = autograd::grad({(x * x).sum()}, {x, unused}, {}, {}, false, true);
  EXPECT_TRUE(grads[0].defined());
  EXPECT_FALSE(grads[1].defined());
  EXPECT_EQ(error_of([&] { autograd::grad({(x * x).sum()}, {x}, {}, {}, true); }),
            "autograd::grad: Expected create_graph=false (a differentiable backward is not "
            "supported), but got true");
  const Tensor y = (x * x).sum();
  autograd::grad({y}, {x});
  EXPECT_EQ(error_of([&] { autograd::grad({y}, {x}); }), kFreed);
}

// y = x^3 * scale, written as a custom Function with a non-tensor argument.
struct ScaledCube : autograd::Function<ScaledCube> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x, double scale) {
    ctx->save_for_backward({x});
    ctx->saved_data["scale"] = scale;
    return x * x * x * scale;
  }
  static autograd::tensor_list backward(autograd::AutogradContext* ctx,
                                        autograd::tensor_list grads) {
    const Tensor x = ctx->get_saved_variables()[0];
    return {grads[0] * x * x * (3.0 * ctx->saved_data["scale"]), Tensor()};
  }
};

TEST(AutogradExtras, CustomFunctionGradientAndName) {
  const Tensor x = testing::random_tensor({4}, 8, true);
  const Tensor y = ScaledCube::apply(x, 0.5);
  ASSERT_TRUE(y.grad_fn());
  EXPECT_STREQ(y.grad_fn()->name(), "ScaledCubeBackward");
  (y * 2.0).sum().backward();
  const std::vector<float> xs = x.to_vector<float>(), g = x.grad().to_vector<float>();
  for (std::size_t i = 0; i < xs.size(); ++i) EXPECT_FLOAT_EQ(g[i], 3.0f * xs[i] * xs[i]);
  {
    NoGradGuard no_grad;  // not recorded without grad mode
    EXPECT_FALSE(ScaledCube::apply(x, 1.0).requires_grad());
  }
}

TEST(AutogradExtras, GradFnNamesArePyTorchs) {
  const Tensor a = testing::random_tensor({2, 3}, 9, true);
  const Tensor b = testing::random_tensor({2, 3}, 10, true);
  nn::Linear fc(3, 4);
  EXPECT_FALSE(a.grad_fn());
  const std::vector<std::pair<Tensor, std::string>> cases = {
      {a * b, "MulBackward0"},
      {a + b, "AddBackward0"},
      {a - b, "SubBackward0"},
      {a / b, "DivBackward0"},
      {a * 2.0, "MulBackward0"},
      {2.0 - a, "RsubBackward1"},
      {exp(a), "ExpBackward0"},
      {sigmoid(a), "SigmoidBackward0"},
      {tanh(a), "TanhBackward0"},
      {relu(a), "ReluBackward0"},
      {gelu(a), "GeluBackward0"},
      {gelu(a, "tanh"), "GeluBackward0"},
      {silu(a), "SiluBackward0"},
      {a.sum(), "SumBackward0"},
      {a.mean(), "MeanBackward0"},
      {fc(a), "AddmmBackward0"},
      {matmul(a, b.t()), "MmBackward0"},
      {a.t(), "TransposeBackward0"},
      {a.reshape({6}), "ViewBackward0"},
      {softmax(a, 1), "SoftmaxBackward0"},
      {log_softmax(a, 1), "LogSoftmaxBackward0"},
      {cross_entropy(a, tensor({0, 2}, {2})), "NllLossBackward0"}};
  for (const auto& [t, name] : cases) {
    ASSERT_TRUE(t.grad_fn()) << name;
    EXPECT_EQ(t.grad_fn()->name(), name);
  }
}

TEST(AutogradExtras, HooksSeeAndMayReplaceGradients) {
  const Tensor x = testing::random_tensor({3}, 11, true);
  int leaf_calls = 0;
  std::vector<float> seen;
  x.register_hook([&](const Tensor& g) {
    ++leaf_calls;
    seen = g.to_vector<float>();
  });
  x.register_hook([](const Tensor& g) { return g * 10.0; });
  const Tensor h = x * 2.0;
  h.register_hook([](const Tensor& g) { return g + 1.0; });  // non-leaf: replaces dL/dh
  (h * 3.0 + x).sum().backward();
  // dL/dh = 3, hooked to 4; dL/dx = 4 * 2 + 1 = 9, seen once (summed), then times 10.
  EXPECT_EQ(leaf_calls, 1);
  EXPECT_EQ(seen, std::vector<float>(3, 9.0f));
  EXPECT_EQ(x.grad().to_vector<float>(), std::vector<float>(3, 90.0f));
  const Tensor plain = testing::random_tensor({3}, 12);
  EXPECT_EQ(error_of([&] { plain.register_hook([](const Tensor& g) { return g; }); }),
            "register_hook: Expected a tensor that requires grad, but got one that does not");
}

}  // namespace
}  // namespace torchlet
