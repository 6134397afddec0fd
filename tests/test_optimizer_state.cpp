// Optimizer state across a checkpoint: SGD's momentum buffers and Adam's moments and step
// counts come back through state_dict / load_state_dict and nn::save / nn::load, so that a
// resumed run repeats an uninterrupted one bit for bit; every malformed state is refused with
// the optimizer (and the module) left as they were.
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "testing.h"
#include "torchlet/nn/checkpoint.h"

namespace torchlet {
namespace {

namespace fs = std::filesystem;
using testing::error_of;
using testing::parameter_values;
using testing::scratch_dir;
using testing::small_mlp;

using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(nn::Module&)>;

std::unique_ptr<optim::Optimizer> sgd_momentum(nn::Module& m) {
  return std::make_unique<optim::SGD>(m.parameters(), 0.1, 0.9, 1e-3, true);
}
std::unique_ptr<optim::Optimizer> adam(nn::Module& m) {
  return std::make_unique<optim::Adam>(m.parameters(), 0.01);
}
std::unique_ptr<optim::Optimizer> adamw(nn::Module& m) {
  return std::make_unique<optim::AdamW>(m.parameters(), 0.01, std::pair{0.9, 0.99}, 1e-8, 0.1);
}
std::unique_ptr<optim::Optimizer> rmsprop(nn::Module& m) {
  return std::make_unique<optim::RMSprop>(m.parameters(), 0.01, 0.99, 1e-8, 0.0, 0.9, true);
}
std::unique_ptr<optim::Optimizer> adagrad(nn::Module& m) {
  return std::make_unique<optim::Adagrad>(m.parameters(), 0.1, 0.01, 0.0, 0.1);
}

// `steps` full-batch steps of cross-entropy on fixed random data.
void train(nn::Module& model, optim::Optimizer& optimizer, int steps) {
  const Tensor X = testing::random_tensor({16, 4}, 3);
  const Tensor y = tensor({0, 1, 2, 1, 0, 2, 2, 1, 0, 0, 1, 2, 1, 1, 0, 2}, {16});
  for (int i = 0; i < steps; ++i) {
    optimizer.zero_grad();
    cross_entropy(model(X), y).backward();
    optimizer.step();
  }
}

struct Kind {
  const char* name;
  MakeOptimizer make;
  std::vector<std::string> state_names;
};

const std::vector<Kind>& kinds() {
  static const std::vector<Kind> all{
      {"SGD", sgd_momentum, {"momentum_buffer"}},
      {"Adam", adam, {"exp_avg", "exp_avg_sq", "step"}},
      {"AdamW", adamw, {"exp_avg", "exp_avg_sq", "step"}},
      {"RMSprop", rmsprop, {"grad_avg", "momentum_buffer", "square_avg"}},
      {"Adagrad", adagrad, {"step", "sum"}}};
  return all;
}

TEST(OptimizerState, SavedStateMakesAResumedRunRepeatTheUninterruptedOne) {
  const auto dir = scratch_dir();
  const std::string path = (dir / "m.safetensors").string();
  for (const Kind& kind : kinds()) {
    auto whole = small_mlp(1);
    auto whole_opt = kind.make(*whole);
    train(*whole, *whole_opt, 7);

    auto first = small_mlp(1);
    auto first_opt = kind.make(*first);
    train(*first, *first_opt, 4);
    nn::save(*first, *first_opt, path);
    auto resumed = small_mlp(2);  // other weights, a fresh optimizer: all of it comes from the file
    auto resumed_opt = kind.make(*resumed);
    nn::load(*resumed, *resumed_opt, path);
    train(*resumed, *resumed_opt, 3);
    EXPECT_EQ(parameter_values(*resumed), parameter_values(*whole)) << kind.name;  // bit for bit

    // Without the state, the same weights continue differently: the state matters.
    auto fresh = small_mlp(2);
    auto fresh_opt = kind.make(*fresh);
    nn::load(*fresh, path);
    train(*fresh, *fresh_opt, 3);
    EXPECT_NE(parameter_values(*fresh), parameter_values(*whole)) << kind.name;
  }
}

TEST(OptimizerState, StateDictIsASnapshotUnderPyTorchsNames) {
  for (const Kind& kind : kinds()) {
    auto model = small_mlp(1);
    auto optimizer = kind.make(*model);
    const optim::StateDict before = optimizer->state_dict();
    ASSERT_EQ(before.size(), 4u) << kind.name;
    for (const optim::ParamState& s : before) EXPECT_TRUE(s.empty()) << kind.name;
    train(*model, *optimizer, 2);
    const optim::StateDict state = optimizer->state_dict();
    ASSERT_EQ(state.size(), 4u);
    for (std::size_t i = 0; i < state.size(); ++i) {
      std::vector<std::string> names;
      for (const auto& [name, t] : state[i]) {
        names.push_back(name);
        if (name == "step") {
          EXPECT_EQ(t.item<int64_t>(), 2);
        } else {
          EXPECT_EQ(t.shape(), model->parameters()[i].shape()) << kind.name << " " << name;
        }
      }
      EXPECT_EQ(names, kind.state_names) << kind.name << " parameter " << i;
    }
    const Tensor& saved = std::find_if(state[0].begin(), state[0].end(), [](const auto& entry) {
                            return entry.first != "step";  // a float32 state
                          })->second;
    const std::vector<float> snapshot = saved.to_vector<float>();
    train(*model, *optimizer, 1);
    EXPECT_EQ(saved.to_vector<float>(), snapshot) << kind.name;
    // Loading a state and reading it back gives the same values.
    auto other = small_mlp(3);
    auto other_opt = kind.make(*other);
    other_opt->load_state_dict(state);
    const optim::StateDict back = other_opt->state_dict();
    for (std::size_t i = 0; i < state.size(); ++i)
      for (const auto& [name, t] : state[i])
        EXPECT_EQ(back[i].at(name).str(), t.str()) << kind.name << " " << name;
  }
}

TEST(OptimizerState, LoadStateDictRefusesBadStateAndKeepsItsOwn) {
  auto model = small_mlp(1);
  optim::Adam adam(model->parameters(), 0.01);
  train(*model, adam, 1);
  const optim::StateDict good = adam.state_dict();
  const auto refused = [&](const optim::StateDict& state) {
    const std::string message = error_of([&] { adam.load_state_dict(state); });
    const optim::StateDict now = adam.state_dict();
    for (std::size_t i = 0; i < good.size(); ++i)
      for (const auto& [name, t] : good[i]) EXPECT_EQ(now[i].at(name).str(), t.str()) << message;
    return message;
  };
  EXPECT_EQ(refused(optim::StateDict(3)),
            "Adam.load_state_dict: Expected the state of 4 parameters, but got 3 entries");
  optim::StateDict state = good;
  state[1]["momentum_buffer"] = zeros({7});
  EXPECT_EQ(refused(state),
            "Adam.load_state_dict: Expected state 'step', 'exp_avg' or 'exp_avg_sq' for "
            "parameter 1, but got 'momentum_buffer'");
  state = good;
  state[2].erase("exp_avg_sq");
  EXPECT_EQ(refused(state),
            "Adam.load_state_dict: Expected all of 'step', 'exp_avg' and 'exp_avg_sq' or none for "
            "parameter 2, but got only 'exp_avg', 'step'");
  state = good;
  state[0]["exp_avg"] = zeros({4, 5});
  EXPECT_EQ(refused(state),
            "Adam.load_state_dict: Expected 'exp_avg' of parameter 0 as float32 [7, 4] (the "
            "parameter's shape), but got float32 [4, 5]");
  state = good;
  state[3]["step"] = tensor({1.0f}, Shape{});
  EXPECT_EQ(refused(state),
            "Adam.load_state_dict: Expected 'step' of parameter 3 as an int64 scalar, but got "
            "float32 of shape []");
  state = good;
  state[3]["step"] = tensor(std::vector<int64_t>{0}, Shape{});
  EXPECT_EQ(refused(state), "Adam.load_state_dict: Expected 'step' of parameter 3 >= 1, but got 0");
  state = good;
  state[0]["exp_avg"] = Tensor();
  EXPECT_EQ(refused(state),
            "Adam.load_state_dict: Expected a defined tensor as 'exp_avg' of parameter 0, but got "
            "an undefined Tensor()");

  optim::SGD sgd(model->parameters(), 0.1, 0.9);
  optim::StateDict buffers(4);
  buffers[0]["momentum_buffer"] = tensor({1.0}, {1});
  EXPECT_EQ(error_of([&] { sgd.load_state_dict(buffers); }),
            "SGD.load_state_dict: Expected 'momentum_buffer' of parameter 0 as float32 [7, 4] "
            "(the parameter's shape), but got float32 [1]");
  buffers[0]["momentum_buffer"] = ones({7, 4});  // some parameters may have no buffer yet
  sgd.load_state_dict(buffers);
  EXPECT_EQ(sgd.state_dict()[0].at("momentum_buffer").to_vector<float>(),
            std::vector<float>(28, 1.0f));
  EXPECT_TRUE(sgd.state_dict()[1].empty());
}

TEST(OptimizerState, CheckpointKeepsTheStateBesideTheParameters) {
  const auto dir = scratch_dir();
  const std::string path = (dir / "m.safetensors").string();
  auto model = small_mlp(1);
  optim::Adam adam(model->parameters(), 0.01);
  train(*model, adam, 3);
  nn::save(*model, adam, path, {{"note", "kept"}});
  const nn::Safetensors file = nn::read_safetensors(path);
  EXPECT_EQ(file.metadata, (nn::Metadata{{"note", "kept"}, {"optimizer_state", "Adam"}}));
  std::vector<std::string> names;
  for (const auto& [name, t] : file.tensors) names.push_back(name);
  EXPECT_EQ(names.size(), 16u);
  for (const char* name : {"0.weight", "optimizer.0.weight.exp_avg", "optimizer.2.bias.exp_avg_sq",
                           "optimizer.2.weight.step"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  // Parameters alone still load from it, as `torchlet predict` does.
  auto plain = small_mlp(2);
  EXPECT_EQ(nn::load(*plain, path).at("note"), "kept");
  EXPECT_EQ(parameter_values(*plain), parameter_values(*model));
}

TEST(OptimizerState, CheckpointLoadRefusesStateThatDoesNotFitAndChangesNothing) {
  const auto dir = scratch_dir();
  const std::string path = (dir / "m.safetensors").string();
  auto saved = small_mlp(1);
  optim::SGD saved_sgd(saved->parameters(), 0.1, 0.9);
  train(*saved, saved_sgd, 2);

  auto model = small_mlp(2);
  optim::Adam adam(model->parameters(), 0.01);
  optim::SGD sgd(model->parameters(), 0.1, 0.9);
  const auto before = parameter_values(*model);
  const auto unchanged = [&] {
    EXPECT_EQ(parameter_values(*model), before);
    for (const optim::ParamState& s : sgd.state_dict()) EXPECT_TRUE(s.empty());
  };
  nn::save(*saved, path);  // weights only, as checkpoints before optimizer state were
  EXPECT_EQ(error_of([&] { nn::load(*model, sgd, path); }),
            path +
                ": Expected SGD's optimizer state, but the file holds none (it was saved without "
                "an optimizer)");
  unchanged();
  nn::save(*saved, saved_sgd, path);
  EXPECT_EQ(error_of([&] { nn::load(*model, adam, path); }),
            path + ": Expected Adam's optimizer state, but got SGD's");
  unchanged();

  nn::Safetensors file = nn::read_safetensors(path);
  file.tensors.emplace_back("optimizer.9.weight.momentum_buffer", zeros({2}));
  nn::write_safetensors(path, file.tensors, file.metadata);
  EXPECT_EQ(error_of([&] { nn::load(*model, sgd, path); }),
            path +
                ": Expected optimizer state named 'optimizer.<parameter>.<state>' for the "
                "optimizer's parameters, but got 'optimizer.9.weight.momentum_buffer'");
  unchanged();
  file.tensors.pop_back();
  for (auto& [name, t] : file.tensors)
    if (name == "optimizer.0.bias.momentum_buffer") t = zeros({3});  // of a [7] bias
  nn::write_safetensors(path, file.tensors, file.metadata);
  EXPECT_EQ(error_of([&] { nn::load(*model, sgd, path); }),
            path +
                ": SGD.load_state_dict: Expected 'momentum_buffer' of parameter 1 as float32 [7] "
                "(the parameter's shape), but got float32 [3]");
  unchanged();

  EXPECT_EQ(error_of([&] {
              nn::save(*saved, path, {{"optimizer_state", "SGD"}});
            }),
            "save: Expected metadata without the key 'optimizer_state' (it names the optimizer "
            "whose state the file holds), but got it");
  optim::SGD elsewhere(small_mlp(3)->parameters(), 0.1);
  EXPECT_EQ(error_of([&] { nn::save(*saved, elsewhere, path); }),
            "save: Expected the optimizer's parameters to be the module's, but its parameter 0 "
            "([7, 4]) is not one of them");
}

}  // namespace
}  // namespace torchlet
