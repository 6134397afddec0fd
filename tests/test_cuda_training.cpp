// Training on the GPU against the CPU: the fused MLP step (one block, and the cuBLASLt path for
// models too large for it), replayed SGD steps, and CUDA graphs replaying a captured step with
// the same losses as eager execution. Suites start with "Cuda" (ctest label `cuda`).
#include <gtest/gtest.h>

#include "testing.h"
#include "torchlet/torchlet.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::kGpu;

std::unique_ptr<nn::Sequential> make_mlp(const std::vector<int64_t>& widths, uint64_t seed) {
  manual_seed(seed);
  auto model = std::make_unique<nn::Sequential>();
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
    if (i) model->add<nn::ReLU>();
    model->add<nn::Linear>(widths[i], widths[i + 1]);
  }
  return model;
}

struct Data {
  Tensor X, y;
};

Data make_data(int64_t rows, int64_t features, int64_t classes) {
  std::vector<int64_t> labels(static_cast<std::size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) labels[i] = (i * 5 + 2) % classes;
  return {testing::random_tensor({rows, features}, 4), tensor(labels)};
}

// The loss and gradients of one fused step (all rows, then every other row backwards).
std::vector<std::vector<float>> fused_step(const std::vector<int64_t>& widths, int64_t rows,
                                           const Device& device) {
  auto model = make_mlp(widths, 3);
  model->to(device);
  const Data d = make_data(rows, widths.front(), widths.back());
  std::vector<int64_t> pick;
  for (int64_t i = rows - 1; i >= 0; i -= 2) pick.push_back(i);
  std::vector<std::vector<float>> out;
  nn::FusedMlp fused(*model);
  for (const Tensor& batch : {Tensor(), tensor(pick)}) {
    const Tensor loss = fused.loss_and_grads(d.X.to(device), d.y.to(device),
                                             batch.defined() ? batch.to(device) : batch);
    out.push_back({loss.item()});
    for (const Tensor& p : model->parameters()) out.push_back(p.grad().to_vector<float>());
  }
  return out;
}

TEST(CudaFusedMlp, OneBlockAndComposedStepsMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  struct Case {
    std::vector<int64_t> widths;
    int64_t rows;
  };
  // The course's model (one block), odd sizes, and models too large for shared memory (the
  // cuBLASLt path): 2000 rows of width 512 need 8 MB.
  for (const Case& c : {Case{{4, 10, 3}, 120}, Case{{5, 16, 8, 2}, 7}, Case{{3, 33, 7}, 129},
                        Case{{64, 512, 10}, 2000}, Case{{784, 256, 256, 10}, 300}}) {
    SCOPED_TRACE("widths " + std::to_string(c.widths.size()) + " layers, rows " +
                 std::to_string(c.rows) + ", input width " + std::to_string(c.widths.front()));
    const auto cpu = fused_step(c.widths, c.rows, kCPU);
    const auto gpu = fused_step(c.widths, c.rows, kGpu);
    ASSERT_EQ(cpu.size(), gpu.size());
    for (std::size_t i = 0; i < cpu.size(); ++i)
      EXPECT_TRUE(all_close(gpu[i], cpu[i], 1e-5, 1e-4)) << "value set " << i;
  }
}

