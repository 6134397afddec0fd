// DataLoader and epoch_permutation: every sample exactly once per epoch, in order or shuffled;
// the same seed and epoch give the same order (pinned, so a change of algorithm shows);
// drop_last and size(); in-order batches are views; constructor errors are pinned. One test,
// named Cuda* as the suite's GPU tests are, runs the loader on a GPU when there is one.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <string>
#include <vector>

#include "testing.h"
#include "torchlet/cuda.h"
#include "torchlet/data/loader.h"

namespace torchlet::data {
namespace {

using testing::error_of;

// Range-for and std::ranges algorithms accept the loader.
static_assert(std::input_iterator<DataLoader::Iterator>);

// n samples: inputs [n, 3] with row i = (i, 10 i, 100 i), targets [n] = 0..n-1, so a batch's
// targets say which rows it holds and its inputs can be checked against them.
struct Samples {
  Tensor inputs, targets;
};
Samples samples(int64_t n) {
  std::vector<float> rows;
  for (int64_t i = 0; i < n; ++i)
    rows.insert(rows.end(), {float(i), 10.0f * float(i), 100.0f * float(i)});
  return {tensor(rows, {n, 3}), arange(n)};
}

// The targets of every batch of one epoch, in order, after checking each batch's inputs
// match its targets; batch_sizes gets each batch's size.
std::vector<int64_t> epoch_targets(DataLoader& loader,
                                   std::vector<int64_t>* batch_sizes = nullptr) {
  std::vector<int64_t> seen;
  for (const Batch& b : loader) {
    const std::vector<int64_t> t = b.target.to(kCPU).to_vector<int64_t>();
    const std::vector<float> x = b.input.to(kCPU).to_vector<float>();
    EXPECT_EQ(b.input.size(0), b.target.size(0));
    for (std::size_t k = 0; k < t.size(); ++k)
      EXPECT_EQ(x[3 * k + 2], 100.0f * float(t[k])) << "row " << k << " of a batch";
    seen.insert(seen.end(), t.begin(), t.end());
    if (batch_sizes) batch_sizes->push_back(b.target.size(0));
  }
  return seen;
}

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST(LoaderTest, InOrderBatchesAreViewsOfTheData) {
  const Samples s = samples(10);
  DataLoader loader(s.inputs, s.targets, {.batch_size = 4});
  EXPECT_EQ(loader.size(), 3);
  EXPECT_EQ(loader.dataset_size(), 10);
  std::vector<int64_t> sizes;
  EXPECT_EQ(epoch_targets(loader, &sizes), iota(10));
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 4, 2}));
  int64_t start = 0;
  for (const Batch& b : loader) {  // same memory, offset by the batch's first row
    EXPECT_EQ(b.input.data_ptr<float>(), s.inputs.data_ptr<float>() + 3 * start);
    EXPECT_EQ(b.target.data_ptr<int64_t>(), s.targets.data_ptr<int64_t>() + start);
    start += b.input.size(0);
  }
  EXPECT_EQ(start, 10);
}

TEST(LoaderTest, DropLastLeavesOutTheShortBatch) {
  const Samples s = samples(10);
  for (bool shuffle : {false, true}) {
    DataLoader loader(s.inputs, s.targets,
                      {.batch_size = 4, .shuffle = shuffle, .drop_last = true});
    EXPECT_EQ(loader.size(), 2);
    std::vector<int64_t> sizes;
    std::vector<int64_t> seen = epoch_targets(loader, &sizes);
    EXPECT_EQ(sizes, (std::vector<int64_t>{4, 4}));
    std::sort(seen.begin(), seen.end());
    EXPECT_TRUE(std::adjacent_find(seen.begin(), seen.end()) == seen.end()) << "a repeat";
  }
  DataLoader exact(s.inputs.narrow(0, 0, 8), s.targets.narrow(0, 0, 8),
                   {.batch_size = 4, .drop_last = true});
  EXPECT_EQ(exact.size(), 2);
  DataLoader one_big(s.inputs, s.targets, {.batch_size = 64});
  EXPECT_EQ(one_big.size(), 1);
  DataLoader none(s.inputs, s.targets, {.batch_size = 64, .drop_last = true});
  EXPECT_EQ(none.size(), 0);
  EXPECT_TRUE(epoch_targets(none).empty());
}

TEST(LoaderTest, ShuffledEpochsHoldEverySampleExactlyOnce) {
  const Samples s = samples(37);
  DataLoader loader(s.inputs, s.targets, {.batch_size = 5, .shuffle = true, .seed = 7});
  EXPECT_EQ(loader.size(), 8);
  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    std::vector<int64_t> sizes;
    std::vector<int64_t> seen = epoch_targets(loader, &sizes);
    EXPECT_EQ(seen, epoch_permutation(37, 7, epoch)) << "epoch " << epoch;
    EXPECT_NE(seen, iota(37)) << "epoch " << epoch << " was not shuffled";
    EXPECT_EQ(sizes, (std::vector<int64_t>{5, 5, 5, 5, 5, 5, 5, 2}));
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, iota(37)) << "epoch " << epoch;
  }
  EXPECT_EQ(loader.next_epoch(), 3);
}

