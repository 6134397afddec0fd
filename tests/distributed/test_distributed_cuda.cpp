// The NCCL path on GPUs (one a rank, by local rank): collectives on CUDA tensors and a DDP step
// against the same step on the CPU. Named Cuda*: ctest runs them on their own (labels cuda and
// mpi), reported as skipped without a GPU.
#include <gtest/gtest.h>

#include "distributed_testing.h"
#include "torchlet/cuda.h"
#include "torchlet/distributed/ddp.h"
#include "torchlet/functional.h"
#include "torchlet/random.h"
#include "torchlet/train/models.h"

namespace torchlet::distributed {
namespace {

using testing::group;

Device rank_gpu() { return Device(DeviceType::CUDA, group().local_rank() % cuda::device_count()); }

TEST(CudaDistributed, CollectivesOnGpuTensors) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const int w = group().size(), r = group().rank();
  Tensor t = full({1000}, r + 1.0, TensorOptions(rank_gpu()));
  group().all_reduce(t);
  for (float v : t.to_vector<float>()) ASSERT_EQ(v, w * (w + 1) / 2.0f);
  group().all_reduce(t, ReduceOp::Average);
  for (float v : t.to_vector<float>()) ASSERT_EQ(v, w * (w + 1) / 2.0f / w);
  Tensor b = full({7}, 10.0 * r, TensorOptions(rank_gpu()));
  group().broadcast(b, w - 1);
  for (float v : b.to_vector<float>()) ASSERT_EQ(v, 10.0f * (w - 1));
}

TEST(CudaDistributed, DdpStepOnGpuMatchesCpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  manual_seed(3);
  auto gpu = nn::make_mlp({6, 9, 3}), cpu = nn::make_mlp({6, 9, 3});
  cpu->load_state_dict(gpu->state_dict());
  gpu->to(rank_gpu());
  DistributedDataParallel ddp_gpu(*gpu, group()), ddp_cpu(*cpu, group());
  manual_seed(10 + static_cast<uint64_t>(group().rank()));
  const Tensor x = randn({8, 6}), y = randint(3, {8});
  cross_entropy(ddp_gpu(x.to(rank_gpu())), y.to(rank_gpu())).backward();
  ddp_gpu.synchronize();
  cross_entropy(ddp_cpu(x), y).backward();
  ddp_cpu.synchronize();
  for (std::size_t p = 0; p < cpu->parameters().size(); ++p) {
    const auto a = gpu->parameters()[p].grad().to(kCPU).to_vector<float>();
    const auto b = cpu->parameters()[p].grad().to_vector<float>();
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-5f) << p << " " << i;
  }
}

}  // namespace
}  // namespace torchlet::distributed
