// torchlet::train under a process group: each rank's shard (DistributedSampler) with DDP's
// synchronize() before every step ends at the loss of one process training on the global batch,
// for the course's Iris MLP (full batch) and Fashion-MNIST mini-batches.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <optional>

#include "distributed_testing.h"
#include "torchlet/autograd.h"
#include "torchlet/data/dataset.h"
#include "torchlet/data/idx.h"
#include "torchlet/distributed/ddp.h"
#include "torchlet/functional.h"
#include "torchlet/random.h"
#include "torchlet/train.h"
#include "torchlet/train/models.h"

namespace torchlet::distributed {
namespace {

using testing::group;

struct Run {
  float final_loss;  // the last epoch's loss: the mean over the ranks' shard losses
  float full_loss;   // the trained model's loss on all the data
};

// Trains `model` on rank `rank` of `world` (world 1: the single-process reference) with the
// global batch split evenly, and returns its losses.
Run fit(nn::Module& model, const Tensor& x, const Tensor& y, int rank, int world,
        int64_t global_batch, int64_t epochs, bool shuffle, uint64_t seed) {
  optim::SGD sgd(model.parameters(), 0.05, 0.9);
  DistributedSampler sampler(x.size(0), rank, world, {.shuffle = shuffle, .seed = seed});
  std::optional<DistributedDataParallel> ddp;
  if (world > 1) ddp.emplace(model, group());
  TrainOptions options{
      .epochs = epochs, .batch_size = global_batch / world, .sampler = [&](int64_t epoch) {
        sampler.set_epoch(epoch);
        return sampler.indices();
      }};
  if (ddp) options.before_step = [&] { ddp->synchronize(); };
  const TrainResult r = train(model, sgd, x, y, options);
  EXPECT_EQ(r.stop, StopReason::Completed);
  std::vector<double> losses = group().all_gather(static_cast<double>(r.final_loss));
  if (world == 1) losses = {r.final_loss};
  NoGradGuard no_grad;
  const float mean = static_cast<float>(std::accumulate(losses.begin(), losses.end(), 0.0) /
                                        static_cast<double>(losses.size()));
  return {mean, cross_entropy(model(x), y).item()};
}

void expect_same_training(const std::function<std::shared_ptr<nn::Module>()>& make, const Tensor& x,
                          const Tensor& y, int64_t batch, int64_t epochs, bool shuffle,
                          float tolerance) {
  auto model = make(), ref = make();  // the same seed: the same weights on every rank
  const Run ddp = fit(*model, x, y, group().rank(), group().size(), batch, epochs, shuffle, 7);
  const Run one = fit(*ref, x, y, 0, 1, batch, epochs, shuffle, 7);
  EXPECT_NEAR(ddp.full_loss, one.full_loss, tolerance * one.full_loss);
  EXPECT_NEAR(ddp.final_loss, one.final_loss, tolerance * one.final_loss);
  EXPECT_LT(one.full_loss, 2.0f);  // it learnt something
  // Every rank ends with rank 0's model.
  for (double v : group().all_gather(static_cast<double>(ddp.full_loss)))
    EXPECT_EQ(v, static_cast<double>(ddp.full_loss));
}

TEST(DistributedTraining, IrisMlpFullBatchMatchesOneProcess) {
  const data::Dataset iris = data::load_iris();
  auto make = [] {
    manual_seed(1);
    return std::static_pointer_cast<nn::Module>(nn::make_mlp({4, 10, 3}));
  };
  expect_same_training(make, iris.X, iris.y, 150 - 150 % group().size(), 300, false, 1e-4f);
}

TEST(DistributedTraining, FashionMnistMiniBatchesMatchOneProcess) {
  const data::ImageSplit fashion = data::load_fashion_mnist(512, 1);
  auto make = [] {
    manual_seed(2);
    return std::static_pointer_cast<nn::Module>(
        nn::make_image_model("mlp", {32}, 1, 28, 28, 10).net);
  };
  expect_same_training(make, fashion.train.images, fashion.train.labels, 64, 3, true, 1e-4f);
}

}  // namespace
}  // namespace torchlet::distributed
