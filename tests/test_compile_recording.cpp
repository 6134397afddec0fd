// torchlet::compile recording again and refusing: a new shape or lr records again, alternating
// shapes keep their recordings, blocks freed while recording are never handed to other tensors,
// and host reads, random tensors and undefined arguments are refused with their messages.
#include <memory>
#include <utility>
#include <vector>

#include "compile_testing.h"

namespace torchlet {
namespace {

using namespace compile_testing;

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
    auto step = cross_entropy_step(model, optimizer, X, y);
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
    auto step = cross_entropy_step(model, optimizer, X, y, false);
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
