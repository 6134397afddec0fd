// ModuleList and ModuleDict (registration, iteration, indexing, the printed tree as PyTorch's
// repr), and modules whose forward takes several inputs, with their hooks.
#include <sstream>

#include "testing.h"

namespace torchlet {
namespace {

TEST(ModuleList, RegistersIteratesAndIndexes) {
  manual_seed(1);
  nn::ModuleList list(std::make_shared<nn::Linear>(2, 3), std::make_shared<nn::ReLU>());
  list.push_back(std::make_shared<nn::Linear>(3, 1));
  ASSERT_EQ(list.size(), 3u);
  std::vector<std::string> names;
  for (const auto& [name, p] : list.named_parameters()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  EXPECT_EQ(list.at<nn::Linear>(-1).in_features, 3);
  EXPECT_EQ(&list[1], list.ptr(-2).get());
  Tensor x = testing::random_tensor({4, 2}, 1), y = x;
  for (const auto& module : list) y = (*module)(y);
  const Tensor want =
      linear(relu(linear(x, list.at<nn::Linear>(0).weight, list.at<nn::Linear>(0).bias)),
             list.at<nn::Linear>(2).weight, list.at<nn::Linear>(2).bias);
  EXPECT_EQ(y.to_vector<float>(), want.to_vector<float>());
  list.eval();
  EXPECT_FALSE(list[0].is_training());
  nn::ModuleList more;
  EXPECT_TRUE(more.is_empty());
  more.extend(list);
  EXPECT_EQ(more.parameters().size(), 4u);
  EXPECT_EQ(testing::error_of([&] { list[3]; }),
            "ModuleList: Expected an index in [-3, 3), but got 3");
  EXPECT_EQ(testing::error_of([&] { list.at<nn::Linear>(1); }),
            "ModuleList[1]: Expected a module of the requested type, but got ReLU()");
  EXPECT_EQ(testing::error_of([&] { list(x); }),
            "ModuleList: Expected to be iterated in a model's forward, but got called (a "
            "ModuleList has no forward)");
}

TEST(ModuleDict, KeepsInsertionOrderAndNames) {
  nn::ModuleDict dict(
      {{"encoder", std::make_shared<nn::Linear>(4, 2)}, {"act", std::make_shared<nn::Tanh>()}});
  dict.insert("decoder", std::make_shared<nn::Linear>(2, 4, false));
  EXPECT_EQ(dict.keys(), (std::vector<std::string>{"encoder", "act", "decoder"}));
  EXPECT_TRUE(dict.contains("act"));
  EXPECT_FALSE(dict.contains("relu"));
  EXPECT_EQ(dict.at<nn::Linear>("decoder").out_features, 4);
  EXPECT_EQ(dict.values()[1].get(), &dict["act"]);
  std::vector<std::string> names;
  for (const auto& [name, p] : dict.named_parameters()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"encoder.weight", "encoder.bias", "decoder.weight"}));
  int n = 0;
  for (const auto& [key, module] : dict) n += key.size() > 0 && module != nullptr;
  EXPECT_EQ(n, 3);
  EXPECT_EQ(testing::error_of([&] { dict["relu"]; }),
            "ModuleDict: Expected one of its keys, but got 'relu'");
  EXPECT_EQ(testing::error_of([&] { dict.insert("act", std::make_shared<nn::ReLU>()); }),
            "register_module: Expected a new name, but 'act' is already a child");
}

struct Blocks : nn::Module {
  nn::ModuleList layers;
  nn::ModuleDict heads;
  Blocks() {
    layers.push_back(std::make_shared<nn::Linear>(4, 4));
    layers.push_back(std::make_shared<nn::GELU>());
    heads.insert("cls", std::make_shared<nn::Linear>(4, 3));
    register_module("layers", layers);
    register_module("heads", heads);
  }
  Tensor forward(const Tensor& x) override {
    Tensor y = x;
    for (const auto& layer : layers) y = (*layer)(y);
    return heads["cls"](y);
  }
};

TEST(ModuleList, PrintsAsPyTorchsRepr) {
  Blocks model;
  std::ostringstream out;
  out << model;
  EXPECT_EQ(out.str(),
            "Blocks(\n"
            "  (layers): ModuleList(\n"
            "    (0): Linear(in_features=4, out_features=4, bias=True)\n"
            "    (1): GELU(approximate='none')\n"
            "  )\n"
            "  (heads): ModuleDict(\n"
            "    (cls): Linear(in_features=4, out_features=3, bias=True)\n"
            "  )\n"
            ")");
  EXPECT_EQ(model(zeros({2, 4})).shape(), Shape({2, 3}));
  std::ostringstream empty;
  empty << nn::ModuleList();
  EXPECT_EQ(empty.str(), "ModuleList()");
}

// A module of two inputs, as PyTorch's forward(self, x, mask).
struct Masked : nn::Module {
  Tensor forward(const std::vector<Tensor>& in) override { return in[0] * in[1]; }
};

TEST(MultiInputModule, CallsForwardWithEveryInputBetweenTheHooks) {
  Masked m;
  const Tensor x = tensor({1.0f, 2.0f, 3.0f}), mask = tensor({1.0f, 0.0f, 1.0f});
  EXPECT_EQ(m(x, mask).to_vector<float>(), (std::vector<float>{1, 0, 3}));
  EXPECT_EQ(m({x, mask}).to_vector<float>(), (std::vector<float>{1, 0, 3}));
  std::vector<float> seen;
  auto pre = m.register_forward_pre_hook([](nn::Module&, const Tensor& first) {
    return std::optional<Tensor>(first * 10.0f);  // replaces the first input
  });
  auto post = m.register_forward_hook([&](nn::Module&, const Tensor& first, const Tensor& out) {
    seen = first.to_vector<float>();
    return std::optional<Tensor>(out + 1.0f);
  });
  EXPECT_EQ(m(x, mask).to_vector<float>(), (std::vector<float>{11, 1, 31}));
  EXPECT_EQ(seen, (std::vector<float>{10, 20, 30}));
  pre.remove();
  post.remove();
  EXPECT_EQ(m(x, mask).to_vector<float>(), (std::vector<float>{1, 0, 3}));
  // Gradients flow to every input.
  Tensor a = x.clone().set_requires_grad(true), b = mask.clone().set_requires_grad(true);
  m(a, b).sum().backward();
  EXPECT_EQ(a.grad().to_vector<float>(), mask.to_vector<float>());
  EXPECT_EQ(b.grad().to_vector<float>(), x.to_vector<float>());
}

struct Neither : nn::Module {};

TEST(MultiInputModule, AModuleWithoutForwardSaysSo) {
  Neither m;
  EXPECT_EQ(testing::error_of([&] { m(zeros({1})); }),
            "Neither: Expected a module that overrides forward(input) or forward(inputs), but "
            "got one that overrides neither (called with 1 inputs)");
  EXPECT_EQ(testing::error_of([&] { m(std::vector<Tensor>{}); }),
            "Neither: Expected at least one input, but got none");
}

}  // namespace
}  // namespace torchlet
