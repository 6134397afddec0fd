// The process group and DistributedDataParallel, run on every rank (ctest runs this program
// alone and under `mpirun -np 2`). References are computed on each rank without communication:
// the world's shards one after the other in one process, their gradients summed in rank order
// and divided by the world size, which with two ranks is bit for bit what the all-reduce does
// (one commutative addition an element).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "distributed_testing.h"
#include "torchlet/autograd.h"
#include "torchlet/data/loader.h"
#include "torchlet/distributed/ddp.h"
#include "torchlet/error.h"
#include "torchlet/functional.h"
#include "torchlet/optim/optimizer.h"
#include "torchlet/random.h"
#include "torchlet/train/models.h"

namespace torchlet::distributed {
namespace {

using testing::group;

// Bit-for-bit equality, or the first differing element and the largest difference.
::testing::AssertionResult same_bits(const Tensor& a, const Tensor& b) {
  const auto x = a.contiguous().to_vector<float>(), y = b.contiguous().to_vector<float>();
  if (x.size() != y.size()) return ::testing::AssertionFailure() << "sizes differ";
  double worst = 0.0;
  std::size_t first = x.size();
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::memcmp(&x[i], &y[i], sizeof(float)) != 0) {
      first = std::min(first, i);
      worst = std::max(worst, std::abs(static_cast<double>(x[i]) - y[i]));
    }
  if (first == x.size()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "element " << first << ": " << x[first] << " vs "
                                       << y[first] << ", largest difference " << worst;
}

TEST(DistributedGroup, EnvironmentMatchesMpi) {
  const Environment env = environment();
  EXPECT_EQ(env.rank, group().rank());
  EXPECT_EQ(env.world_size, group().size());
  EXPECT_EQ(group().uses_mpi(), !env.launcher.empty());
  EXPECT_EQ(group().library() == "none", !group().uses_mpi()) << group().library();
}

TEST(DistributedGroup, EnvironmentFromSlurmAndTimeout) {
  if (!environment().launcher.empty()) GTEST_SKIP() << "launched: Open MPI's variables win";
  setenv("SLURM_PROCID", "3", 1), setenv("SLURM_NTASKS", "4", 1), setenv("SLURM_LOCALID", "1", 1);
  const Environment env = environment();
  EXPECT_EQ(env.rank, 3);
  EXPECT_EQ(env.world_size, 4);
  EXPECT_EQ(env.local_rank, 1);
  EXPECT_EQ(env.launcher, "Slurm");
  setenv("SLURM_PROCID", "4", 1);
  EXPECT_THROW(
      {
        try {
          environment();
        } catch (const Error& e) {
          EXPECT_STREQ(e.what(), "SLURM_PROCID: Expected a rank below SLURM_NTASKS (4), but got 4");
          throw;
        }
      },
      Error);
  unsetenv("SLURM_PROCID"), unsetenv("SLURM_NTASKS"), unsetenv("SLURM_LOCALID");
  setenv("TORCHLET_DIST_TIMEOUT", "2.5", 1);
  EXPECT_EQ(default_timeout_s(), 2.5);
  setenv("TORCHLET_DIST_TIMEOUT", "soon", 1);
  EXPECT_THROW(default_timeout_s(), Error);
  unsetenv("TORCHLET_DIST_TIMEOUT");
  EXPECT_EQ(default_timeout_s(), 300.0);
}

TEST(DistributedGroup, AllReduceSumAndAverage) {
  const int w = group().size(), r = group().rank();
  // Whole numbers and halves: exact in float whatever order MPI adds them in.
  std::vector<float> mine;
  std::vector<int64_t> ints;
  for (int k = 0; k < 7; ++k) mine.push_back(static_cast<float>((r + 1) * (k - 3)));
  for (int k = 0; k < 5; ++k) ints.push_back((r + 1) * (k + 1) * 1000000007LL);
  Tensor sum = tensor(mine), mean = tensor(mine), isum = tensor(ints);
  group().all_reduce(sum);
  group().all_reduce(mean, ReduceOp::Average);
  Work pending = group().all_reduce_async(isum);
  while (!pending.is_completed()) {  // each test moves the transfer on; wait() finishes it
  }
  pending.wait();
  EXPECT_TRUE(pending.done() && pending.is_completed());
  const float ranks = static_cast<float>(w * (w + 1) / 2);
  for (int k = 0; k < 7; ++k) {
    EXPECT_EQ(sum.to_vector<float>()[k], ranks * static_cast<float>(k - 3)) << k;
    EXPECT_EQ(mean.to_vector<float>()[k], ranks * static_cast<float>(k - 3) / w) << k;
  }
  for (int k = 0; k < 5; ++k)
    EXPECT_EQ(isum.to_vector<int64_t>()[k], w * (w + 1) / 2 * (k + 1) * 1000000007LL) << k;
}

TEST(DistributedGroup, BroadcastGatherBarrierAndFailures) {
  const int w = group().size(), r = group().rank();
  for (int root = 0; root < w; ++root) {
    Tensor t = full({2, 3}, 10.0 * r + 0.25);
    group().broadcast(t, root);
    for (float v : t.to_vector<float>()) EXPECT_EQ(v, 10.0f * root + 0.25f) << "root " << root;
  }
  const std::vector<double> d = group().all_gather(1.5 * r);
  const std::vector<int64_t> i = group().all_gather(static_cast<int64_t>(r) - 7);
  ASSERT_EQ(d.size(), static_cast<std::size_t>(w));
  for (int k = 0; k < w; ++k) {
    EXPECT_EQ(d[k], 1.5 * k);
    EXPECT_EQ(i[k], k - 7);
  }
  group().barrier();
  EXPECT_EQ(group().first_failure(true), -1);
  EXPECT_EQ(group().first_failure(r != w - 1), w - 1);
  // Refused before anything is sent, so every rank throws alike.
  EXPECT_THROW(group().all_reduce(ones({3, 2}).t()), Error);
  EXPECT_THROW(group().broadcast(ones({2}), w), Error);
  EXPECT_THROW(group().all_reduce(ones({2}).gt(0.0)), Error);
}

constexpr int64_t kShard = 9;  // rows a rank

// Inputs [world * kShard, 7] and classes [world * kShard], the same on every rank.
std::pair<Tensor, Tensor> batch_data(uint64_t seed) {
  manual_seed(seed);
  const int64_t n = kShard * group().size();
  Tensor x = randn({n, 7});
  Tensor y = randint(3, {n});
  return {x, y};
}

// rows of part k of the world's data
Tensor part(const Tensor& t, int k) { return t.narrow(0, k * kShard, kShard); }

// A model whose first weights differ per rank (DDP must broadcast rank 0's), and a
// reference copy holding rank 0's.
std::shared_ptr<nn::Sequential> rank_model() {
  manual_seed(1000 + static_cast<uint64_t>(group().rank()));
  return nn::make_mlp({7, 13, 11, 3});
}

// The reference: every part's gradient in one process, summed in rank order, over world size.
std::vector<Tensor> reference_grads(nn::Module& model, const Tensor& x, const Tensor& y) {
  std::vector<Tensor> sum;
  for (int k = 0; k < group().size(); ++k) {
    model.zero_grad();
    cross_entropy(model(part(x, k)), part(y, k)).backward();
    const std::vector<Tensor> params = model.parameters();
    for (std::size_t p = 0; p < params.size(); ++p)
      sum.size() <= p ? sum.push_back(params[p].grad()) : void(sum[p] = sum[p] + params[p].grad());
  }
  for (Tensor& g : sum) g = g / static_cast<float>(group().size());
  return sum;
}

TEST(DistributedDdp, BroadcastsRankZerosWeights) {
  auto model = rank_model();
  DistributedDataParallel ddp(*model, group());
  const double first = model->parameters()[0].sum().item();
  for (double v : group().all_gather(first)) EXPECT_EQ(v, first);
  manual_seed(1000);
  auto rank0 = nn::make_mlp({7, 13, 11, 3});
  for (std::size_t p = 0; p < rank0->parameters().size(); ++p)
    EXPECT_TRUE(same_bits(model->parameters()[p], rank0->parameters()[p])) << p;
}

// DDP's steps against the reference's, bit for bit, with the given bucket cap.
void expect_steps_match_reference(double bucket_cap_mb, int steps) {
  auto model = rank_model();
  DistributedDataParallel ddp(*model, group(), {.bucket_cap_mb = bucket_cap_mb});
  auto ref = nn::make_mlp({7, 13, 11, 3});
  ref->load_state_dict(model->state_dict());
  optim::SGD sgd(model->parameters(), 0.1, 0.9), ref_sgd(ref->parameters(), 0.1, 0.9);
  for (int s = 0; s < steps; ++s) {
    const auto [x, y] = batch_data(static_cast<uint64_t>(s));
    sgd.zero_grad();
    cross_entropy(ddp(part(x, group().rank())), part(y, group().rank())).backward();
    const std::vector<Tensor> params = model->parameters(), ref_params = ref->parameters();
    std::vector<const float*> backward_grads;  // synchronize() writes into them, as PyTorch's
    for (const Tensor& p : params) backward_grads.push_back(p.grad().data_ptr<float>());
    ddp.synchronize();
    const std::vector<Tensor> want = reference_grads(*ref, x, y);
    for (std::size_t p = 0; p < params.size(); ++p) {
      EXPECT_EQ(params[p].grad().data_ptr<float>(), backward_grads[p]) << "step " << s;
      EXPECT_TRUE(same_bits(params[p].grad(), want[p])) << "step " << s;
      ref_params[p].set_grad(want[p]);
    }
    sgd.step();
    ref_sgd.step();
  }
  for (std::size_t p = 0; p < model->parameters().size(); ++p)
    EXPECT_TRUE(same_bits(model->parameters()[p], ref->parameters()[p])) << "parameter " << p;
  EXPECT_EQ(ddp.steps(), steps);
}

// With more than two ranks MPI may add in another order than the reference's.
#define SKIP_BEYOND_TWO_RANKS() \
  if (group().size() > 2) GTEST_SKIP() << "bit for bit needs at most 2 ranks"

TEST(DistributedDdp, GradientsAndStepsMatchShardReferenceBitForBit) {
  SKIP_BEYOND_TWO_RANKS();
  expect_steps_match_reference(25.0, 6);
}

TEST(DistributedDdp, OneBucketAParameterGivesTheSameSteps) {
  SKIP_BEYOND_TWO_RANKS();
  expect_steps_match_reference(0.0, 6);
}

TEST(DistributedDdp, BucketsFollowReverseParameterOrder) {
  auto model = rank_model();  // parameters: 7x13 91, 13, 13x11 143, 11, 11x3 33, 3
  EXPECT_EQ(DistributedDataParallel(*model, group()).bucket_sizes(), std::vector<int64_t>{6});
  EXPECT_EQ(DistributedDataParallel(*model, group(), {0.0}).bucket_sizes(),
            std::vector<int64_t>(6, 1));
  // 200 bytes (50 floats): 3+33+11 = 47 stay below, +143 closes the bucket; 13+91 the next.
  const double cap = 200.0 / (1024.0 * 1024.0);
  EXPECT_EQ(DistributedDataParallel(*model, group(), {cap}).bucket_sizes(),
            (std::vector<int64_t>{4, 2}));
  EXPECT_THROW(DistributedDataParallel(*model, group(), {-1.0}), Error);
}

TEST(DistributedDdp, NoSyncAccumulatesThenAveragesTheSum) {
  SKIP_BEYOND_TWO_RANKS();
  auto model = rank_model();
  DistributedDataParallel ddp(*model, group());
  auto ref = nn::make_mlp({7, 13, 11, 3});
  ref->load_state_dict(model->state_dict());
  const auto [x1, y1] = batch_data(21);
  const auto [x2, y2] = batch_data(22);
  const int r = group().rank();
  model->zero_grad();
  {
    auto guard = ddp.no_sync();
    cross_entropy(ddp(part(x1, r)), part(y1, r)).backward();
    ddp.synchronize();  // a no-op here: the gradient stays this rank's own
  }
  ref->zero_grad();
  cross_entropy((*ref)(part(x1, r)), part(y1, r)).backward();
  EXPECT_TRUE(same_bits(model->parameters()[0].grad(), ref->parameters()[0].grad()));
  cross_entropy(ddp(part(x2, r)), part(y2, r)).backward();
  ddp.synchronize();
  // Reference: each part's two micro-batches accumulated, then the mean over parts.
  std::vector<Tensor> want;
  for (int k = 0; k < group().size(); ++k) {
    ref->zero_grad();
    cross_entropy((*ref)(part(x1, k)), part(y1, k)).backward();
    cross_entropy((*ref)(part(x2, k)), part(y2, k)).backward();
    const auto params = ref->parameters();
    for (std::size_t p = 0; p < params.size(); ++p)
      want.size() <= p ? want.push_back(params[p].grad())
                       : void(want[p] = want[p] + params[p].grad());
  }
  const auto params = model->parameters();
  for (std::size_t p = 0; p < params.size(); ++p)
    EXPECT_TRUE(same_bits(params[p].grad(), want[p] / static_cast<float>(group().size()))) << p;
  EXPECT_EQ(ddp.steps(), 1);
}

// What lets a bucket go out during backward: a leaf's hooks run as soon as every edge into it
// has delivered its gradient, before the nodes below it (here: w2's before h's and w1's).
TEST(DistributedDdp, LeafHooksRunAsSoonAsTheirGradientIsComplete) {
  manual_seed(4);
  Tensor x = randn({3, 4});
  Tensor w1 = randn({4, 5}).requires_grad_(), w2 = randn({5, 2}).requires_grad_();
  std::vector<std::string> order;
  w1.register_hook([&](const Tensor&) { order.push_back("w1"); });
  w2.register_hook([&](const Tensor&) { order.push_back("w2"); });
  const Tensor h = x.matmul(w1);
  h.register_hook([&](const Tensor&) { order.push_back("h"); });
  // w2 is used twice: its hook waits for both edges and sees their sum.
  Tensor w2_sum;
  w2.register_hook([&](const Tensor& g) { w2_sum = g.clone(); });
  (h.matmul(w2).sum() + w2.sum()).backward();
  EXPECT_EQ(order, (std::vector<std::string>{"w2", "h", "w1"}));
  EXPECT_TRUE(same_bits(w2_sum, w2.grad()));
}

TEST(DistributedDdp, SecondBackwardWithoutSynchronizeIsRefused) {
  auto model = rank_model();
  DistributedDataParallel ddp(*model, group());
  const auto [x, y] = batch_data(3);
  const Tensor loss = cross_entropy(ddp(part(x, group().rank())), part(y, group().rank()));
  loss.backward(Tensor(), true);
  EXPECT_THROW(loss.backward(), Error);
}

TEST(DistributedSampler, ShardsPadAndShuffleAlike) {
  // 10 samples on 3 ranks: 4 each, padded with the order's first two.
  std::vector<int64_t> all;
  for (int r = 0; r < 3; ++r) {
    DistributedSampler s(10, r, 3, {.shuffle = false});
    const auto mine = s.indices();
    EXPECT_EQ(s.num_samples(), 4);
    for (std::size_t k = 0; k < mine.size(); ++k)
      EXPECT_EQ(mine[k], (r + 3 * static_cast<int64_t>(k)) % 10) << "rank " << r;
    all.insert(all.end(), mine.begin(), mine.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<int64_t>{0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(DistributedSampler(10, 2, 3, {.drop_last = true}).indices().size(), 3u);
  // Shuffled: epoch_permutation of the epoch, interleaved; a new epoch, a new order.
  DistributedSampler s(10, 1, 2, {.seed = 5});
  s.set_epoch(4);
  const auto order = data::epoch_permutation(10, 5, 4);
  const auto mine = s.indices();
  for (std::size_t k = 0; k < mine.size(); ++k) EXPECT_EQ(mine[k], order[1 + 2 * k]);
  s.set_epoch(5);
  EXPECT_NE(s.indices(), mine);
  EXPECT_THROW(DistributedSampler(10, 2, 2), Error);
  EXPECT_THROW(DistributedSampler(1, 0, 2), Error);
}

}  // namespace
}  // namespace torchlet::distributed