TEST(LoaderTest, SameSeedSameOrderNewEpochNewOrder) {
  const Samples s = samples(50);
  DataLoader a(s.inputs, s.targets, {.batch_size = 8, .shuffle = true, .seed = 3});
  DataLoader b(s.inputs, s.targets, {.batch_size = 8, .shuffle = true, .seed = 3});
  DataLoader c(s.inputs, s.targets, {.batch_size = 8, .shuffle = true, .seed = 4});
  const std::vector<int64_t> a0 = epoch_targets(a), a1 = epoch_targets(a);
  EXPECT_EQ(epoch_targets(b), a0);
  EXPECT_EQ(epoch_targets(b), a1);
  EXPECT_NE(a0, a1);
  EXPECT_NE(epoch_targets(c), a0);
  b.set_next_epoch(1);  // resuming at epoch 1 repeats its order
  EXPECT_EQ(epoch_targets(b), a1);
  EXPECT_EQ(error_of([&] { b.set_next_epoch(-1); }),
            "DataLoader::set_next_epoch: Expected epoch >= 0, but got -1");
}

// The orders are pinned so that a change in the shuffle (which would change every training
// run's results) is noticed. mt19937_64 and seed_seq are specified exactly by the C++
// standard, so these hold with any conforming standard library; the values were reproduced
// by a separate Python implementation of the standard's definitions.
TEST(LoaderTest, EpochPermutationIsPinned) {
  EXPECT_EQ(epoch_permutation(10, 0, 0), (std::vector<int64_t>{8, 2, 3, 5, 1, 6, 9, 7, 0, 4}));
  EXPECT_EQ(epoch_permutation(10, 0, 1), (std::vector<int64_t>{1, 7, 2, 0, 6, 9, 3, 4, 5, 8}));
  EXPECT_EQ(epoch_permutation(10, 42, 0), (std::vector<int64_t>{0, 6, 5, 1, 3, 9, 7, 8, 4, 2}));
  EXPECT_TRUE(epoch_permutation(0, 5, 5).empty());
  EXPECT_EQ(epoch_permutation(1, 5, 5), (std::vector<int64_t>{0}));
}

TEST(LoaderTest, AnIteratorKeepsItsEpochsOrder) {
  const Samples s = samples(20);
  DataLoader loader(s.inputs, s.targets, {.batch_size = 20, .shuffle = true, .seed = 1});
  auto first = loader.begin();   // epoch 0
  auto second = loader.begin();  // epoch 1
  EXPECT_EQ(first->target.to_vector<int64_t>(), epoch_permutation(20, 1, 0));
  EXPECT_EQ(second->target.to_vector<int64_t>(), epoch_permutation(20, 1, 1));
  EXPECT_TRUE(++first == loader.end());
}

TEST(LoaderTest, EmptyDataSetHasNoBatches) {
  const Samples s = samples(0);
  DataLoader loader(s.inputs, s.targets, {.batch_size = 3, .shuffle = true});
  EXPECT_EQ(loader.size(), 0);
  EXPECT_TRUE(loader.begin() == loader.end());
}

TEST(LoaderTest, ConstructorErrorsSayWhatWasExpected) {
  const Samples s = samples(6);
  EXPECT_EQ(error_of([&] { DataLoader(s.inputs, s.targets.narrow(0, 0, 5)); }),
            "DataLoader: Expected inputs and targets with the same number of samples (first "
            "dimension), but got inputs [6, 3] and targets [5]");
  EXPECT_EQ(error_of([&] { DataLoader(s.inputs, s.targets, {.batch_size = 0}); }),
            "DataLoader: Expected batch_size >= 1, but got 0");
  EXPECT_EQ(error_of([&] { DataLoader(Tensor(), s.targets); }),
            "DataLoader: Expected a defined inputs tensor, but got an undefined one");
  EXPECT_EQ(error_of([&] { DataLoader(s.inputs, Tensor()); }),
            "DataLoader: Expected a defined targets tensor, but got an undefined one");
}

TEST(CudaLoaderTest, BatchesStayOnTheGpuAndDevicesMustMatch) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device (torchlet::cuda::is_available())";
  const Samples s = samples(23);
  const Device gpu("cuda:0");
  EXPECT_EQ(error_of([&] { DataLoader(s.inputs.to(gpu), s.targets); }),
            "DataLoader: Expected inputs and targets on the same device, but got inputs on "
            "cuda:0 and targets on cpu");
  for (bool shuffle : {false, true}) {
    DataLoader loader(s.inputs.to(gpu), s.targets.to(gpu),
                      {.batch_size = 6, .shuffle = shuffle, .seed = 9});
    for (const Batch& b : loader) {
      EXPECT_EQ(b.input.device(), gpu);
      EXPECT_EQ(b.target.device(), gpu);
    }
    std::vector<int64_t> seen = epoch_targets(loader);
    EXPECT_EQ(seen, shuffle ? epoch_permutation(23, 9, 1) : iota(23));
  }
}

}  // namespace
}  // namespace torchlet::data
