// The CUDA backend against the CPU backend (the reference): every op's forward and backward on
// awkward shapes (1, 7, 129, 33 ...: not multiples of a warp or a block), copies between host
// and device, and the errors a user sees with real CUDA tensors. Suites start with "Cuda", so
// ctest labels them `cuda`; without a GPU they report as skipped.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "testing.h"
#include "torchlet/torchlet.h"

namespace torchlet {
namespace {

using namespace testing;

struct OpCase {
  std::string name;
  std::vector<Shape> inputs;  // float32 inputs, random in [-1, 1)
  std::function<Tensor(const std::vector<Tensor>&)> f;
};

// Targets for cross_entropy and indices for index_select, made on the op's device.
Tensor targets(int64_t n, int64_t classes, const Device& device) {
  std::vector<int64_t> t(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) t[i] = (i * 7 + 3) % classes;
  return tensor(t, device);
}

std::vector<OpCase> op_cases() {
  return {
      {"add with broadcasting", {{7, 33}, {33}}, [](auto& x) { return x[0] + x[1]; }},
      {"sub of a column and a row", {{129, 1}, {1, 5}}, [](auto& x) { return x[0] - x[1]; }},
      {"mul", {{7, 33}, {7, 33}}, [](auto& x) { return x[0] * x[1]; }},
      {"div", {{129, 3}, {129, 3}}, [](auto& x) { return x[0] / (x[1] * x[1] + 1.0f); }},
      {"scalar ops", {{1, 7}}, [](auto& x) { return 1.0f - x[0] * 2.5f / 3.0f + 0.5f; }},
      {"negation of a transposed view", {{7, 33}}, [](auto& x) { return -x[0].t(); }},
      {"matmul", {{7, 129}, {129, 33}}, [](auto& x) { return matmul(x[0], x[1]); }},
      {"matmul 1x1", {{1, 1}, {1, 5}}, [](auto& x) { return matmul(x[0], x[1]); }},
      {"matmul of transposed views",
       {{129, 7}, {33, 129}},
       [](auto& x) { return matmul(x[0].t(), x[1].t()); }},
      {"linear", {{129, 17}, {33, 17}, {33}}, [](auto& x) { return linear(x[0], x[1], x[2]); }},
      {"relu", {{129, 33}}, [](auto& x) { return relu(x[0]); }},
      {"softmax over rows", {{7, 33}}, [](auto& x) { return softmax(x[0], 1); }},
      {"softmax over columns", {{129, 5}}, [](auto& x) { return softmax(x[0], 0); }},
      {"log_softmax", {{129, 10}}, [](auto& x) { return log_softmax(x[0], 1); }},
      {"log_softmax of a 3-d middle axis",
       {{3, 7, 5}},
       [](auto& x) { return log_softmax(x[0], 1); }},
      {"cross_entropy",
       {{129, 10}},
       [](auto& x) { return cross_entropy(x[0], targets(129, 10, x[0].device())); }},
      {"cross_entropy of one row",
       {{1, 3}},
       [](auto& x) { return cross_entropy(x[0], targets(1, 3, x[0].device())); }},
      {"sum", {{129, 33}}, [](auto& x) { return x[0].sum(); }},
      {"sum over dim 0", {{129, 33}}, [](auto& x) { return x[0].sum(0); }},
      {"sum over dim 1 keepdim", {{7, 1000}}, [](auto& x) { return x[0].sum(1, true); }},
      {"mean", {{1, 129}}, [](auto& x) { return x[0].mean(); }},
      {"mean over dim 1", {{33, 7}}, [](auto& x) { return x[0].mean(1); }},
      {"reshape and slice",
       {{6, 35}},
       [](auto& x) {
         return x[0].reshape({35, 6}).slice(0, 3, 20) * 2.0f;
       }},
      {"gather and scatter_add along dim 1",
       {{129, 7}},
       [](auto& x) {
         const Tensor index = targets(129 * 3, 7, x[0].device()).reshape({129, 3});
         return scatter_add(zeros({129, 7}, x[0].device()), 1, index, gather(x[0], 1, index));
       }},
      {"index_select and index_add along dim 1 of a view",
       {{7, 33}},
       [](auto& x) {
         const Tensor index = targets(40, 33, x[0].device());
         return index_add(x[0].t(), 0, index, x[0].t().index_select(0, index) * 2.0f);
       }},
      {"advanced indexing and index_put",
       {{33, 7}},
       [](auto& x) {
         using namespace torchlet::indexing;
         const Tensor rows = targets(20, 33, x[0].device());
         return x[0].index({rows, Slice(1, None, 2)}).sum() +
                x[0].index_put({rows}, x[0].index({rows}) * 3.0f, true).sum(0);
       }},
      {"einsum",
       {{5, 7, 3}, {5, 3, 4}},
       [](auto& x) {
         return einsum("bij,bjk->bik", {x[0], x[1]});
       }},
      {"a small MLP",
       {{129, 4}, {10, 4}, {10}, {3, 10}, {3}},
       [](auto& x) {
         return cross_entropy(linear(relu(linear(x[0], x[1], x[2])), x[3], x[4]),
                              targets(129, 3, x[0].device()));
       }},
  };
}

// f's output and input gradients on `device`, for inputs made from the same seeds.
OutputAndGrads run(const OpCase& c, const Device& device) {
  std::vector<Tensor> inputs;
  uint32_t seed = 1;
  for (const Shape& shape : c.inputs) {
    Tensor x = random_tensor(shape, seed++).to(device);
    x.set_requires_grad(true);
    inputs.push_back(x);
  }
  return output_and_grads(c.f, inputs, c.name);
}

TEST(CudaOps, ForwardAndBackwardMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  for (const OpCase& c : op_cases()) {
    const OutputAndGrads cpu = run(c, kCPU), gpu = run(c, kGpu);
    EXPECT_TRUE(all_close(gpu.out, cpu.out, 1e-5, 1e-4)) << c.name << ": forward";
    ASSERT_EQ(gpu.grads.size(), cpu.grads.size());
    for (std::size_t k = 0; k < cpu.grads.size(); ++k)
      EXPECT_TRUE(all_close(gpu.grads[k], cpu.grads[k], 1e-5, 1e-4))
          << c.name << ": gradient of input " << k;
  }
}

TEST(CudaOps, IntegerAndBoolOpsMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const Tensor x = random_tensor({129, 7}, 5);
  const Tensor g = x.to(kGpu);
  EXPECT_EQ(g.argmax(1).to(kCPU).to_vector<int64_t>(), x.argmax(1).to_vector<int64_t>());
  EXPECT_EQ(g.argmax(0).to(kCPU).to_vector<int64_t>(), x.argmax(0).to_vector<int64_t>());
  const Tensor rows = tensor(std::vector<int64_t>{128, 0, 5, 5, 64});
  EXPECT_EQ(index_select(g, rows.to(kGpu)).to(kCPU).to_vector<float>(),
            index_select(x, rows).to_vector<float>());
  const Tensor labels = targets(129, 3, kCPU);
  EXPECT_EQ(labels.to(kGpu).to(kFloat32).to(kCPU).to_vector<float>(),
            labels.to(kFloat32).to_vector<float>());
  const Tensor same = (g.argmax(1) == labels.to(kGpu)).to(kInt64).sum(0);
  EXPECT_EQ(same.to(kCPU).item(), (x.argmax(1) == labels).to(kInt64).sum(0).item());
  Tensor filled = zeros({7, 33}, kGpu);
  filled.fill_(2.5);
  EXPECT_EQ(filled.sum().item(), 2.5f * 7 * 33);
}

TEST(CudaCopies, RoundTripsBetweenHostAndDevice) {
  SKIP_WITHOUT_GPU();
  // Sizes around the 4 MiB pinned staging buffers: one chunk, exactly two, and a ragged third.
  for (int64_t n : {int64_t{1}, int64_t{1000}, int64_t{1} << 20, (int64_t{1} << 21) + 77}) {
    const std::vector<float> values = random_values(n, 3);
    const Tensor host = tensor(values, {n});
    const Tensor device = host.to(kGpu);
    EXPECT_EQ(device.device(), kGpu);
    EXPECT_EQ(device.to(kCPU).to_vector<float>(), values) << n << " floats";
    EXPECT_EQ(device.to_vector<float>(), values) << n << " floats, read directly";
    EXPECT_EQ(device.clone().to(kCPU).to_vector<float>(), values) << n << " floats, cloned";
  }
  if (cuda::device_count() > 1) {
    const Tensor a = random_tensor({7, 33}, 4);
    EXPECT_EQ(a.to(kGpu).to(Device("cuda:1")).to(kCPU).to_vector<float>(), a.to_vector<float>());
  }
}

TEST(CudaErrors, DeviceMismatchWithRealCudaTensors) {
  SKIP_WITHOUT_GPU();
  const Tensor a = ones({2, 3}, kGpu), b = ones({2, 3});
  EXPECT_EQ(error_of([&] { a + b; }),
            "Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu! (argument 'other' of add)");
  nn::Linear fc(3, 4);
  EXPECT_NE(error_of([&] { fc(a); }).find("cuda:0 and cpu"), std::string::npos);
}

TEST(CudaErrors, ABadDeviceIndexNamesTheDeviceCount) {
  SKIP_WITHOUT_GPU();
  const int count = cuda::device_count();
  EXPECT_EQ(error_of([] { zeros({2}, Device("cuda:7")); }),
            "Expected a CUDA device index in [0, " + std::to_string(count) +
                ") (this machine has " + std::to_string(count) + (count == 1 ? " GPU" : " GPUs") +
                "), but got cuda:7");
}

TEST(CudaErrors, OutOfMemoryIsAnErrorWithTheBytes) {
  SKIP_WITHOUT_GPU();
  const std::string message = error_of([] { empty({int64_t{1} << 46}, kGpu); });  // 256 TiB
  EXPECT_EQ(
      message.rfind("Expected to allocate 281474976710656 bytes on cuda:0, but the GPU is out "
                    "of memory: ",
                    0),
      0u)
      << message;
  EXPECT_NE(message.find(" bytes free of "), std::string::npos) << message;
  EXPECT_EQ(ones({3}, kGpu).sum().item(), 3.0f);  // the device still works
}

TEST(CudaErrors, BadIndicesAreReportedAtTheNextSynchronisation) {
  SKIP_WITHOUT_GPU();
  const Tensor x = ones({5, 2}, kGpu);
  const Tensor out = index_select(x, tensor(std::vector<int64_t>{0, 9}, kGpu));  // queued
  EXPECT_EQ(error_of([&] { out.to_vector<float>(); }),
            "index_select, gather, scatter or index_add: Expected every index in range, but a "
            "kernel queued earlier on cuda:0 found 9 (what it gathered there is zeros, what it "
            "scattered there was skipped)");
  EXPECT_EQ(x.sum().item(), 10.0f);  // reported once; the device goes on
  const Tensor loss = cross_entropy(ones({2, 3}, kGpu), tensor(std::vector<int64_t>{1, 3}, kGpu));
  EXPECT_NE(error_of([&] { loss.item(); }).find("found 3 (the loss is NaN)"), std::string::npos);
}

TEST(CudaAllocator, ASteadyTrainingLoopStopsCallingTheDriver) {
  SKIP_WITHOUT_GPU();
  nn::Linear fc(4, 3);
  fc.to(kGpu);
  optim::SGD sgd(fc.parameters(), 0.1);
  const Tensor x = random_tensor({120, 4}, 1).to(kGpu);
  const Tensor y = targets(120, 3, kGpu);
  auto step = [&] {
    sgd.zero_grad();
    Tensor loss = cross_entropy(fc(x), y);
    loss.backward();
    sgd.step();
  };
  step();
  step();
  const cuda::MemoryStats before = cuda::memory_stats(0);
  for (int i = 0; i < 10; ++i) step();
  const cuda::MemoryStats after = cuda::memory_stats(0);
  EXPECT_EQ(after.driver_allocations, before.driver_allocations);
  EXPECT_EQ(after.allocated, before.allocated);
  EXPECT_GE(after.reserved, after.allocated);
  EXPECT_GE(after.peak_allocated, after.allocated);
}

}  // namespace
}  // namespace torchlet
