// nn::Module: the call operator's hook order (the course's __call__ lesson), hooks that
// replace input and output, remove(), named parameters, Sequential, train/eval, to().
#include <string>

#include "testing.h"

namespace torchlet {
namespace {

struct Doubler : nn::Module {
  std::vector<std::string>* log;
  explicit Doubler(std::vector<std::string>* l) : log(l) {}
  Tensor forward(const Tensor& x) override {
    log->push_back("forward");
    return x * 2.0f;
  }
};

using MLP = testing::CourseMlp;

TEST(Module, CallRunsPreHooksForwardThenHooksInOrder) {
  std::vector<std::string> log;
  Doubler m(&log);
  m.register_forward_pre_hook([&](nn::Module&, const Tensor&) -> std::optional<Tensor> {
    log.push_back("pre1");
    return std::nullopt;
  });
  m.register_forward_pre_hook([&](nn::Module&, const Tensor&) -> std::optional<Tensor> {
    log.push_back("pre2");
    return std::nullopt;
  });
  m.register_forward_hook([&](nn::Module&, const Tensor&, const Tensor&) -> std::optional<Tensor> {
    log.push_back("hook1");
    return std::nullopt;
  });
  m.register_forward_hook([&](nn::Module&, const Tensor&, const Tensor&) -> std::optional<Tensor> {
    log.push_back("hook2");
    return std::nullopt;
  });
  m(ones({1}));
  EXPECT_EQ(log, (std::vector<std::string>{"pre1", "pre2", "forward", "hook1", "hook2"}));
  log.clear();
  m.forward(ones({1}));  // calling forward directly skips the hooks, as in PyTorch
  EXPECT_EQ(log, (std::vector<std::string>{"forward"}));
}

TEST(Module, HooksReplaceInputAndOutput) {
  std::vector<std::string> log;
  Doubler m(&log);
  Tensor seen_input, seen_output;
  m.register_forward_pre_hook([](nn::Module&, const Tensor& x) -> std::optional<Tensor> {
    return x + 1.0f;  // forward sees x + 1
  });
  m.register_forward_pre_hook([](nn::Module&, const Tensor& x) -> std::optional<Tensor> {
    return x * 10.0f;  // chained: (x + 1) * 10
  });
  m.register_forward_hook([&](nn::Module&, const Tensor& in, const Tensor& out) {
    seen_input = in, seen_output = out;
    return std::optional<Tensor>(out - 1.0f);
  });
  Tensor y = m(tensor({1.0f}));
  EXPECT_FLOAT_EQ(seen_input.item(), 20.0f);
  EXPECT_FLOAT_EQ(seen_output.item(), 40.0f);
  EXPECT_FLOAT_EQ(y.item(), 39.0f);
}

TEST(Module, RemoveUnregistersAHook) {
  std::vector<std::string> log;
  Doubler m(&log);
  int calls = 0;
  auto handle = m.register_forward_hook([&](nn::Module&, const Tensor&, const Tensor&) {
    ++calls;
    return std::optional<Tensor>();
  });
  m(ones({1}));
  handle.remove();
  handle.remove();  // twice is harmless
  m(ones({1}));
  EXPECT_EQ(calls, 1);
  nn::RemovableHandle outlives;
  {
    Doubler gone(&log);
    outlives = gone.register_forward_pre_hook(
        [](nn::Module&, const Tensor&) { return std::optional<Tensor>(); });
  }
  outlives.remove();  // after the module is gone: nothing happens
}

TEST(Module, NamedParametersAreDottedAndOrdered) {
  MLP model;
  std::vector<std::string> names;
  for (const auto& [name, p] : model.named_parameters()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}));
  EXPECT_EQ(model.parameters().size(), 4u);
  EXPECT_TRUE(model.parameters()[0].is_same(model.fc1.weight));
  EXPECT_EQ(model.fc1.weight.shape(), Shape({10, 4}));
  EXPECT_EQ(model.fc1.bias.shape(), Shape({10}));
  EXPECT_TRUE(model.fc1.weight.requires_grad());
  EXPECT_EQ(model.children().size(), 3u);
  EXPECT_TRUE(model.parameters(/*recurse=*/false).empty());
}

TEST(Module, LinearInitialisationIsBoundedAndSeeded) {
  manual_seed(3);
  nn::Linear a(16, 8);
  manual_seed(3);
  nn::Linear b(16, 8);
  EXPECT_EQ(a.weight.to_vector<float>(), b.weight.to_vector<float>());
  for (float v : a.weight.to_vector<float>()) EXPECT_LE(std::abs(v), 0.25f);  // 1/sqrt(16)
  for (float v : a.bias.to_vector<float>()) EXPECT_LE(std::abs(v), 0.25f);
  EXPECT_FALSE(nn::Linear(3, 2, /*bias=*/false).bias.defined());
}

TEST(Module, TrainEvalAndZeroGrad) {
  MLP model;
  EXPECT_TRUE(model.is_training());
  model.eval();
  EXPECT_FALSE(model.is_training());
  EXPECT_FALSE(model.fc1.is_training());
  model.train();
  EXPECT_TRUE(model.fc2.is_training());
  nn::CrossEntropyLoss criterion;
  criterion(model(ones({2, 4})), tensor({0, 2})).backward();
  EXPECT_TRUE(model.fc1.weight.grad().defined());
  model.zero_grad(/*set_to_none=*/false);
  EXPECT_EQ(model.fc1.weight.grad().sum().item(), 0.0f);
  model.zero_grad();
  EXPECT_FALSE(model.fc1.weight.grad().defined());
}

TEST(Module, ToKeepsParameterIdentity) {
  MLP model;
  optim::SGD optimizer(model.parameters(), 0.1);
  const auto before = model.fc1.weight.to_vector<float>();
  model.to(kCPU);
  EXPECT_TRUE(optimizer.parameters()[0].is_same(model.fc1.weight));
  EXPECT_EQ(model.fc1.weight.to_vector<float>(), before);
}

TEST(Sequential, ChainsModulesWithNumberedNames) {
  manual_seed(1);
  nn::Sequential seq(std::make_shared<nn::Linear>(4, 10), std::make_shared<nn::ReLU>());
  seq.add<nn::Linear>(10, 3);
  EXPECT_EQ(seq.size(), 3u);
  std::vector<std::string> names;
  for (const auto& [name, p] : seq.named_parameters()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  Tensor x = testing::random_tensor({5, 4}, 1);
  auto& l0 = static_cast<nn::Linear&>(seq[0]);
  auto& l2 = static_cast<nn::Linear&>(seq[2]);
  EXPECT_TRUE(testing::all_close(seq(x).to_vector<float>(), l2(relu(l0(x))).to_vector<float>()));
}

}  // namespace
}  // namespace torchlet
