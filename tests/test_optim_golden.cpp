// Optimizers, schedulers and gradient clipping against PyTorch's numbers
// (tests/fixtures/optim_golden.json, made by make_optim_golden.py there): every optimizer and
// option for four steps on fixed parameters and gradients, parameter groups with their own
// options, every scheduler's lr (and OneCycleLR's momentum) for 25 epochs, and
// clip_grad_norm_ / clip_grad_value_.
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

std::vector<Tensor> fixed_params() {
  std::vector<Tensor> params;
  const json& g = golden();
  for (std::size_t i = 0; i < g["shapes"].size(); ++i)
    params.push_back(tensor(g["params"][i].get<std::vector<float>>(),
                            Shape(g["shapes"][i].get<std::vector<int64_t>>()))
                         .requires_grad_());
  return params;
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

CONFORMANCE_TEST(OptimGolden, EveryOptimizerAndOptionMatchesPyTorch) {
  const json& g = golden();
  ASSERT_EQ(g["optimizers"].size(), 14u);
  for (const auto& [name, config] : g["optimizers"].items()) {
    std::vector<Tensor> params = fixed_params();
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
    for (std::size_t step = 0; step < config["after"].size(); ++step) {
      for (std::size_t i = 0; i < params.size(); ++i)
        params[i].set_grad(
            tensor(g["grads"][step][i].get<std::vector<float>>(), params[i].shape()));
      opt->step();
      for (std::size_t i = 0; i < params.size(); ++i)
        EXPECT_TRUE(testing::all_close(params[i].to_vector<float>(),
                                       config["after"][step][i].get<std::vector<float>>(), 2e-6,
                                       2e-6))
            << name << " step " << step + 1 << " parameter " << i;
    }
  }
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

CONFORMANCE_TEST(OptimGolden, ClipGradNormAndValueMatchPyTorch) {
  const json& g = golden();
  for (const auto& [name, config] : g["clip"].items()) {
    std::vector<Tensor> params = fixed_params();
    for (std::size_t i = 0; i < params.size(); ++i)
      params[i].set_grad(tensor(g["grads"][0][i].get<std::vector<float>>(), params[i].shape()));
    if (name == "value") {
      nn::utils::clip_grad_value_(params, config["clip_value"].get<double>());
    } else {
      const double p = config["norm_type"] == "inf" ? INFINITY : config["norm_type"].get<double>();
      const Tensor total = nn::utils::clip_grad_norm_(params, config["max_norm"].get<double>(), p);
      EXPECT_NEAR(total.item<double>(), config["total"].get<double>(), 1e-5) << name;
    }
    for (std::size_t i = 0; i < params.size(); ++i)
      EXPECT_TRUE(testing::all_close(params[i].grad().to_vector<float>(),
                                     config["grads"][i].get<std::vector<float>>(), 1e-6, 1e-6))
          << name << " parameter " << i;
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
