// torchlet::compile: replays against the same steps run eagerly (losses at every step and the
// parameters after them: bit for bit where a replay runs the recorded kernels on the same data,
// to float rounding where an MLP's step runs as the fused kernel), for the course's MLP, nested
// modules, Sequential, a CNN, Dropout, BatchNorm (running statistics), SGD with momentum, Adam,
// AdamW, RMSprop and Adagrad; the refusals and their messages; recording again when the inputs,
// the lr or a parameter group's options change.
#include <memory>

#include "testing.h"

namespace torchlet {
namespace {

using testing::parameter_values;

// The course's model (examples/iris_mlp.cpp).
struct MLP : nn::Module {
  nn::Linear fc1{4, 10};
  nn::ReLU relu;
  nn::Linear fc2{10, 3};
  MLP() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  Tensor forward(const Tensor& x) override { return fc2(relu(fc1(x))); }
};

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

std::shared_ptr<nn::Module> cnn() {
  auto model = std::make_shared<nn::Sequential>();
  model->add<nn::Conv2d>(1, 4, 3);
  model->add<nn::ReLU>();
  model->add<nn::MaxPool2d>(2);
  model->add<nn::Flatten>();
  model->add<nn::Linear>(36, 3);
  return model;
}

Tensor features(int64_t rows, uint32_t seed) { return testing::random_tensor({rows, 4}, seed); }
Tensor images(int64_t n, uint32_t seed) { return testing::random_tensor({n, 1, 8, 8}, seed); }
Tensor labels(int64_t n, int64_t offset = 0) {
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
void expect_same(const std::vector<float>& got, const std::vector<float>& want, bool fused) {
  if (fused)
    EXPECT_TRUE(testing::all_close(got, want, 1e-5, 1e-4));
  else
    EXPECT_EQ(got, want);
}
void expect_same(const Trained& got, const Trained& want) {
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

std::unique_ptr<optim::Optimizer> plain_sgd(std::vector<Tensor> params) {
  return std::make_unique<optim::SGD>(std::move(params), 0.05);
}

// `steps` training steps on (X, y), eagerly or compiled, from the same seeds (the model's
// initial weights, then the dropout stream).
Trained train(const MakeModel& make, const MakeOptimizer& make_optimizer, const Tensor& X,
              const Tensor& y, int steps, bool compiled) {
  manual_seed(7);
  std::shared_ptr<nn::Module> model = make();
  std::unique_ptr<optim::Optimizer> optimizer = make_optimizer(model->parameters());
  nn::CrossEntropyLoss criterion;
  auto step = [&] {
    optimizer->zero_grad();
    Tensor loss = criterion((*model)(X), y);
    loss.backward();
    optimizer->step();
    return loss;
  };
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

void expect_replay_matches_eager(Fused fused, const MakeModel& make,
                                 const MakeOptimizer& make_optimizer, const Tensor& X,
                                 const Tensor& y, int steps = 12) {
  const Trained eager = train(make, make_optimizer, X, y, steps, false);
  const Trained replayed = train(make, make_optimizer, X, y, steps, true);
  EXPECT_EQ(replayed.fused, fused == Fused::Yes);
  expect_same(replayed, eager);
  EXPECT_NE(eager.losses.front(), eager.losses.back());  // it trained
}

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
    auto step = [&] {
      optimizer.zero_grad();
      Tensor loss = nn::CrossEntropyLoss()(model(X), y);
      loss.backward();
      optimizer.step();
      return loss;
    };
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

using Batches = std::vector<std::pair<Tensor, Tensor>>;

// The course's MLP from manual_seed(seed), one step on each batch in turn (compiled, or eager)
// with the optimizer make(parameters) gives; *recordings: the compiled step's count.
template <typename MakeOptimizer>
Trained train_on(const Batches& batches, uint64_t seed, MakeOptimizer make, bool compiled,
                 int* recordings) {
  manual_seed(seed);
  MLP model;
  auto optimizer = make(model.parameters());
  auto step = [&](const Tensor& X, const Tensor& y) {
    optimizer->zero_grad();
    Tensor loss = nn::CrossEntropyLoss()(model(X), y);
    loss.backward();
    optimizer->step();
    return loss;
  };
  auto compiled_step = compile(step);
  std::vector<float> losses;
  for (const auto& [X, y] : batches)
    losses.push_back((compiled ? compiled_step(X, y) : step(X, y)).item());
  if (recordings) *recordings = compiled_step.recordings();
  return Trained{losses, parameter_values(model), compiled && compiled_step.fused(), {}};
}

// The step takes its data as arguments: new values of the same shape replay; a new shape
// warms up and records; a shape seen before replays its own recording again (as a loop of
// mini-batches with a smaller last one needs); all match the eager steps on the same batches.
TEST(Compile, ArgumentsReplayAndANewShapeRecordsAgain) {
  const Batches batches = {{features(10, 10), labels(10)},    {features(10, 11), labels(10, 1)},
                           {features(10, 12), labels(10, 2)}, {features(6, 13), labels(6)},
                           {features(6, 14), labels(6, 1)},   {features(6, 15), labels(6, 2)},
                           {features(10, 16), labels(10)},    {features(10, 17), labels(10, 1)}};
  const auto sgd = [](std::vector<Tensor> p) {
    return std::make_unique<optim::SGD>(std::move(p), 0.1, 0.5);
  };
  int recordings = 0;
  expect_same(train_on(batches, 3, sgd, true, &recordings),
              train_on(batches, 3, sgd, false, nullptr));
  EXPECT_EQ(recordings, 2);  // on calls 2 and 5 (each after one eager call on that shape)
}

// Mini-batches of 10, 10 and 6 rows, epoch after epoch, with Adam: each batch size keeps its
// own recording (two in all); five sizes in turn are more than the four kept, so each is
// forgotten before its second call and every step runs eagerly. Both match the eager steps.
TEST(Compile, AlternatingShapesKeepTheirRecordings) {
  const auto epochs_of = [](const std::vector<int64_t>& sizes) {
    Batches batches;
    for (int epoch = 0; epoch < 4; ++epoch)
      for (std::size_t b = 0; b < sizes.size(); ++b)
        batches.emplace_back(features(sizes[b], static_cast<uint32_t>(30 + epoch * 8 + b)),
                             labels(sizes[b], epoch + static_cast<int>(b)));
    return batches;
  };
  const auto adam = [](std::vector<Tensor> p) {
    return std::make_unique<optim::Adam>(std::move(p), 0.01);
  };
  int recordings = 0;
  const Batches three = epochs_of({10, 10, 6}), five = epochs_of({2, 3, 4, 5, 6});
  expect_same(train_on(three, 4, adam, true, &recordings),
              train_on(three, 4, adam, false, nullptr));
  EXPECT_EQ(recordings, 2);
  expect_same(train_on(five, 4, adam, true, &recordings), train_on(five, 4, adam, false, nullptr));
  EXPECT_EQ(recordings, 0);
}

// A changed lr is not frozen: the next call records again with it.
TEST(Compile, AChangedLearningRateRecordsAgain) {
  auto run = [](bool compiled, int* recordings) {
    manual_seed(4);
    MLP model;
    optim::SGD optimizer(model.parameters(), 0.1);
    const Tensor X = features(12, 18), y = labels(12);
    auto step = [&] {
      optimizer.zero_grad();
      Tensor loss = nn::CrossEntropyLoss()(model(X), y);
      loss.backward();
      optimizer.step();
      return loss;
    };
    auto compiled_step = compile(step);
    std::vector<float> losses;
    for (int i = 0; i < 8; ++i) {
      if (i == 4) optimizer.set_lr(0.02);
      losses.push_back((compiled ? compiled_step() : step()).item());
    }
    if (recordings) *recordings = compiled_step.recordings();
    return Trained{losses, parameter_values(model), compiled && compiled_step.fused(), {}};
  };
  int recordings = 0;
  expect_same(run(true, &recordings), run(false, nullptr));
  EXPECT_EQ(recordings, 2);
}

// zero_grad(false) zeroes the gradients in place and backward() then makes grad + g: the old
// gradient's block is freed while recording but read by every replay, so the recording keeps
// it, also when it came from an earlier recording (the lr change records again). Tensors made
// after the recording must not get it (their values would be overwritten).
TEST(Compile, BlocksFreedWhileRecordingAreNotHandedOut) {
  auto run = [](bool compiled) {
    manual_seed(5);
    MLP model;
    optim::SGD optimizer(model.parameters(), 0.1);
    const Tensor X = features(12, 19), y = labels(12);
    auto step = [&] {
      optimizer.zero_grad(false);
      Tensor loss = nn::CrossEntropyLoss()(model(X), y);
      loss.backward();
      optimizer.step();
      return loss;
    };
    auto compiled_step = compile(step);
    std::vector<Tensor> bystanders;
    std::vector<float> losses;
    for (int i = 0; i < 8; ++i) {
      if (i == 4) optimizer.set_lr(0.05);
      losses.push_back((compiled ? compiled_step() : step()).item());
      for (const Tensor& p : model.parameters()) bystanders.push_back(full(p.shape(), 42.0));
    }
    if (compiled) {
      EXPECT_EQ(compiled_step.recordings(), 2);
    }
    for (const Tensor& b : bystanders)
      for (float v : b.to_vector<float>()) EXPECT_EQ(v, 42.0f);
    return Trained{losses, parameter_values(model), compiled && compiled_step.fused(), {}};
  };
  expect_same(run(true), run(false));
}

// What cannot be recorded is refused by the recording call, naming the op; the library works
// normally afterwards (eager ops run, the next compiled step records).
TEST(Compile, HostReadsAndRandomTensorsInsideTheStepAreRefused) {
  MLP model;
  optim::SGD optimizer(model.parameters(), 0.1);
  const Tensor X = features(6, 20), y = labels(6);
  float seen = 0.0f;
  auto reads = compile([&] {
    optimizer.zero_grad();
    Tensor loss = nn::CrossEntropyLoss()(model(X), y);
    seen = loss.item();
    loss.backward();
    optimizer.step();
    return loss;
  });
  reads();  // eager: fine
  EXPECT_EQ(testing::error_of([&] { reads(); }),
            "compile: Expected a step that only runs device kernels, but got item() inside it (a "
            "read to the host, whose value would be frozen); call it outside the step");
  auto noise = compile([&] { return (model(X) + randn({6, 3})).sum(); });
  noise();
  EXPECT_EQ(testing::error_of([&] { noise(); }),
            "compile: Expected a step that only runs device kernels, but got a random tensor "
            "(rand, uniform, randn) inside it (its values are drawn on the host and would be "
            "frozen); call it outside the step");
  EXPECT_EQ((ones({3}) * 2.0f).sum().item(), 6.0f);
  expect_replay_matches_eager(
      Fused::Yes, [] { return std::make_shared<MLP>(); }, plain_sgd, X, y, 4);
  EXPECT_NE(seen, 0.0f);
}

TEST(Compile, UndefinedArgumentsAreRefused) {
  auto step = compile([](const Tensor& x) { return x * 2.0f; });
  EXPECT_EQ(testing::error_of([&] { step(Tensor()); }),
            "compile: Expected defined tensors as the step's arguments, but argument 0 is an "
            "undefined Tensor()");
}

}  // namespace
}  // namespace torchlet
