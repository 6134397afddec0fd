// The losses of functional.h and nn/loss.h against PyTorch's values and gradients
// (tests/fixtures/ops_golden.json, "losses"), every option PyTorch has: reductions, class
// weights, ignore_index, label smoothing, pos_weight, log_target; again in float64 (the
// "float64"/"losses" rows, class weights in the input's dtype as PyTorch requires) with central
// differences.
#include <functional>
#include <map>

#include "conformance.h"
#include "ops_golden.h"
#include "testing.h"

namespace torchlet {
namespace {

using testing::all_close;
using Fn = std::function<Tensor(const Tensor&, const Tensor&)>;

// Class weights (or pos_weight) in x's dtype, as PyTorch requires (a brace list is float32).
Tensor weights(const std::vector<double>& values, const Tensor& x) {
  return tensor(values).to(x.dtype());
}

const std::map<std::string, Fn>& rows() {
  static const std::map<std::string, Fn> table = {
      {"mse_mean", [](const Tensor& x, const Tensor& t) { return nn::MSELoss()(x, t); }},
      {"mse_none", [](const Tensor& x, const Tensor& t) { return mse_loss(x, t, "none"); }},
      {"l1_sum", [](const Tensor& x, const Tensor& t) { return nn::L1Loss("sum")(x, t); }},
      {"smooth_l1",
       [](const Tensor& x, const Tensor& t) { return nn::SmoothL1Loss("mean", 0.5)(x, t); }},
      {"huber", [](const Tensor& x, const Tensor& t) { return nn::HuberLoss("mean", 0.7)(x, t); }},
      {"nll", [](const Tensor& x, const Tensor& t) { return nn::NLLLoss()(log_softmax(x, 1), t); }},
      {"nll_weight_ignore",
       [](const Tensor& x, const Tensor& t) {
         return nll_loss(log_softmax(x, 1), t, weights({0.2, 1.0, 3.0}, x), 1);
       }},
      {"cross_entropy_plain",
       [](const Tensor& x, const Tensor& t) { return nn::CrossEntropyLoss()(x, t); }},
      {"cross_entropy_weight_sum",
       [](const Tensor& x, const Tensor& t) {
         return nn::CrossEntropyLoss(weights({0.5, 2.0, 1.0}, x), -100, "sum")(x, t);
       }},
      {"cross_entropy_smoothing",
       [](const Tensor& x, const Tensor& t) {
         return nn::CrossEntropyLoss(Tensor(), -100, "mean", 0.1)(x, t);
       }},
      {"cross_entropy_all",
       [](const Tensor& x, const Tensor& t) {
         return cross_entropy(x, t, weights({0.5, 2.0, 1.0}, x), 0, "mean", 0.2);
       }},
      {"bce", [](const Tensor& x, const Tensor& t) { return nn::BCELoss()(sigmoid(x), t); }},
      {"bce_weight",
       [](const Tensor& x, const Tensor& t) {
         return binary_cross_entropy(sigmoid(x), t, weights({1.0, 0.5, 2.0}, x));
       }},
      {"bce_logits",
       [](const Tensor& x, const Tensor& t) { return nn::BCEWithLogitsLoss()(x, t); }},
      {"bce_logits_pos_weight",
       [](const Tensor& x, const Tensor& t) {
         return nn::BCEWithLogitsLoss(Tensor(), "sum", weights({1.0, 3.0, 0.5}, x))(x * 4, t);
       }},
      {"kl_div_batchmean",
       [](const Tensor& x, const Tensor& t) {
         return nn::KLDivLoss("batchmean")(log_softmax(x, 1), t);
       }},
      {"kl_div_log_target",
       [](const Tensor& x, const Tensor& t) {
         return kl_div(log_softmax(x, 1), log(t), "sum", true);
       }},
  };
  return table;
}

bool has_class_target(const std::string& name) {
  return name.rfind("nll", 0) == 0 || name.rfind("cross_entropy", 0) == 0;
}

template <typename T>
Tensor target_of(const nlohmann::json& e) {
  if (has_class_target(e["name"])) return tensor(e["target"].get<std::vector<int64_t>>());
  return tensor(e["target"].get<std::vector<T>>(), {4, 3});
}

// Every loss row against PyTorch's values and x gradients, in T's precision (testing::Golden).
template <typename T>
void expect_losses_match_pytorch() {
  using G = testing::Golden<T>;
  std::size_t seen = 0;
  for (const nlohmann::json& e : G::section("losses")) {
    const std::string name = e["name"];
    SCOPED_TRACE(name);
    ASSERT_TRUE(rows().count(name));
    ++seen;
    Tensor x = tensor(G::values(e["x"]), {4, 3});
    x.set_requires_grad(true);
    Tensor out = rows().at(name)(x, target_of<T>(e));
    EXPECT_EQ(out.shape(), Shape(e["shape"].get<std::vector<int64_t>>()));
    EXPECT_EQ(out.dtype(), dtype_of<T>());
    EXPECT_TRUE(all_close(out.to_vector<T>(), G::values(e["out"]), G::tol, G::tol));
    (out * tensor(G::values(e["w"]), out.shape())).sum().backward();
    EXPECT_TRUE(all_close(x.grad().to_vector<T>(), G::values(e[G::grad_key]), G::tol, G::tol));
  }
  EXPECT_EQ(seen, rows().size());
}

CONFORMANCE_TEST(Losses, EveryLossMatchesPyTorchValuesAndGradients) {
  expect_losses_match_pytorch<float>();
}

CONFORMANCE_TEST(Losses, EveryLossMatchesPyTorchInFloat64) {
  expect_losses_match_pytorch<double>();
}

NON_TABLE_TEST(Losses, EveryLossMatchesCentralDifferencesInFloat64) {
  for (const nlohmann::json& e : testing::ops_golden()["float64"]["losses"]) {
    const std::string name = e["name"];
    const Tensor target = target_of<double>(e);
    testing::expect_gradients_match<double>(
        [&](const auto& v) { return rows().at(name)(v[0], target); },
        {tensor(e["x"].get<std::vector<double>>(), {4, 3})}, name, 1e-6, 1e-7);
  }
}

NON_TABLE_TEST(Losses, ErrorsSayWhatWasExpected) {
  const Tensor x = zeros({2, 3});
  EXPECT_EQ(testing::error_of([&] {
              mse_loss(x, zeros({3, 2}));
            }),
            "mse_loss: Expected target of the input's shape [2, 3], but got [3, 2]");
  EXPECT_EQ(testing::error_of([&] { mse_loss(x, x, "avg"); }),
            "mse_loss: Expected reduction 'none', 'mean' or 'sum', but got 'avg'");
  EXPECT_EQ(testing::error_of([&] {
              nll_loss(x, tensor({0, 5}));
            }),
            "nll_loss: Expected every target to be a class index in [0, 3) or ignore_index -100, "
            "but got 5");
  EXPECT_EQ(testing::error_of([&] { nll_loss(x, tensor({0, -100})); }), "(no error)");
}

}  // namespace
}  // namespace torchlet
