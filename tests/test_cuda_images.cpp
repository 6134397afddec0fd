// The CUDA image ops against the CPU backend (the reference), through the public API: conv2d,
// max_pool2d, dropout and flatten, forward and backward (input, weight and bias gradients), on
// awkward shapes (odd sizes, non-square kernels, strides 1 and 2, padding, overlapping pooling
// windows), and a small CNN's training step. Inputs are made on the CPU and copied with .to().
// Suites start with "Cuda", so ctest labels them `cuda`; without a GPU they report as skipped.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "testing.h"
#include "torchlet/torchlet.h"

namespace torchlet {
namespace {

using namespace testing;

struct Case {
  std::string name;
  std::vector<Tensor> inputs;  // CPU tensors; every one gets a gradient
  std::function<Tensor(const std::vector<Tensor>&)> f;
};

// f's output and input gradients on `device`, from fresh leaf copies of the CPU inputs.
OutputAndGrads run(const Case& c, const Device& device) {
  std::vector<Tensor> inputs;
  for (const Tensor& x : c.inputs) {
    Tensor d = x.clone().to(device);  // a fresh leaf, even on the CPU (to() would share x)
    d.set_requires_grad(true);
    inputs.push_back(d);
  }
  return output_and_grads(c.f, inputs, c.name);
}

// Compares both devices: within (atol, rtol), or exactly when both are 0.
void expect_match(const std::vector<Case>& cases, double atol, double rtol) {
  for (const Case& c : cases) {
    const OutputAndGrads cpu = run(c, kCPU), gpu = run(c, kGpu);
    EXPECT_TRUE(all_close(gpu.out, cpu.out, atol, rtol)) << c.name << ": forward";
    ASSERT_EQ(gpu.grads.size(), cpu.grads.size()) << c.name;
    for (std::size_t k = 0; k < cpu.grads.size(); ++k) {
      EXPECT_FALSE(cpu.grads[k].empty()) << c.name << ": no gradient for input " << k;
      EXPECT_TRUE(all_close(gpu.grads[k], cpu.grads[k], atol, rtol))
          << c.name << ": gradient of input " << k;
    }
  }
}

TEST(CudaImages, Conv2dForwardAndBackwardMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const Tensor x = random_tensor({3, 2, 9, 11}, 1);
  const Tensor w33 = random_tensor({5, 2, 3, 3}, 2), b = random_tensor({5}, 3);
  const Tensor w23 = random_tensor({5, 2, 2, 3}, 4), w51 = random_tensor({5, 2, 5, 1}, 5);
  const std::vector<Case> cases = {
      {"3x3, stride 1, padding 0", {x, w33, b}, [](auto& t) { return conv2d(t[0], t[1], t[2]); }},
      {"3x3, stride 2, padding 1",
       {x, w33, b},
       [](auto& t) { return conv2d(t[0], t[1], t[2], 2, 1); }},
      {"2x3, stride (1, 2), padding (1, 1)",
       {x, w23, b},
       [](auto& t) { return conv2d(t[0], t[1], t[2], Size2(1, 2), 1); }},
      {"5x1, stride (2, 1), padding (2, 0)",
       {x, w51, b},
       [](auto& t) { return conv2d(t[0], t[1], t[2], Size2(2, 1), Size2(2, 0)); }},
      {"3x3 without bias, stride 2", {x, w33}, [](auto& t) { return conv2d(t[0], t[1], {}, 2); }},
      {"1x1 on one image",
       {random_tensor({1, 2, 4, 3}, 6), random_tensor({5, 2, 1, 1}, 7), b},
       [](auto& t) { return conv2d(t[0], t[1], t[2]); }},
      {"a kernel as large as the image",
       {random_tensor({3, 2, 3, 3}, 8), w33, b},
       [](auto& t) { return conv2d(t[0], t[1], t[2]); }},
  };
  expect_match(cases, 1e-5, 1e-4);
}

TEST(CudaImages, MaxPool2dForwardAndBackwardMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const Tensor x = random_tensor({3, 5, 9, 10}, 11);
  // Values in {0, 1, 2}: many ties, where the first maximum must win on both devices.
  std::vector<float> steps = random_values(3 * 2 * 7 * 7, 12, 0.0f, 3.0f);
  for (float& v : steps) v = std::floor(v);
  const Tensor ties = tensor(steps, {3, 2, 7, 7});
  // All negative: the zeros of the padding must never win.
  const Tensor negative = random_tensor({3, 2, 7, 8}, 13) - 2.0f;
  const std::vector<Case> cases = {
      {"2x2 (stride 2)", {x}, [](auto& t) { return max_pool2d(t[0], 2); }},
      {"3x3 stride 2, overlapping", {x}, [](auto& t) { return max_pool2d(t[0], 3, 2); }},
      {"3x3 stride 1 padding 1", {x}, [](auto& t) { return max_pool2d(t[0], 3, 1, 1); }},
      {"3x2 stride (2, 1) padding (1, 0)",
       {x},
       [](auto& t) { return max_pool2d(t[0], Size2(3, 2), Size2(2, 1), Size2(1, 0)); }},
      {"ties, 3x3 stride 2", {ties}, [](auto& t) { return max_pool2d(t[0], 3, 2); }},
      {"ties, 2x2 stride 1", {ties}, [](auto& t) { return max_pool2d(t[0], 2, 1); }},
      {"negative, 3x3 stride 2 padding 1",
       {negative},
       [](auto& t) { return max_pool2d(t[0], 3, 2, 1); }},
  };
  // Nothing is computed but maxima and sums in the CPU's order: the devices agree exactly.
  expect_match(cases, 0.0, 0.0);
  const Tensor pooled = max_pool2d(negative.to(kGpu), 3, 2, 1).to(kCPU);
  for (float v : pooled.to_vector<float>()) EXPECT_LT(v, 0.0f) << "padding won";
}

TEST(CudaImages, DropoutDrawsTheSameMaskOnBothDevices) {
  SKIP_WITHOUT_GPU();
  for (int64_t n : {int64_t{1}, int64_t{257}, int64_t{100003}}) {
    for (double p : {0.1, 0.5, 0.9}) {
      const Case c{"dropout", {random_tensor({n}, 21)}, [p](auto& t) { return dropout(t[0], p); }};
      manual_seed(7);
      const OutputAndGrads cpu = run(c, kCPU);
      manual_seed(7);
      const OutputAndGrads gpu = run(c, kGpu);
      EXPECT_EQ(gpu.out, cpu.out) << n << " elements, p = " << p;
      EXPECT_EQ(gpu.grads[0], cpu.grads[0]) << n << " elements, p = " << p;
    }
  }
  // The module: the same mask while training, the input itself in eval() mode.
  const Tensor x = random_tensor({3, 5, 4, 4}, 22);
  nn::Dropout drop(0.25);
  manual_seed(9);
  const std::vector<float> cpu = drop(x).to_vector<float>();
  manual_seed(9);
  EXPECT_EQ(drop(x.to(kGpu)).to(kCPU).to_vector<float>(), cpu);
  drop.eval();
  EXPECT_EQ(drop(x.to(kGpu)).to(kCPU).to_vector<float>(), x.to_vector<float>());
}

TEST(CudaImages, FlattenMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  const Tensor x = random_tensor({3, 5, 4, 2}, 31);
  const std::vector<Case> cases = {
      {"flatten", {x}, [](auto& t) { return flatten(t[0]) * 2.0f; }},
      {"flatten 1..2", {x}, [](auto& t) { return flatten(t[0], 1, 2) * 2.0f; }},
      {"flatten of a pooled map",
       {x},
       [](auto& t) { return flatten(max_pool2d(t[0], Size2(2, 1))) * 2.0f; }},
  };
  expect_match(cases, 0.0, 0.0);
  nn::Flatten layer;
  EXPECT_EQ(layer(x.to(kGpu)).shape(), (Shape{3, 40}));
}

// conv(2 -> 5) - relu - pool - flatten - dropout - linear, as a user builds it, with the
// weights of manual_seed(seed).
std::shared_ptr<nn::Sequential> small_cnn(uint64_t seed) {
  manual_seed(seed);
  auto model = std::make_shared<nn::Sequential>();
  model->add<nn::Conv2d>(2, 5, Size2(3, 2), 1, Size2(1, 0));
  model->add<nn::ReLU>();
  model->add<nn::MaxPool2d>(3, 2);
  model->add<nn::Flatten>();
  model->add<nn::Dropout>(0.25);
  model->add<nn::Linear>(5 * 4 * 4, 4);
  return model;
}

// One SGD step of small_cnn on `device`: the loss, then every gradient, then every parameter
// after the update.
std::vector<std::vector<float>> cnn_step(const Device& device) {
  auto model = small_cnn(3);
  model->to(device);
  optim::SGD sgd(model->parameters(), 0.1);
  const Tensor x = random_tensor({3, 2, 9, 10}, 41).to(device);
  std::vector<int64_t> labels = {2, 0, 3};
  const Tensor y = tensor(labels, device);
  manual_seed(5);  // the dropout mask
  Tensor loss = cross_entropy((*model)(x), y);
  sgd.zero_grad();
  loss.backward();
  std::vector<std::vector<float>> out = {loss.to(kCPU).to_vector<float>()};
  for (const Tensor& p : model->parameters()) out.push_back(p.grad().to(kCPU).to_vector<float>());
  sgd.step();
  for (const Tensor& p : model->parameters()) out.push_back(p.to(kCPU).to_vector<float>());
  return out;
}

TEST(CudaImages, ASmallCnnTrainingStepMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  const auto cpu = cnn_step(kCPU), gpu = cnn_step(kGpu);
  ASSERT_EQ(gpu.size(), cpu.size());
  ASSERT_EQ(cpu.size(), 1u + 2u * 4u);  // loss, 4 gradients, 4 parameters
  for (std::size_t k = 0; k < cpu.size(); ++k)
    EXPECT_TRUE(all_close(gpu[k], cpu[k], 1e-6, 1e-4)) << (k == 0   ? "loss"
                                                           : k <= 4 ? "gradient "
                                                                    : "parameter ")
                                                       << (k == 0 ? 0 : (k - 1) % 4);
}

}  // namespace
}  // namespace torchlet
