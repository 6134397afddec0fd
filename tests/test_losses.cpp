// The losses of functional.h and nn/loss.h against PyTorch's values and gradients
// (tests/fixtures/ops_golden.json, "losses"), every option PyTorch has: reductions, class
// weights, ignore_index, label smoothing, pos_weight, log_target.
#include <functional>
#include <map>

#include "conformance.h"
#include "ops_golden.h"
#include "testing.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::floats;
using Fn = std::function<Tensor(const Tensor&, const Tensor&)>;

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
         return nll_loss(log_softmax(x, 1), t, tensor({0.2f, 1.0f, 3.0f}), 1);
       }},
      {"cross_entropy_plain",
       [](const Tensor& x, const Tensor& t) { return nn::CrossEntropyLoss()(x, t); }},
      {"cross_entropy_weight_sum",
       [](const Tensor& x, const Tensor& t) {
         return nn::CrossEntropyLoss(tensor({0.5f, 2.0f, 1.0f}), -100, "sum")(x, t);
       }},
      {"cross_entropy_smoothing",
       [](const Tensor& x, const Tensor& t) {
         return nn::CrossEntropyLoss(Tensor(), -100, "mean", 0.1)(x, t);
       }},
      {"cross_entropy_all",
       [](const Tensor& x, const Tensor& t) {
         return cross_entropy(x, t, tensor({0.5f, 2.0f, 1.0f}), 0, "mean", 0.2);
       }},
      {"bce", [](const Tensor& x, const Tensor& t) { return nn::BCELoss()(sigmoid(x), t); }},
      {"bce_weight",
       [](const Tensor& x, const Tensor& t) {
         return binary_cross_entropy(sigmoid(x), t, tensor({1.0f, 0.5f, 2.0f}));
       }},
      {"bce_logits",
       [](const Tensor& x, const Tensor& t) { return nn::BCEWithLogitsLoss()(x, t); }},
      {"bce_logits_pos_weight",
       [](const Tensor& x, const Tensor& t) {
         return nn::BCEWithLogitsLoss(Tensor(), "sum", tensor({1.0f, 3.0f, 0.5f}))(x * 4, t);
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

Tensor target_of(const nlohmann::json& e) {
  const std::string name = e["name"];
  if (name.rfind("nll", 0) == 0 || name.rfind("cross_entropy", 0) == 0)
    return tensor(e["target"].get<std::vector<int64_t>>());
  return tensor(e["target"].get<std::vector<float>>(), {4, 3});
}

CONFORMANCE_TEST(Losses, EveryLossMatchesPyTorchValuesAndGradients) {
  std::size_t seen = 0;
  for (const nlohmann::json& e : testing::ops_golden()["losses"]) {
    const std::string name = e["name"];
    SCOPED_TRACE(name);
    ASSERT_TRUE(rows().count(name));
    ++seen;
    Tensor x = tensor(floats(e["x"]), {4, 3});
    x.set_requires_grad(true);
    Tensor out = rows().at(name)(x, target_of(e));
    EXPECT_EQ(out.shape(), Shape(e["shape"].get<std::vector<int64_t>>()));
    EXPECT_TRUE(all_close(out.to_vector<float>(), floats(e["out"]), 1e-5, 1e-5));
    (out * tensor(floats(e["w"]), out.shape())).sum().backward();
    EXPECT_TRUE(all_close(x.grad().to_vector<float>(), floats(e["grad"]), 1e-5, 1e-5));
  }
  EXPECT_EQ(seen, rows().size());
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
