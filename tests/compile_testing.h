// What the torchlet::compile tests share (test_compile.cpp, test_compile_recording.cpp): the
// models, data and optimizers they train, and a run of steps eagerly or compiled to compare.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "testing.h"

namespace torchlet::compile_testing {

using testing::parameter_values;

// The course's model (examples/iris_mlp.cpp).
using MLP = testing::CourseMlp;

// A module holding a module that holds a Sequential, with Dropout in between.
struct Block : nn::Module {
  nn::Sequential body{std::make_shared<nn::Linear>(4, 6), std::make_shared<nn::ReLU>()};
  Block() { register_module("body", body); }
  Tensor forward(const Tensor& x) override { return body(x); }
};
struct Nested : nn::Module {
  Block block;
  nn::Dropout dropout{0.3};
  nn::Linear head{6, 3};
  explicit Nested(bool with_dropout) : with_dropout_(with_dropout) {
    register_module("block", block);
    register_module("dropout", dropout);
    register_module("head", head);
  }
  Tensor forward(const Tensor& x) override {
    const Tensor h = block(x);
    return head(with_dropout_ ? dropout(h) : h);
  }
  bool with_dropout_;
};

inline std::shared_ptr<nn::Module> cnn() {
  auto model = std::make_shared<nn::Sequential>();
  model->add<nn::Conv2d>(1, 4, 3);
  model->add<nn::ReLU>();
  model->add<nn::MaxPool2d>(2);
  model->add<nn::Flatten>();
  model->add<nn::Linear>(36, 3);
  return model;
}

inline Tensor features(int64_t rows, uint32_t seed) {
  return testing::random_tensor({rows, 4}, seed);
}
inline Tensor images(int64_t n, uint32_t seed) {
  return testing::random_tensor({n, 1, 8, 8}, seed);
}
inline Tensor labels(int64_t n, int64_t offset = 0) {
  std::vector<int64_t> y;
  for (int64_t i = 0; i < n; ++i) y.push_back((i * 7 + offset) % 3);
  return tensor(y);
}

struct Trained {
  std::vector<float> losses;
  std::vector<std::vector<float>> params;
  bool fused = false;
  std::vector<std::vector<float>> buffers;  // BatchNorm's running statistics and batch count
};

// Bit for bit, or (fused kernels) to float rounding.
inline void expect_same(const std::vector<float>& got, const std::vector<float>& want, bool fused) {
  if (fused)
    EXPECT_TRUE(testing::all_close(got, want, 1e-5, 1e-4));
  else
    EXPECT_EQ(got, want);
}
inline void expect_same(const Trained& got, const Trained& want) {
  expect_same(got.losses, want.losses, got.fused);
  ASSERT_EQ(got.params.size(), want.params.size());
  for (std::size_t i = 0; i < got.params.size(); ++i)
    expect_same(got.params[i], want.params[i], got.fused);
  ASSERT_EQ(got.buffers.size(), want.buffers.size());
  for (std::size_t i = 0; i < got.buffers.size(); ++i)
    expect_same(got.buffers[i], want.buffers[i], got.fused);
}

enum class Fused { No, Yes };

using MakeModel = std::function<std::shared_ptr<nn::Module>()>;
using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;

inline std::unique_ptr<optim::Optimizer> plain_sgd(std::vector<Tensor> params) {
  return std::make_unique<optim::SGD>(std::move(params), 0.05);
}

// One training step of `model` on (X, y): zero_grad(set_to_none), cross-entropy of the forward,
// backward and the optimizer's step; returns the loss.
template <typename Model>
auto cross_entropy_step(Model& model, optim::Optimizer& optimizer, const Tensor& X, const Tensor& y,
                        bool set_to_none = true) {
  return [&model, &optimizer, X, y, set_to_none] {
    optimizer.zero_grad(set_to_none);
    Tensor loss = nn::CrossEntropyLoss()(model(X), y);
    loss.backward();
    optimizer.step();
    return loss;
  };
}

// `steps` training steps on (X, y), eagerly or compiled, from the same seeds (the model's
// initial weights, then the dropout stream).
inline Trained train(const MakeModel& make, const MakeOptimizer& make_optimizer, const Tensor& X,
                     const Tensor& y, int steps, bool compiled) {
  manual_seed(7);
  std::shared_ptr<nn::Module> model = make();
  std::unique_ptr<optim::Optimizer> optimizer = make_optimizer(model->parameters());
  auto step = cross_entropy_step(*model, *optimizer, X, y);
  manual_seed(11);
  Trained run;
  auto compiled_step = compile(step);
  for (int i = 0; i < steps; ++i)
    run.losses.push_back((compiled ? compiled_step() : step()).item());
  if (compiled) {
    EXPECT_EQ(compiled_step.recordings(), 1);
    EXPECT_GT(compiled_step.recorded_kernels(), 0u);
    run.fused = compiled_step.fused();
  }
  run.params = parameter_values(*model);
  for (const Tensor& b : model->buffers())
    run.buffers.push_back(b.to(DType::Float32).to_vector<float>());
  return run;
}

inline void expect_replay_matches_eager(Fused fused, const MakeModel& make,
                                        const MakeOptimizer& make_optimizer, const Tensor& X,
                                        const Tensor& y, int steps = 12) {
  const Trained eager = train(make, make_optimizer, X, y, steps, false);
  const Trained replayed = train(make, make_optimizer, X, y, steps, true);
  EXPECT_EQ(replayed.fused, fused == Fused::Yes);
  expect_same(replayed, eager);
  EXPECT_NE(eager.losses.front(), eager.losses.back());  // it trained
}

}  // namespace torchlet::compile_testing
