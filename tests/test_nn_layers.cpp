// The layers of issue 14 against PyTorch (LayerNorm, BatchNorm1d/2d: outputs, gradients, running
// statistics and eval outputs from tests/fixtures/ops_golden.json; with GroupNorm again after
// Module::to(kFloat64), running statistics as float64 buffers), the activation modules,
// buffers, state_dict()/load_state_dict(), and the module tree printed as PyTorch's repr.
#include <sstream>

#include "conformance.h"
#include "ops_golden.h"
#include "testing.h"

namespace torchlet {
namespace {

using testing::all_close;

std::shared_ptr<nn::Module> make(const std::string& name) {
  if (name == "layer_norm") return std::make_shared<nn::LayerNorm>(std::vector<int64_t>{3});
  if (name == "layer_norm_2d") return std::make_shared<nn::LayerNorm>(std::vector<int64_t>{2, 3});
  if (name == "group_norm") return std::make_shared<nn::GroupNorm>(2, 4);
  if (name == "batch_norm_1d") return std::make_shared<nn::BatchNorm1d>(3);
  return std::make_shared<nn::BatchNorm2d>(3, 1e-5, 0.3);
}

// Every norm row in T's precision (testing::Golden); in float64 the module is converted first.
template <typename T>
void expect_norms_match_pytorch() {
  using G = testing::Golden<T>;
  for (const nlohmann::json& e : G::section("norms")) {
    const std::string name = e["name"];
    SCOPED_TRACE(name);
    auto m = make(name);
    m->to(dtype_of<T>());
    auto params = m->parameters();
    ASSERT_EQ(params.size(), e["params"].size());
    {
      NoGradGuard no_grad;
      for (std::size_t i = 0; i < params.size(); ++i)
        params[i].copy_(tensor(G::values(e["params"][i]), params[i].shape()));
    }
    Tensor x = tensor(G::values(e["x"]), Shape(e["shape"].get<std::vector<int64_t>>()));
    x.set_requires_grad(true);
    Tensor out = (*m)(x);
    EXPECT_EQ(out.dtype(), dtype_of<T>());
    EXPECT_TRUE(all_close(out.to_vector<T>(), G::values(e["out"]), G::tol, G::tol));
    (out * tensor(G::values(e["w"]), out.shape())).sum().backward();
    EXPECT_TRUE(all_close(x.grad().to_vector<T>(), G::values(e[G::grad_key]), G::tol, G::tol));
    if (!e.contains("running_mean")) continue;
    const auto buffers = m->named_buffers();
    ASSERT_EQ(buffers.size(), 3u);
    EXPECT_EQ(buffers[0].first, "running_mean");
    EXPECT_EQ(buffers[0].second.dtype(), dtype_of<T>());
    const double atol = G::f64 ? 1e-13 : 1e-6, rtol = G::f64 ? 1e-13 : 1e-5;
    EXPECT_TRUE(
        all_close(buffers[0].second.to_vector<T>(), G::values(e["running_mean"]), atol, rtol));
    EXPECT_TRUE(
        all_close(buffers[1].second.to_vector<T>(), G::values(e["running_var"]), atol, rtol));
    EXPECT_EQ(buffers[2].second.item<int64_t>(), 1);  // num_batches_tracked
    m->eval();
    EXPECT_TRUE(
        all_close((*m)(x.detach()).to_vector<T>(), G::values(e["eval_out"]), G::tol, G::tol));
  }
}

CONFORMANCE_TEST(NnLayers, NormsMatchPyTorchInTrainingAndEval) {
  expect_norms_match_pytorch<float>();
}

CONFORMANCE_TEST(NnLayers, NormsMatchPyTorchInFloat64) { expect_norms_match_pytorch<double>(); }

// Central differences of each float64 norm in training mode (its batch statistics).
NON_TABLE_TEST(NnLayers, NormGradientsMatchCentralDifferencesInFloat64) {
  for (const nlohmann::json& e : testing::ops_golden()["float64"]["norms"]) {
    const std::string name = e["name"];
    auto m = make(name);
    m->to(kFloat64);
    testing::expect_gradients_match<double>(
        [&](const auto& v) { return (*m)(v[0]); },
        {tensor(e["x"].get<std::vector<double>>(), Shape(e["shape"].get<std::vector<int64_t>>()))},
        name, 1e-6, 1e-7);
  }
}

struct Net : nn::Module {
  nn::Linear fc{4, 3};
  nn::BatchNorm1d bn{3};
  nn::GELU act{"tanh"};
  Net() {
    register_module("fc", fc);
    register_module("bn", bn);
    register_module("act", act);
  }
  Tensor forward(const Tensor& x) override { return act(bn(fc(x))); }
};

NON_TABLE_TEST(NnLayers, StateDictCarriesParametersAndBuffers) {
  manual_seed(1);
  Net a;
  a(randn({6, 4}));  // moves bn's running statistics
  std::vector<std::string> names;
  for (const auto& [name, t] : a.state_dict()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"fc.weight", "fc.bias", "bn.weight", "bn.bias",
                                             "bn.running_mean", "bn.running_var",
                                             "bn.num_batches_tracked"}));
  manual_seed(2);
  Net b;
  b.load_state_dict(a.state_dict());
  EXPECT_EQ(b.fc.weight.to_vector<float>(), a.fc.weight.to_vector<float>());
  EXPECT_EQ(b.bn.running_mean.to_vector<float>(), a.bn.running_mean.to_vector<float>());
  auto state = a.state_dict();
  state.pop_back();
  EXPECT_EQ(testing::error_of([&] { b.load_state_dict(state); }),
            "load_state_dict: Missing key 'bn.num_batches_tracked' in state_dict");
  state = a.state_dict();
  state[0].second = zeros({2, 2});
  EXPECT_EQ(testing::error_of([&] { b.load_state_dict(state); }),
            "load_state_dict: size mismatch for fc.weight: copying a param with shape [2, 2], "
            "the shape in current model is [3, 4]");
}