// `steps` SGD steps replayed inside the backend (one launch on the GPU), then the weights.
std::vector<float> replayed_sgd(const std::vector<int64_t>& widths, const Device& device) {
  auto model = make_mlp(widths, 2);
  model->to(device);
  const data::Dataset iris = data::load_iris();
  optim::SGD sgd(model->parameters(), 0.1, 0.0, 0.01);
  nn::FusedMlp fused(*model);
  std::vector<float> out =
      fused.train_sgd(iris.X.to(device), iris.y.to(device), sgd, 200).to_vector<float>();
  for (const Tensor& p : model->parameters()) {
    const std::vector<float> v = p.to_vector<float>();
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

TEST(CudaFusedMlp, ReplayedSgdStepsMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  EXPECT_TRUE(
      all_close(replayed_sgd({4, 10, 3}, kGpu), replayed_sgd({4, 10, 3}, kCPU), 1e-5, 1e-4));
  EXPECT_TRUE(
      all_close(replayed_sgd({4, 600, 3}, kGpu), replayed_sgd({4, 600, 3}, kCPU), 1e-5, 1e-4));
}

// The course's loop, eagerly or as a captured graph, with the loss kept on the device.
std::vector<float> course_losses(bool graph, const char* optimizer) {
  auto model = make_mlp({4, 10, 3}, 7);
  model->to(kGpu);
  const data::Dataset iris = data::load_iris();
  const Tensor X = iris.X.to(kGpu), y = iris.y.to(kGpu);
  std::unique_ptr<optim::Optimizer> opt;
  if (std::string(optimizer) == "sgd_nesterov")
    opt = std::make_unique<optim::SGD>(model->parameters(), 0.05, 0.9, 0.01, true);
  else
    opt = std::make_unique<optim::SGD>(model->parameters(), 0.05, 0.9);
  nn::CrossEntropyLoss criterion;
  Tensor loss;
  auto step = [&] {
    opt->zero_grad();
    loss = criterion((*model)(X), y);
    loss.backward();
    opt->step();
  };
  std::vector<float> losses;
  if (graph) {
    cuda::Graph g = cuda::capture_step(kGpu, step);  // runs step 1 eagerly, captures step 2
    losses.push_back(0.0f);                          // step 1's loss is not kept: skip it below
    for (int i = 1; i < 50; ++i) {
      g.replay();
      losses.push_back(loss.item());
    }
  } else {
    for (int i = 0; i < 50; ++i) {
      step();
      losses.push_back(loss.item());
    }
  }
  losses.erase(losses.begin());
  for (const Tensor& p : model->parameters()) {
    const std::vector<float> v = p.to_vector<float>();
    losses.insert(losses.end(), v.begin(), v.end());
  }
  return losses;
}

TEST(CudaGraph, ReplayGivesTheSameLossesAsEagerExecution) {
  SKIP_WITHOUT_GPU();
  for (const char* optimizer : {"sgd_momentum", "sgd_nesterov"}) {
    SCOPED_TRACE(optimizer);
    EXPECT_TRUE(
        all_close(course_losses(true, optimizer), course_losses(false, optimizer), 1e-6, 1e-5));
  }
}

TEST(CudaGraph, ASynchronisingCallInsideACaptureIsAnError) {
  SKIP_WITHOUT_GPU();
  const Tensor x = ones({3}, kGpu);
  const std::string message =
      testing::error_of([&] { cuda::capture_step(kGpu, [&] { (x * 2.0f).sum().item(); }); });
  EXPECT_NE(message.find("while a CUDA graph is captured"), std::string::npos) << message;
  EXPECT_EQ((x * 2.0f).sum().item(), 6.0f);  // the device still works after the failed capture
}

// Adam's step count lives on the device and its kernel advances it, so every replay of a
// captured Adam step advances the count and the bias corrections, as an eager step does.
TEST(CudaGraph, AdamReplaysAdvanceItsStepCount) {
  SKIP_WITHOUT_GPU();
  auto run = [](bool replay) {
    manual_seed(1);
    nn::Linear fc(4, 3);
    fc.to(kGpu);
    optim::Adam adam(fc.parameters(), 0.01);
    const Tensor x = ones({2, 4}, kGpu);
    auto step = [&] {
      adam.zero_grad();
      fc(x).sum().backward();
      adam.step();
    };
    if (replay) {
      cuda::Graph graph = cuda::capture_step(kGpu, step);  // one eager step, one captured
      for (int i = 0; i < 5; ++i) graph.replay();
    } else {
      for (int i = 0; i < 6; ++i) step();
    }
    EXPECT_EQ(adam.state_dict()[0].at("step").item<int64_t>(), 6);
    return fc.weight.to_vector<float>();
  };
  EXPECT_TRUE(testing::all_close(run(true), run(false)));
}

TEST(CudaGraph, CapturingWithoutCudaIsAnErrorThatSaysSo) {
  if (cuda::is_available()) GTEST_SKIP() << "a GPU is present";
  cuda::Graph graph;
  const std::string message = testing::error_of([&] { graph.capture_begin(Device("cuda:0")); });
  EXPECT_NE(message.find("Expected"), std::string::npos) << message;
  EXPECT_NE(message.find("is_available() is false"), std::string::npos) << message;
  EXPECT_FALSE(graph.captured());
}

}  // namespace
}  // namespace torchlet
