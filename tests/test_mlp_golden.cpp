// End-to-end golden test: the course's 4-10-3 MLP with CrossEntropyLoss, built with torchlet's
// public API, against PyTorch's logits, loss, gradients and five optimizer steps for each SGD
// and Adam config, from tests/fixtures/mlp_golden.json (made by make_mlp_golden.py there).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "testing.h"
#include "torchlet/torchlet.h"

namespace {

using nlohmann::json;
using torchlet::Tensor;
namespace nn = torchlet::nn;
namespace optim = torchlet::optim;

constexpr double kAbsTol = 1e-5;
constexpr double kRelTol = 1e-5;

using MLP = torchlet::testing::CourseMlp;

const json& golden() {
  static const json data = [] {
    const std::string path = TORCHLET_FIXTURES_DIR "/mlp_golden.json";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    return json::parse(in);
  }();
  return data;
}

std::vector<float> floats(const json& entry) {
  return entry.at("values").get<std::vector<float>>();
}

Tensor to_tensor(const json& entry) {
  return torchlet::tensor(floats(entry), entry.at("shape").get<std::vector<int64_t>>());
}

// Passes when every element is within kAbsTol + kRelTol * |expected| (NaN never is); otherwise
// says how many are not and which is the worst.
::testing::AssertionResult AllClose(const std::vector<float>& actual,
                                    const std::vector<float>& expected) {
  if (actual.size() != expected.size()) {
    return ::testing::AssertionFailure()
           << actual.size() << " values where " << expected.size() << " were expected";
  }
  std::size_t bad = 0, worst = 0;
  double worst_excess = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double diff = std::abs(double{actual[i]} - double{expected[i]});
    const double excess = std::isnan(diff) ? std::numeric_limits<double>::infinity()
                                           : diff - (kAbsTol + kRelTol * std::abs(expected[i]));
    if (!(excess <= 0.0)) ++bad;
    if (excess > worst_excess) worst_excess = excess, worst = i;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  std::ostringstream message;
  message << std::setprecision(9) << bad << " of " << actual.size() << " values differ; worst at ["
          << worst << "]: got " << actual[worst] << ", expected " << expected[worst] << " (|diff| "
          << std::abs(double{actual[worst]} - double{expected[worst]}) << ")";
  return ::testing::AssertionFailure() << message.str();
}

// Sets every parameter from the fixture's values, found by the same dotted name as in PyTorch.
void load_parameters(MLP& model, const json& params) {
  torchlet::NoGradGuard no_grad;
  ASSERT_EQ(model.named_parameters().size(), params.size());
  for (auto& [name, param] : model.named_parameters()) {
    ASSERT_TRUE(params.contains(name)) << "PyTorch's MLP has no parameter " << name;
    param.copy_(to_tensor(params.at(name)));
  }
}

void expect_parameters(const MLP& model, const json& expected) {
  for (const auto& [name, param] : model.named_parameters()) {
    EXPECT_TRUE(AllClose(param.to_vector<float>(), floats(expected.at(name)))) << name;
  }
}

// A case's input batch and its class targets.
struct Batch {
  Tensor x, target;
};

Batch make_batch(const json& golden_case, const torchlet::Device& device) {
  const auto target = golden_case.at("target").get<std::vector<int64_t>>();
  return {to_tensor(golden_case.at("x")).to(device),
          torchlet::tensor(target, {static_cast<int64_t>(target.size())}).to(device)};
}

std::unique_ptr<optim::Optimizer> make_optimizer(const json& config, std::vector<Tensor> params) {
  const auto lr = config.at("lr").get<double>();
  const auto weight_decay = config.at("weight_decay").get<double>();
  if (config.at("kind") == "sgd") {
    return std::make_unique<optim::SGD>(std::move(params), lr, config.at("momentum").get<double>(),
                                        weight_decay, config.at("nesterov").get<bool>());
  }
  return std::make_unique<optim::Adam>(std::move(params), lr, std::pair{0.9, 0.999}, 1e-8,
                                       weight_decay);
}

// For every case: `steps` rounds of zero_grad, forward, loss, backward and step with the
// optimizer config `name` on `device`, checking each round's loss and the final parameters.
void check_optimizer(const std::string& name, const torchlet::Device& device = torchlet::kCPU) {
  for (const json& golden_case : golden().at("cases")) {
    SCOPED_TRACE("case " + golden_case.at("name").get<std::string>());
    const Batch batch = make_batch(golden_case, device);
    const json* config = nullptr;
    for (const json& candidate : golden_case.at("optimizers")) {
      if (candidate.at("name") == name) config = &candidate;
    }
    ASSERT_NE(config, nullptr) << "no optimizer config " << name << " in the fixture";

    MLP model;
    ASSERT_NO_FATAL_FAILURE(load_parameters(model, golden_case.at("init")));
    model.to(device);
    nn::CrossEntropyLoss criterion;
    const auto optimizer = make_optimizer(*config, model.parameters());
    std::vector<float> losses;
    for (int step = 0; step < golden().at("steps").get<int>(); ++step) {
      optimizer->zero_grad();
      const Tensor loss = criterion(model(batch.x), batch.target);
      loss.backward();
      optimizer->step();
      losses.push_back(loss.item());
    }
    EXPECT_TRUE(AllClose(losses, config->at("losses").get<std::vector<float>>()))
        << "loss at each step";
    expect_parameters(model, config->at("params"));
  }
}

void check_logits_loss_and_grads(const torchlet::Device& device) {
  for (const json& golden_case : golden().at("cases")) {
    SCOPED_TRACE("case " + golden_case.at("name").get<std::string>());
    const Batch batch = make_batch(golden_case, device);
    MLP model;
    ASSERT_NO_FATAL_FAILURE(load_parameters(model, golden_case.at("init")));
    model.to(device);
    nn::CrossEntropyLoss criterion;

    const Tensor logits = model(batch.x);
    EXPECT_EQ(logits.shape().vec(),
              golden_case.at("logits").at("shape").get<std::vector<int64_t>>());
    EXPECT_TRUE(AllClose(logits.to_vector<float>(), floats(golden_case.at("logits")))) << "logits";
    const Tensor loss = criterion(logits, batch.target);
    EXPECT_TRUE(AllClose({loss.item()}, {golden_case.at("loss").get<float>()})) << "loss";

    loss.backward();
    for (const auto& [name, param] : model.named_parameters()) {
      ASSERT_TRUE(param.grad().defined()) << name << " has no gradient";
      EXPECT_EQ(param.grad().shape(), param.shape()) << name;
      EXPECT_TRUE(
          AllClose(param.grad().to_vector<float>(), floats(golden_case.at("grads").at(name))))
          << "gradient of " << name;
    }
  }
}

TEST(MlpGolden, LogitsLossAndGrads) { check_logits_loss_and_grads(torchlet::kCPU); }
TEST(MlpGolden, SgdMomentum) { check_optimizer("sgd_momentum"); }
TEST(MlpGolden, SgdWeightDecay) { check_optimizer("sgd_weight_decay"); }
TEST(MlpGolden, SgdNesterov) { check_optimizer("sgd_nesterov"); }
TEST(MlpGolden, Adam) { check_optimizer("adam"); }
TEST(MlpGolden, AdamWeightDecay) { check_optimizer("adam_weight_decay"); }

}  // namespace

// The same fixture on the GPU (ctest label `cuda`; skipped without one).
TEST(CudaMlpGolden, LogitsLossAndGrads) {
  SKIP_WITHOUT_GPU();
  check_logits_loss_and_grads(torchlet::testing::kGpu);
}
TEST(CudaMlpGolden, EveryOptimizer) {
  SKIP_WITHOUT_GPU();
  for (const char* name :
       {"sgd_momentum", "sgd_weight_decay", "sgd_nesterov", "adam", "adam_weight_decay"}) {
    SCOPED_TRACE(name);
    check_optimizer(name, torchlet::testing::kGpu);
  }
}
