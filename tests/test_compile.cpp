// torchlet::compile: replays against the same steps run eagerly (losses at every step and the
// parameters after them: bit for bit where a replay runs the recorded kernels on the same data,
// to float rounding where an MLP's step runs as the fused kernel), for the course's MLP, nested
// modules, Sequential, a CNN, Dropout, BatchNorm (running statistics), SGD with momentum, Adam,
// AdamW, RMSprop and Adagrad, parameter groups under a schedule; an MLP step with other work
// left unfused; each call's own loss. Recording again and the refusals: test_compile_recording.cpp.
#include <memory>

#include "compile_testing.h"

namespace torchlet {
namespace {

using namespace compile_testing;

TEST(Compile, CourseMlpReplaysTheEagerSteps) {
  expect_replay_matches_eager(
      Fused::Yes, [] { return std::make_shared<MLP>(); }, plain_sgd, features(30, 1), labels(30));
}

TEST(Compile, SequentialReplaysTheEagerSteps) {
  expect_replay_matches_eager(
      Fused::Yes, [] { return testing::small_mlp(3); }, plain_sgd, features(17, 2), labels(17));
}

TEST(Compile, NestedModulesReplayTheEagerSteps) {
  expect_replay_matches_eager(
      Fused::Yes, [] { return std::make_shared<Nested>(false); }, plain_sgd, features(9, 3),
      labels(9));
}

TEST(Compile, CnnReplaysTheEagerSteps) {
  expect_replay_matches_eager(Fused::No, cnn, plain_sgd, images(5, 4), labels(5), 6);
}

// BatchNorm's running mean and variance and its batch count are updated by every replay, as
// by every eager step (a replay that skipped them would leave the buffers at their first step).
TEST(Compile, BatchNormUpdatesItsRunningStatisticsOnEveryReplay) {
  const MakeModel make = [] {
    auto model = std::make_shared<nn::Sequential>();
    model->add<nn::Linear>(4, 6);
    model->add<nn::BatchNorm1d>(6);
    model->add<nn::ReLU>();
    model->add<nn::Linear>(6, 3);
    return model;
  };
  expect_replay_matches_eager(Fused::No, make, plain_sgd, features(16, 9), labels(16));
  const Trained replayed = train(make, plain_sgd, features(16, 9), labels(16), 12, true);
  ASSERT_EQ(replayed.buffers.size(), 3u);
  EXPECT_EQ(replayed.buffers[2], std::vector<float>{12.0f});  // num_batches_tracked
}

TEST(Compile, BatchNorm2dInACnnReplaysTheEagerSteps) {
  const MakeModel make = [] {
    auto model = std::make_shared<nn::Sequential>();
    model->add<nn::Conv2d>(1, 4, 3);
    model->add<nn::BatchNorm2d>(4);
    model->add<nn::ReLU>();
    model->add<nn::MaxPool2d>(2);
    model->add<nn::Flatten>();
    model->add<nn::Linear>(36, 3);
    return model;
  };
  expect_replay_matches_eager(Fused::No, make, plain_sgd, images(5, 10), labels(5), 6);
}

// Each replay draws the next dropout seed, as the eager call does: the masks match step for
// step (a frozen seed would give the same mask every step and different losses).
TEST(Compile, DropoutDrawsANewMaskOnEveryReplay) {
  expect_replay_matches_eager(
      Fused::No, [] { return std::make_shared<Nested>(true); }, plain_sgd, features(20, 5),
      labels(20));
}

TEST(Compile, SgdWithMomentumReplaysTheEagerSteps) {
  expect_replay_matches_eager(
      Fused::Yes, [] { return std::make_shared<MLP>(); },
      [](std::vector<Tensor> p) {
        return std::make_unique<optim::SGD>(std::move(p), 0.05, 0.9, 1e-3);
      },
      features(30, 6), labels(30));
  expect_replay_matches_eager(
      Fused::Yes, [] { return std::make_shared<MLP>(); },
      [](std::vector<Tensor> p) {
        return std::make_unique<optim::SGD>(std::move(p), 0.05, 0.9, 0.0, true);
      },
      features(30, 6), labels(30));
}

// Adam's step count lives on the device and advances on every replay (a frozen count would
// freeze the bias corrections).
TEST(Compile, AdamAdvancesItsStepCountOnEveryReplay) {
  const MakeOptimizer adam = [](std::vector<Tensor> p) {
    return std::make_unique<optim::Adam>(std::move(p), 0.01);
  };
  expect_replay_matches_eager(
      Fused::No, [] { return std::make_shared<MLP>(); }, adam, features(30, 7), labels(30));
  MLP model;
  optim::Adam optimizer(model.parameters(), 0.01);
  const Tensor X = features(8, 8), y = labels(8);
  auto step = compile([&] {
    optimizer.zero_grad();
    Tensor loss = nn::CrossEntropyLoss()(model(X), y);
    loss.backward();
    optimizer.step();
    return loss;
  });
  for (int i = 0; i < 5; ++i) step();
  EXPECT_EQ(optimizer.state_dict()[0].at("step").item<int64_t>(), 5);
}

// AdamW, RMSprop (momentum, centered) and Adagrad keep all their state on the device, Adagrad's
// step count too: replays repeat the eager steps.
TEST(Compile, AdamWRmspropAndAdagradReplayTheEagerSteps) {
  const MakeOptimizer kinds[] = {
      [](std::vector<Tensor> p) {
        return std::make_unique<optim::AdamW>(std::move(p), 0.01, std::pair{0.9, 0.999}, 1e-8, 0.1);
      },
      [](std::vector<Tensor> p) {
        return std::make_unique<optim::RMSprop>(std::move(p), 0.01, 0.9, 1e-8, 0.01, 0.9, true);
      },
      [](std::vector<Tensor> p) {
        return std::make_unique<optim::Adagrad>(std::move(p), 0.1, 0.01, 0.0, 0.1);
      }};
  for (const MakeOptimizer& make : kinds)
    expect_replay_matches_eager(
        Fused::No, [] { return std::make_shared<MLP>(); }, make, features(30, 9), labels(30));
}

// A scheduler changing each group's lr and momentum every step (OneCycleLR over two groups of
// RMSprop) records again on each change, so the replays follow eager step for step.
TEST(Compile, ParamGroupsUnderAScheduleReplayTheEagerSteps) {
  auto run = [](bool compiled) {
    manual_seed(8);
    MLP model;
    optim::RMSprop optimizer(model.fc1.parameters(), 0.01, 0.99, 1e-8, 0.0, 0.5);
    optim::ParamGroup head = optimizer.defaults();
    head.params = model.fc2.parameters();
    head.lr = 0.002;
    optimizer.add_param_group(head);
    optim::OneCycleLR schedule(optimizer, {0.05, 0.01}, 10);
    const Tensor X = features(12, 22), y = labels(12);
    auto step = cross_entropy_step(model, optimizer, X, y);
    auto compiled_step = compile(step);
    std::vector<float> losses;
    for (int i = 0; i < 8; ++i) {
      losses.push_back((compiled ? compiled_step() : step()).item());
      schedule.step();
    }
    return Trained{losses, parameter_values(model), false, {}};
  };
  expect_same(run(true), run(false));
}

// A step that is not exactly the MLP pattern (here the loss is scaled) replays kernel by
// kernel, bit for bit.
TEST(Compile, AnMlpStepWithOtherWorkIsNotFused) {
  auto run = [](bool compiled) {
    manual_seed(6);
    MLP model;
    optim::SGD optimizer(model.parameters(), 0.1);
    const Tensor X = features(12, 21), y = labels(12);
    auto step = [&] {
      optimizer.zero_grad();
      Tensor loss = nn::CrossEntropyLoss()(model(X), y) * 0.5f;
      loss.backward();
      optimizer.step();
      return loss;
    };
    auto compiled_step = compile(step);
    std::vector<float> losses;
    for (int i = 0; i < 6; ++i) losses.push_back((compiled ? compiled_step() : step()).item());
    EXPECT_FALSE(compiled_step.fused());
    return Trained{losses, parameter_values(model), false, {}};
  };
  expect_same(run(true), run(false));
}

// Each call returns its own tensor: losses kept and read later are each call's loss.
TEST(Compile, EachCallReturnsItsOwnLoss) {
  MLP model;
  optim::SGD optimizer(model.parameters(), 0.1);
  const Tensor X = features(12, 9), y = labels(12);
  auto step = compile([&] {
    optimizer.zero_grad();
    Tensor loss = nn::CrossEntropyLoss()(model(X), y);
    loss.backward();
    optimizer.step();
    return loss;
  });
  std::vector<Tensor> kept;
  std::vector<float> read_at_once;
  for (int i = 0; i < 6; ++i) {
    kept.push_back(step());
    read_at_once.push_back(kept.back().item());
  }
  for (int i = 0; i < 6; ++i) EXPECT_EQ(kept[i].item(), read_at_once[i]) << "call " << i;
  EXPECT_NE(read_at_once[2], read_at_once[5]);
}

}  // namespace
}  // namespace torchlet