NON_TABLE_TEST(NnLayers, ACheckpointKeepsTheRunningStatistics) {
  testing::TempFolder folder;
  manual_seed(3);
  Net a;
  a(randn({6, 4}));
  a(randn({6, 4}));
  nn::save(a, folder / "net.safetensors");
  manual_seed(4);
  Net b;
  nn::load(b, folder / "net.safetensors");
  EXPECT_EQ(b.bn.running_mean.to_vector<float>(), a.bn.running_mean.to_vector<float>());
  EXPECT_EQ(b.bn.running_var.to_vector<float>(), a.bn.running_var.to_vector<float>());
  EXPECT_EQ(b.bn.num_batches_tracked.item<int64_t>(), 2);
  EXPECT_EQ(b.fc.weight.to_vector<float>(), a.fc.weight.to_vector<float>());
}

NON_TABLE_TEST(NnLayers, PrintsTheModuleTreeAsPyTorch) {
  Net net;
  std::ostringstream out;
  out << net;
  EXPECT_EQ(out.str(),
            "Net(\n"
            "  (fc): Linear(in_features=4, out_features=3, bias=True)\n"
            "  (bn): BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, "
            "track_running_stats=True)\n"
            "  (act): GELU(approximate='tanh')\n"
            ")");
  nn::Sequential seq(std::make_shared<nn::Linear>(2, 2), std::make_shared<nn::Tanh>(),
                     std::make_shared<nn::LayerNorm>(std::vector<int64_t>{2}));
  std::ostringstream s;
  s << seq;
  EXPECT_EQ(s.str(),
            "Sequential(\n"
            "  (0): Linear(in_features=2, out_features=2, bias=True)\n"
            "  (1): Tanh()\n"
            "  (2): LayerNorm((2,), eps=1e-05, elementwise_affine=True)\n"
            ")");
}

NON_TABLE_TEST(NnLayers, ActivationModulesCallTheirFunctions) {
  const Tensor x = tensor({-1.5f, 0.5f, 2.0f});
  EXPECT_EQ(nn::Sigmoid()(x).to_vector<float>(), sigmoid(x).to_vector<float>());
  EXPECT_EQ(nn::SiLU()(x).to_vector<float>(), silu(x).to_vector<float>());
  EXPECT_EQ(nn::LeakyReLU(0.2)(x).to_vector<float>(), leaky_relu(x, 0.2).to_vector<float>());
  EXPECT_EQ(nn::ELU()(x).to_vector<float>(), elu(x).to_vector<float>());
  EXPECT_EQ(nn::Softplus()(x).to_vector<float>(), softplus(x).to_vector<float>());
  EXPECT_EQ(nn::Identity()(x).to_vector<float>(), x.to_vector<float>());
  EXPECT_EQ(nn::Softmax(0)(x).to_vector<float>(), softmax(x, 0).to_vector<float>());
  EXPECT_EQ(nn::LogSoftmax(0).name(), "LogSoftmax(dim=0)");
  EXPECT_EQ(nn::LeakyReLU(0.2).name(), "LeakyReLU(negative_slope=0.2)");
  EXPECT_EQ(testing::error_of([] {
              nn::BatchNorm1d(3)(zeros({1, 3}));
            }),
            "Expected more than 1 value per channel when training, got input size [1, 3]");
}

}  // namespace
}  // namespace torchlet
