// Optimizers, schedulers and gradient clipping against PyTorch's numbers
// (tests/fixtures/optim_golden.json, made by make_optim_golden.py there): every optimizer and
// option for four steps on fixed parameters and gradients, parameter groups with their own
// options, every scheduler's lr (and OneCycleLR's momentum) for 25 epochs, and
// clip_grad_norm_ / clip_grad_value_; the optimizers, clipping and a scheduled SGD again on
// float64 parameters, at float64's tolerance.
#include <cmath>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "conformance.h"
#include "testing.h"

namespace torchlet {
namespace {

using nlohmann::json;
using testing::error_of;

const json& golden() {
  static const json data = [] {
    std::ifstream in(TORCHLET_FIXTURES_DIR "/optim_golden.json");
    return json::parse(in);
  }();
  return data;
}

std::vector<Tensor> fixed_params(DType dtype = kFloat32) {
  std::vector<Tensor> params;
  const json& g = golden();
  for (std::size_t i = 0; i < g["shapes"].size(); ++i)
    params.push_back(tensor(g["params"][i].get<std::vector<float>>(),
                            Shape(g["shapes"][i].get<std::vector<int64_t>>()))
                         .to(dtype)
                         .requires_grad_());
  return params;
}

// Step `step`'s fixed gradients (of the golden file) on the parameters, in their dtype.
void set_grads(std::vector<Tensor>& params, std::size_t step) {
  for (std::size_t i = 0; i < params.size(); ++i)
    params[i].set_grad(
        tensor(golden()["grads"][step][i].get<std::vector<float>>(), params[i].shape())
            .to(params[i].dtype()));
}

// Each parameter equals PyTorch's `want` (one list per parameter) to `tolerance`.
void expect_params(const std::vector<Tensor>& params, const json& want, double tolerance,
                   const std::string& what) {
  for (std::size_t i = 0; i < params.size(); ++i)
    EXPECT_TRUE(testing::all_close(params[i].to(kFloat64).to_vector<double>(),
                                   want[i].get<std::vector<double>>(), tolerance, tolerance))
        << what << " parameter " << i << " (" << params[i].dtype() << ")";
}

double get(const json& o, const char* key, double fallback) {
  return o.contains(key) ? o[key].get<double>() : fallback;
}
bool flag(const json& o, const char* key) { return o.contains(key) && o[key].get<bool>(); }

// The optimizer PyTorch's `options` make (the config's name starts with its kind), with
// PyTorch's defaults for the rest.
std::unique_ptr<optim::Optimizer> make(const std::string& name, std::vector<Tensor> p,
                                       const json& o) {
  const bool maximize = flag(o, "maximize");
  std::pair<double, double> betas{0.9, 0.999};
  if (o.contains("betas")) betas = {o["betas"][0].get<double>(), o["betas"][1].get<double>()};
  if (name.starts_with("sgd"))
    return std::make_unique<optim::SGD>(p, get(o, "lr", 0.0), get(o, "momentum", 0.0),
                                        get(o, "weight_decay", 0.0), flag(o, "nesterov"), maximize);
  if (name.starts_with("adamw"))
    return std::make_unique<optim::AdamW>(p, get(o, "lr", 1e-3), betas, get(o, "eps", 1e-8),
                                          get(o, "weight_decay", 1e-2), maximize);
  if (name.starts_with("adam"))
    return std::make_unique<optim::Adam>(p, get(o, "lr", 1e-3), betas, get(o, "eps", 1e-8),
                                         get(o, "weight_decay", 0.0), maximize);
  if (name.starts_with("rmsprop"))
    return std::make_unique<optim::RMSprop>(p, get(o, "lr", 1e-2), get(o, "alpha", 0.99),
                                            get(o, "eps", 1e-8), get(o, "weight_decay", 0.0),
                                            get(o, "momentum", 0.0), flag(o, "centered"), maximize);
  return std::make_unique<optim::Adagrad>(
      p, get(o, "lr", 1e-2), get(o, "lr_decay", 0.0), get(o, "weight_decay", 0.0),
      get(o, "initial_accumulator_value", 0.0), get(o, "eps", 1e-10), maximize);
}

// Every optimizer configuration of the golden file for its four steps on parameters of
// `dtype`, against `after` (name -> per step, per parameter values).
void expect_optimizers_match(DType dtype, const json& after, double tolerance) {
  const json& g = golden();
  ASSERT_EQ(g["optimizers"].size(), 14u);
  for (const auto& [name, config] : g["optimizers"].items()) {
    std::vector<Tensor> params = fixed_params(dtype);
    std::unique_ptr<optim::Optimizer> opt;
    if (config["second"].is_null()) {
      opt = make(name, params, config["options"]);
    } else {  // parameter `second` in a group of its own, with its own options
      const auto second = config["second"].get<std::size_t>();
      std::vector<Tensor> first;
      for (std::size_t i = 0; i < params.size(); ++i)
        if (i != second) first.push_back(params[i]);
      opt = make(name, first, config["options"]);
      optim::ParamGroup group = opt->defaults();
      group.params = {params[second]};
      const json& o = config["second_options"];
      group.lr = get(o, "lr", group.lr);
      group.momentum = get(o, "momentum", group.momentum);
      group.weight_decay = get(o, "weight_decay", group.weight_decay);
      opt->add_param_group(group);
      ASSERT_EQ(opt->param_groups().size(), 2u);
      EXPECT_EQ(opt->parameters().size(), params.size());
    }
    for (std::size_t step = 0; step < after[name].size(); ++step) {
      set_grads(params, step);
      opt->step();
      expect_params(params, after[name][step], tolerance,
                    name + " step " + std::to_string(step + 1));
    }
    for (const Tensor& p : params) EXPECT_EQ(p.dtype(), dtype) << name;
  }
}

CONFORMANCE_TEST(OptimGolden, EveryOptimizerAndOptionMatchesPyTorch) {
  json after;
  for (const auto& [name, config] : golden()["optimizers"].items()) after[name] = config["after"];
  expect_optimizers_match(kFloat32, after, 2e-6);
}

CONFORMANCE_TEST(OptimGolden, EveryOptimizerAndOptionMatchesPyTorchInFloat64) {
  expect_optimizers_match(kFloat64, golden()["float64"]["optimizers"], 1e-12);
}

NON_TABLE_TEST(OptimGolden, ParamGroupsAreReadableAndWritable) {
  std::vector<Tensor> params = fixed_params();
  optim::AdamW opt({params[0]}, 0.01);
  EXPECT_EQ(opt.param_groups()[0].weight_decay, 1e-2);  // AdamW's default
  optim::ParamGroup group = opt.defaults();
  group.params = {params[1]};
  group.lr = 0.5;
  opt.add_param_group(group);
  EXPECT_EQ(opt.param_groups()[1].lr, 0.5);
  opt.param_groups()[0].lr = 0.25;
  EXPECT_EQ(opt.lr(), 0.25);
  opt.set_lr(0.125);
  EXPECT_EQ(opt.param_groups()[1].lr, 0.125);
  EXPECT_EQ(error_of([&] { opt.add_param_group(group); }),
            "Optimizer.add_param_group: Expected parameters in one group only, but parameter 0 "
            "is already in a group");
  opt.param_groups()[1].betas = {0.9, 1.5};
  for (const Tensor& p : params) p.set_grad(zeros(p.shape()));
  EXPECT_EQ(error_of([&] { opt.step(); }), "AdamW: Expected betas in [0, 1), but got (0.9, 1.5)");
  EXPECT_EQ(error_of([] { optim::RMSprop({}, 0.01, -0.5); }),
            "RMSprop: Expected alpha >= 0, but got -0.5");
  EXPECT_EQ(error_of([] { optim::Adagrad({}, 0.01, 0.0, 0.0, 0.0, -1.0); }),
            "Adagrad: Expected eps >= 0, but got -1");
}

// clip_grad_norm_ and clip_grad_value_ on the first step's gradients in `dtype`, against `clip`.
void expect_clipping_matches(DType dtype, const json& clip, double tolerance) {
  for (const auto& [name, config] : clip.items()) {
    std::vector<Tensor> params = fixed_params(dtype);
    set_grads(params, 0);
    if (name == "value") {
      nn::utils::clip_grad_value_(params, config["clip_value"].get<double>());
    } else {
      const double p = config["norm_type"] == "inf" ? INFINITY : config["norm_type"].get<double>();
      const Tensor total = nn::utils::clip_grad_norm_(params, config["max_norm"].get<double>(), p);
      EXPECT_EQ(total.dtype(), dtype) << name;
      EXPECT_NEAR(total.item<double>(), config["total"].get<double>(), 10 * tolerance) << name;
    }
    std::vector<Tensor> grads;
    for (const Tensor& p : params) grads.push_back(p.grad());
    expect_params(grads, config["grads"], tolerance, name + " gradient of");
  }
}

CONFORMANCE_TEST(OptimGolden, ClipGradNormAndValueMatchPyTorch) {
  expect_clipping_matches(kFloat32, golden()["clip"], 1e-6);
}

CONFORMANCE_TEST(OptimGolden, ClipGradNormAndValueMatchPyTorchInFloat64) {
  expect_clipping_matches(kFloat64, golden()["float64"]["clip"], 1e-13);
}

// A float64 SGD with momentum whose lr StepLR halves every two epochs, as PyTorch's.
NON_TABLE_TEST(OptimGolden, StepLrDrivesAFloat64OptimizerAsInPyTorch) {
  std::vector<Tensor> params = fixed_params(kFloat64);
  optim::SGD opt(params, 0.1, 0.9);
  optim::StepLR scheduler(opt, 2, 0.5);
  const json& after = golden()["float64"]["step_lr_sgd"];
  for (std::size_t epoch = 0; epoch < after.size(); ++epoch) {
    set_grads(params, epoch);
    opt.step();
    scheduler.step();
    expect_params(params, after[epoch], 1e-13, "epoch " + std::to_string(epoch + 1));
  }
}

NON_TABLE_TEST(OptimGolden, ClipGradNormWithoutGradientsOrWithANonFiniteNorm) {
  std::vector<Tensor> params = fixed_params();
  EXPECT_EQ(nn::utils::clip_grad_norm_(params, 1.0).item<double>(), 0.0);
  params[0].set_grad(full(params[0].shape(), INFINITY));
  EXPECT_EQ(error_of([&] { nn::utils::clip_grad_norm_(params, 1.0, 2.0, true); }),
            "clip_grad_norm_: Expected a finite total norm of order 2 of the gradients, but got "
            "inf (set error_if_nonfinite=false to scale by it anyway)");
}

}  // namespace
}  // namespace torchlet
