// The profile counters count what they should: a known sequence of operations gives exact
// launch, sync, copy and allocation counts. Each check is a function of the device, run on the
// CPU here and on cuda:0 by the Cuda* tests (skipped without a GPU).
#include <gtest/gtest.h>

#include "torchlet/cuda.h"
#include "torchlet/nn/fused.h"
#include "torchlet/profile.h"
#include "torchlet/torchlet.h"

namespace torchlet {
namespace {

using profile::CopyKind;
using profile::Counters;

// What one step of a sequence should count. Copies by direction; bytes of the host copies.
struct Want {
  uint64_t launches = 0, syncs = 0;
  uint64_t h2d = 0, d2h = 0, d2d = 0;
  uint64_t h2d_bytes = 0, d2h_bytes = 0;
  uint64_t allocations = 0;
};

void expect_counts(const Counters& got, const Want& want, const char* what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(got.launches, want.launches);
  EXPECT_EQ(got.syncs, want.syncs);
  EXPECT_EQ(got.copies_of(CopyKind::HostToDevice), want.h2d);
  EXPECT_EQ(got.copies_of(CopyKind::DeviceToHost), want.d2h);
  EXPECT_EQ(got.copies_of(CopyKind::DeviceToDevice), want.d2d);
  EXPECT_EQ(got.bytes_of(CopyKind::HostToDevice), want.h2d_bytes);
  EXPECT_EQ(got.bytes_of(CopyKind::DeviceToHost), want.d2h_bytes);
  EXPECT_EQ(got.allocations, want.allocations);
}

// The counts of `f` alone: a snapshot before and after.
template <typename F>
Counters count(F&& f) {
  const Counters before = profile::counters();
  f();
  return profile::counters() - before;
}

// The expectations of every check, per device.
struct DeviceWants {
  Want from_host, scale, sum_item, to_vector, eager_step, loss_item, deferred_record, fused_step,
      replay;
};

// On the CPU every Backend call that computes is one launch; item() and to_vector() are one
// sync and one device-to-host copy each (profile.h).
DeviceWants cpu_wants() {
  DeviceWants w;
  // tensor({6 floats}, device): one allocation, one host-to-device copy of 24 bytes.
  w.from_host = {.h2d = 1, .h2d_bytes = 24, .allocations = 1};
  // x * 2: binary_scalar.
  w.scale = {.launches = 1, .allocations = 1};
  // sum().item(): sum_dim, then one sync and a 4-byte read.
  w.sum_item = {.launches = 1, .syncs = 1, .d2h = 1, .d2h_bytes = 4, .allocations = 1};
  // to_vector<float>() of a contiguous float tensor: no kernel, one 24-byte read.
  w.to_vector = {.syncs = 1, .d2h = 1, .d2h_bytes = 24};
  // The course's step on MLP 4-10-3. Forward: Linear = linear_forward, a small GEMM with the
  // bias add in its store (1), ReLU (1), Linear (1), cross_entropy_forward (1). Backward: the
  // seed gradient fill (1), cross_entropy (1), fc2: dX, dW, db (3), ReLU (1), fc1: dW, db (2;
  // the data needs no gradient). SGD: one update of all parameters (1). 13 launches, nothing
  // read back. Allocations: the 5 forward outputs (fc1, relu, fc2, loss, probs) and the 8
  // backward results.
  w.eager_step = {.launches = 13, .allocations = 13};
  w.loss_item = {.syncs = 1, .d2h = 1, .d2h_bytes = 4};
  // recorded[k] = loss: one strided copy on the device, no sync.
  w.deferred_record = {.launches = 1};
  // FusedMlp::loss_and_grads: one mlp_step call (its buffers are reused from the first step);
  // the 0-dim loss is the one allocation. The replay of 50 steps is one call too, plus its
  // [50] loss tensor.
  w.fused_step = {.launches = 1, .allocations = 1};
  w.replay = {.launches = 1, .allocations = 1};
  return w;
}

// UNVERIFIED: written before the CUDA backend ran on a GPU, from profile.h's definitions (one
// launch per kernel or cuBLAS call, one per graph replay; syncs and copies as on the CPU). If
// the backend splits a Backend call into several kernels (a cuBLAS GEMM with a split-K
// reduction, a sum in two passes), these launch counts are the ones to correct: cross_entropy's
// forward is two kernels (the rows over many blocks, then their mean), and each Linear's
// forward a GEMM and a bias add, so the step is three more than on the CPU.
DeviceWants cuda_wants() {
  DeviceWants w = cpu_wants();
  w.eager_step.launches = 16;
  return w;
}

struct Course {
  Tensor X, y;
};

// 120 rows of 4 features and 3 classes, like the course's training split.
Course course_data(const Device& device) {
  manual_seed(1);
  std::vector<int64_t> labels(120);
  for (int i = 0; i < 120; ++i) labels[i] = i % 3;
  return {rand({120, 4}).to(device), tensor(labels, device)};
}

void check_basic_ops(const Device& device, const DeviceWants& w) {
  Tensor x, y;
  expect_counts(count([&] {
                  x = tensor({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3}, device);
                }),
                w.from_host, "tensor from host");
  expect_counts(count([&] { y = x * 2.0f; }), w.scale, "x * 2");
  float total = 0.0f;
  expect_counts(count([&] { total = y.sum().item(); }), w.sum_item, "sum().item()");
  EXPECT_EQ(total, 42.0f);
  std::vector<float> values;
  expect_counts(count([&] { values = y.to_vector<float>(); }), w.to_vector, "to_vector");
  EXPECT_EQ(values.back(), 12.0f);
}

void check_eager_step(const Device& device, const DeviceWants& w) {
  const Course d = course_data(device);
  manual_seed(0);
  nn::Sequential model;
  model.add<nn::Linear>(4, 10);
  model.add<nn::ReLU>();
  model.add<nn::Linear>(10, 3);
  model.to(device);
  optim::SGD sgd(model.parameters(), 0.01);
  Tensor loss;
  auto step = [&] {
    Tensor outputs = model(d.X);
    loss = cross_entropy(outputs, d.y);
    sgd.zero_grad();
    loss.backward();
    sgd.step();
  };
  step();  // the first step fills the caching allocator
  step();
  const Counters warm = count(step);
  expect_counts(warm, w.eager_step, "eager step");
  // Once warm, every block comes from the cache: nothing reaches the system allocator.
  EXPECT_EQ(warm.system_allocations, 0u);
  EXPECT_GT(warm.allocation_bytes, 0u);
  expect_counts(count([&] { loss.item(); }), w.loss_item, "loss.item()");
  Tensor recorded = zeros({4}, device);
  expect_counts(count([&] {
                  NoGradGuard no_grad;
                  recorded.narrow(0, 1, 1).copy_(loss.detach().reshape({1}));
                }),
                w.deferred_record, "deferred record");
}

void check_fused(const Device& device, const DeviceWants& w) {
  const Course d = course_data(device);
  manual_seed(0);
  nn::Sequential model;
  model.add<nn::Linear>(4, 10);
  model.add<nn::ReLU>();
  model.add<nn::Linear>(10, 3);
  model.to(device);
  optim::SGD sgd(model.parameters(), 0.01);
  nn::FusedMlp fused(model);
  fused.loss_and_grads(d.X, d.y);  // allocates its gradient buffers once
  expect_counts(count([&] { fused.loss_and_grads(d.X, d.y); }), w.fused_step, "fused step");
  Tensor losses;
  expect_counts(count([&] { losses = fused.train_sgd(d.X, d.y, sgd, 50); }), w.replay,
                "replay of 50 steps");
  EXPECT_EQ(losses.size(0), 50);
}

TEST(Profile, RecordingAddsUpAndSnapshotsSubtract) {
  const Counters before = profile::counters();
  profile::record_launch();
  profile::record_launch(4);
  profile::record_sync(0.5);
  profile::record_copy(CopyKind::HostToDevice, 100, 0.0);
  profile::record_copy(CopyKind::DeviceToHost, 8, 0.25);
  profile::record_copy(CopyKind::DeviceToHost, 4, 0.0);
  profile::record_allocation(64, true);
  profile::record_allocation(32, false);
  const Counters d = profile::counters() - before;
  EXPECT_EQ(d.launches, 5u);
  EXPECT_EQ(d.syncs, 1u);
  EXPECT_NEAR(d.sync_seconds, 0.5, 1e-9);
  EXPECT_EQ(d.copies_of(CopyKind::HostToDevice), 1u);
  EXPECT_EQ(d.copies_of(CopyKind::DeviceToHost), 2u);
  EXPECT_EQ(d.copies_of(CopyKind::DeviceToDevice), 0u);
  EXPECT_EQ(d.bytes_of(CopyKind::DeviceToHost), 12u);
  EXPECT_EQ(d.total_copies(), 3u);
  EXPECT_EQ(d.total_copy_bytes(), 112u);
  EXPECT_NEAR(d.copy_seconds[static_cast<int>(CopyKind::DeviceToHost)], 0.25, 1e-9);
  EXPECT_EQ(d.allocations, 2u);
  EXPECT_EQ(d.allocation_bytes, 96u);
  EXPECT_EQ(d.system_allocations, 1u);
}

TEST(Profile, ResetZeroesEveryCounter) {
  profile::record_launch();
  profile::record_copy(CopyKind::DeviceToDevice, 16, 0.1);
  profile::reset();
  const Counters c = profile::counters();
  EXPECT_EQ(c.launches, 0u);
  EXPECT_EQ(c.syncs, 0u);
  EXPECT_EQ(c.total_copies(), 0u);
  EXPECT_EQ(c.total_copy_bytes(), 0u);
  EXPECT_EQ(c.copy_seconds[static_cast<int>(CopyKind::DeviceToDevice)], 0.0);
  EXPECT_EQ(c.allocations, 0u);
}

TEST(Profile, CpuAllocationsReachTheSystemOnlyWhenTheCacheIsEmpty) {
  // A size nothing else in the suite allocates, so its first block cannot be cached yet.
  const Shape odd{1, 777'777};
  Counters first = count([&] { zeros(odd); });  // allocate, fill, free into the cache
  EXPECT_EQ(first.allocations, 1u);
  EXPECT_EQ(first.allocation_bytes, 777'777u * 4);
  EXPECT_EQ(first.system_allocations, 1u);
  EXPECT_EQ(first.launches, 1u);  // the fill
  Counters again = count([&] { zeros(odd); });
  EXPECT_EQ(again.allocations, 1u);
  EXPECT_EQ(again.system_allocations, 0u);
}

TEST(Profile, CpuBasicOps) { check_basic_ops(kCPU, cpu_wants()); }
TEST(Profile, CpuCourseEagerStep) { check_eager_step(kCPU, cpu_wants()); }
TEST(Profile, CpuFusedStepAndReplay) { check_fused(kCPU, cpu_wants()); }

#define TORCHLET_REQUIRE_GPU() \
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device (torchlet::cuda::is_available())"

TEST(CudaProfile, BasicOps) {
  TORCHLET_REQUIRE_GPU();
  check_basic_ops(Device("cuda:0"), cuda_wants());
}
TEST(CudaProfile, CourseEagerStep) {
  TORCHLET_REQUIRE_GPU();
  check_eager_step(Device("cuda:0"), cuda_wants());
}
TEST(CudaProfile, FusedStepAndReplay) {
  TORCHLET_REQUIRE_GPU();
  check_fused(Device("cuda:0"), cuda_wants());
}
TEST(CudaProfile, MovingToTheGpuAndBackIsOneCopyEachWay) {
  TORCHLET_REQUIRE_GPU();
  const Tensor host = tensor({1.f, 2.f, 3.f, 4.f}, {4});
  Tensor gpu, back;
  // UNVERIFIED (see cuda_wants): to(cuda) allocates on the GPU and copies 16 bytes up; to(cpu)
  // allocates on the CPU, copies 16 bytes down and waits for them.
  expect_counts(count([&] { gpu = host.to(Device("cuda:0")); }),
                {.h2d = 1, .h2d_bytes = 16, .allocations = 1}, "to(cuda)");
  expect_counts(count([&] { back = gpu.to(kCPU); }),
                {.syncs = 1, .d2h = 1, .d2h_bytes = 16, .allocations = 1}, "to(cpu)");
  EXPECT_EQ(back.to_vector<float>(), host.to_vector<float>());
}

}  // namespace
}  // namespace torchlet
