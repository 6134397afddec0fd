// The lr schedulers against Python PyTorch's (tests/fixtures/optim_golden.json, made by
// make_optim_golden.py): each group's lr after construction and after each of 25 epochs of
// optimizer.step(); scheduler.step(), OneCycleLR's momentum too; and their refusals.
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "testing.h"

namespace torchlet {
namespace {

using nlohmann::json;
using testing::error_of;

const json& golden() {
  static const json data = [] {
    std::ifstream in(TORCHLET_FIXTURES_DIR "/optim_golden.json");
    return json::parse(in)["schedulers"];
  }();
  return data;
}

// SGD with momentum 0.9 over one parameter per lr, as the script's.
std::unique_ptr<optim::SGD> sgd(const std::vector<double>& lrs) {
  auto opt =
      std::make_unique<optim::SGD>(std::vector<Tensor>{zeros({1}).requires_grad_()}, lrs[0], 0.9);
  for (std::size_t i = 1; i < lrs.size(); ++i) {
    optim::ParamGroup group = opt->defaults();
    group.params = {zeros({1}).requires_grad_()};
    group.lr = lrs[i];
    opt->add_param_group(group);
  }
  return opt;
}

// The scheduler `name` of the script over `opt`: a function doing one step(e).
std::function<void(std::size_t)> make(const std::string& name, optim::Optimizer& opt,
                                      std::shared_ptr<void>& keep) {
  using namespace optim;
  const auto hold = [&](auto scheduler) {
    keep = scheduler;
    return [scheduler](std::size_t) { scheduler->step(); };
  };
  if (name == "step") return hold(std::make_shared<StepLR>(opt, 3, 0.5));
  if (name == "multistep")
    return hold(std::make_shared<MultiStepLR>(opt, std::vector<int64_t>{2, 5, 9, 9}, 0.1));
  if (name == "exponential") return hold(std::make_shared<ExponentialLR>(opt, 0.9));
  if (name == "cosine") return hold(std::make_shared<CosineAnnealingLR>(opt, 10, 0.001));
  if (name == "linear") return hold(std::make_shared<LinearLR>(opt, 0.25, 0.75, 8));
  if (name == "onecycle")
    return hold(std::make_shared<OneCycleLR>(opt, std::vector<double>{1.0, 0.5}, 30));
  if (name == "onecycle_linear_three_phase")
    return hold(std::make_shared<OneCycleLR>(opt, std::vector<double>{0.2}, 25, 0.4,
                                             OneCycleLR::Anneal::Linear, false, 0.85, 0.95, 10.0,
                                             100.0, true));
  const std::vector<double> metrics = golden()["metrics"].get<std::vector<double>>();
  if (name == "plateau") {
    auto s = std::make_shared<ReduceLROnPlateau>(opt, ReduceLROnPlateau::Mode::Min, 0.5, 2, 1e-4,
                                                 ReduceLROnPlateau::ThresholdMode::Rel, 1, 0.01);
    keep = s;
    return [s, metrics](std::size_t e) { s->step(metrics[e]); };
  }
  auto s = std::make_shared<ReduceLROnPlateau>(opt, ReduceLROnPlateau::Mode::Max, 0.2, 1, 0.05,
                                               ReduceLROnPlateau::ThresholdMode::Abs);
  keep = s;
  return [s, metrics](std::size_t e) { s->step(-metrics[e]); };
}

std::vector<double> lrs_of(const optim::Optimizer& opt, bool momentum = false) {
  std::vector<double> out;
  for (const optim::ParamGroup& g : opt.param_groups()) out.push_back(momentum ? g.momentum : g.lr);
  return out;
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-12 + 1e-12 * std::abs(want[i])) << what << " group " << i;
}

TEST(Schedulers, EverySchedulerFollowsPyTorchsLrsFor25Epochs) {
  int checked = 0;
  for (const auto& [name, config] : golden().items()) {
    if (name == "metrics") continue;
    ++checked;
    auto opt = sgd(config["base_lrs"].get<std::vector<double>>());
    std::shared_ptr<void> keep;
    const auto step = make(name, *opt, keep);
    const json& lr = config["lr"];
    expect_near(lrs_of(*opt), lr[0].get<std::vector<double>>(), name + " epoch 0");
    for (std::size_t e = 0; e + 1 < lr.size(); ++e) {
      opt->step();  // no gradients: changes nothing, as in the script
      step(e);
      const std::string what = name + " epoch " + std::to_string(e + 1);
      expect_near(lrs_of(*opt), lr[e + 1].get<std::vector<double>>(), what);
      expect_near(lrs_of(*opt, true), config["momentum"][e + 1].get<std::vector<double>>(), what);
    }
  }
  EXPECT_EQ(checked, 9);
}

TEST(Schedulers, GetLastLrAndEpochCounting) {
  auto opt = sgd({0.1});
  optim::StepLR scheduler(*opt, 2, 0.5);
  EXPECT_EQ(scheduler.last_epoch(), 0);
  scheduler.step();
  EXPECT_EQ(scheduler.get_last_lr(), std::vector<double>{0.1});  // not decayed after one step
  scheduler.step();
  EXPECT_EQ(scheduler.last_epoch(), 2);
  EXPECT_EQ(scheduler.get_last_lr(), std::vector<double>{0.05});
  EXPECT_EQ(opt->lr(), 0.05);
}

TEST(Schedulers, Refusals) {
  auto opt = sgd({0.1});
  EXPECT_EQ(error_of([&] { optim::StepLR(*opt, 0); }), "StepLR: Expected step_size > 0, but got 0");
  optim::OneCycleLR one_cycle(*opt, {1.0}, 2);
  one_cycle.step();
  one_cycle.step();
  EXPECT_EQ(error_of([&] { one_cycle.step(); }),
            "OneCycleLR: Tried to step 3 times. The specified number of total steps is 2");
  optim::Adagrad adagrad({zeros({1}).requires_grad_()});
  EXPECT_EQ(error_of([&] { optim::OneCycleLR(adagrad, {1.0}, 10); }),
            "OneCycleLR: Expected an optimizer with momentum or betas for cycle_momentum, but got "
            "Adagrad");
  EXPECT_EQ(
      error_of([&] { optim::ReduceLROnPlateau(*opt, optim::ReduceLROnPlateau::Mode::Min, 1.0); }),
      "ReduceLROnPlateau: Expected factor < 1.0, but got 1");
}

}  // namespace
}  // namespace torchlet
