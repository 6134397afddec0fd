// The LibTorch spellings the ports need (examples/ports): datasets::MNIST and TensorDataset,
// transforms::Normalize<> and Stack<>, make_data_loader with its two samplers, the option
// builders SGDOptions, AdamOptions, AdamWOptions and Conv2dOptions, and the holder syntax
// (fc->weight, *list). Each is checked against the plain form it stands for.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <string>
#include <vector>

#include "idx_testing.h"
#include "testing.h"
#include "torchlet/torchlet.h"

namespace torchlet {
namespace {

using data::Example;
using data::datasets::MNIST;
using data::datasets::TensorDataset;
using testing::error_of;

static_assert(std::input_iterator<data::ExampleLoader::Iterator>);

// n samples: data [n, 2] with row i = (i, -i), targets [n] = 0..n-1.
TensorDataset samples(int64_t n) {
  std::vector<float> rows(static_cast<size_t>(2 * n));
  for (int64_t i = 0; i < n; ++i) {
    rows[static_cast<size_t>(2 * i)] = float(i);
    rows[static_cast<size_t>(2 * i + 1)] = -float(i);
  }
  return {tensor(rows, {n, 2}), arange(n)};
}

// Every batch's targets in one epoch, and each batch's size.
std::vector<int64_t> epoch_targets(data::ExampleLoader& loader, std::vector<int64_t>& sizes) {
  std::vector<int64_t> seen;
  sizes.clear();
  for (const auto& [data, target] : loader) {
    EXPECT_EQ(data.size(0), target.size(0));
    const auto t = target.to_vector<int64_t>();
    const auto d = data.to_vector<float>();
    for (std::size_t i = 0; i < t.size(); ++i) EXPECT_EQ(d[2 * i], float(t[i])) << "row " << i;
    seen.insert(seen.end(), t.begin(), t.end());
    sizes.push_back(data.size(0));
  }
  return seen;
}

TEST(TensorDatasetTest, GetSizeAndErrors) {
  const TensorDataset dataset = samples(7);
  EXPECT_EQ(dataset.size().value(), 7u);
  const Example e = dataset.get(3);
  EXPECT_EQ(e.data.to_vector<float>(), (std::vector<float>{3.0f, -3.0f}));
  EXPECT_EQ(e.target.item<int64_t>(), 3);
  EXPECT_EQ(error_of([&] { dataset.get(7); }),
            "TensorDataset::get: Expected index in [0, 7), but got 7");
  EXPECT_EQ(error_of([] {
              TensorDataset(zeros({3, 2}), arange(4));
            }),
            "TensorDataset: Expected as many targets as samples, but got 3 samples and 4 targets");
}

TEST(TensorDatasetTest, NormalizeMatchesAPlainLoopAndStackKeepsTheData) {
  const TensorDataset dataset = samples(5);
  const TensorDataset normal = dataset.map(data::transforms::Normalize<>(0.1307, 0.3081));
  const auto before = dataset.data().to_vector<float>();
  const auto after = normal.data().to_vector<float>();
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i)
    EXPECT_NEAR(after[i], (double(before[i]) - 0.1307) / 0.3081, 1e-5) << "element " << i;
  EXPECT_EQ(normal.targets().to_vector<int64_t>(), dataset.targets().to_vector<int64_t>());
  const TensorDataset stacked = normal.map(data::transforms::Stack<>());
  EXPECT_EQ(stacked.data().data_ptr<float>(), normal.data().data_ptr<float>());
  EXPECT_EQ(error_of([&] { dataset.map(data::transforms::Normalize<>(0.5, 0.0)); }),
            "Normalize: Expected stddev != 0, but got 0");
}

TEST(MakeDataLoaderTest, SequentialSamplerKeepsTheOrder) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(samples(7), 3);
  EXPECT_EQ(loader->size(), 3);
  std::vector<int64_t> sizes;
  std::vector<int64_t> all(7);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(epoch_targets(*loader, sizes), all);
  EXPECT_EQ(sizes, (std::vector<int64_t>{3, 3, 1}));
  EXPECT_EQ(error_of([] { data::make_data_loader(samples(2), 0); }),
            "make_data_loader: Expected batch_size >= 1, but got 0");
}

TEST(MakeDataLoaderTest, RandomSamplerShufflesEachEpochFromTheSeed) {
  manual_seed(3);
  auto loader = data::make_data_loader(samples(50), 8);  // RandomSampler, as LibTorch's default
  std::vector<int64_t> sizes;
  const auto first = epoch_targets(*loader, sizes);
  const auto second = epoch_targets(*loader, sizes);
  EXPECT_EQ(sizes.back(), 2);
  std::vector<int64_t> sorted = first, all(50);
  std::sort(sorted.begin(), sorted.end());
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(sorted, all);
  EXPECT_NE(first, all);
  EXPECT_NE(first, second);
  manual_seed(3);
  auto again = data::make_data_loader(samples(50), 8);
  EXPECT_EQ(epoch_targets(*again, sizes), first);
}

TEST(MnistDatasetTest, ReadsTheTrainingOrTheTestPart) {
  testing::TempFolder dir;
  const std::string root = dir.path();
  testing::write_gz(root + "/train-images-idx3-ubyte.gz",
                    testing::idx_bytes({5, 2, 3}, testing::iota_bytes(30)));
  testing::write_gz(root + "/train-labels-idx1-ubyte.gz", testing::idx_bytes({5}, {9, 0, 3, 3, 7}));
  testing::write_plain(root + "/t10k-images-idx3-ubyte",
                       testing::idx_bytes({3, 2, 3}, testing::iota_bytes(18, 100)));
  testing::write_plain(root + "/t10k-labels-idx1-ubyte", testing::idx_bytes({3}, {1, 2, 8}));
  const MNIST train(root);
  EXPECT_TRUE(train.is_train());
  EXPECT_EQ(train.images().shape(), Shape({5, 1, 2, 3}));
  EXPECT_EQ(train.targets().to_vector<int64_t>(), (std::vector<int64_t>{9, 0, 3, 3, 7}));
  EXPECT_FLOAT_EQ(train.get(1).data.to_vector<float>()[0], 7.0f * 6.0f / 255.0f);  // iota_bytes
  const MNIST test(root, MNIST::Mode::kTest);
  EXPECT_FALSE(test.is_train());
  EXPECT_EQ(test.size().value(), 3u);
  EXPECT_FLOAT_EQ(test.get(0).data.to_vector<float>()[0], 100.0f / 255.0f);
  EXPECT_EQ(test.targets().to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 8}));
}

TEST(OptionBuildersTest, OptimizersGetThePositionalOptions) {
  Tensor p = ones({3}).set_requires_grad(true);
  const optim::SGD sgd({p}, optim::SGDOptions(0.1).momentum(0.9).weight_decay(0.01).nesterov(true));
  const optim::SGD plain({p}, 0.1, 0.9, 0.01, true);
  EXPECT_EQ(static_cast<const optim::GroupOptions&>(sgd.param_groups()[0]),
            static_cast<const optim::GroupOptions&>(plain.param_groups()[0]));
  EXPECT_EQ(optim::SGDOptions(0.5).momentum(), 0.0);

  const optim::AdamW adamw({p}, optim::AdamWOptions(2e-3).betas({0.8, 0.9}).eps(1e-6));
  const optim::AdamW adamw_plain({p}, 2e-3, {0.8, 0.9}, 1e-6);
  EXPECT_EQ(static_cast<const optim::GroupOptions&>(adamw.param_groups()[0]),
            static_cast<const optim::GroupOptions&>(adamw_plain.param_groups()[0]));
  EXPECT_EQ(adamw.param_groups()[0].weight_decay, 1e-2);  // PyTorch's AdamW default
  const optim::Adam adam({p}, optim::AdamOptions().maximize(true));
  EXPECT_EQ(adam.param_groups()[0].weight_decay, 0.0);
  EXPECT_EQ(adam.param_groups()[0].lr, 1e-3);
  EXPECT_TRUE(adam.param_groups()[0].maximize);
}

TEST(OptionBuildersTest, Conv2dOptions) {
  const nn::Conv2d conv(nn::Conv2dOptions(3, 4, {5, 3}).stride(2).padding(1).bias(false));
  EXPECT_EQ(conv.in_channels, 3);
  EXPECT_EQ(conv.out_channels, 4);
  EXPECT_EQ(conv.weight.shape(), Shape({4, 3, 5, 3}));
  EXPECT_EQ(conv.stride.h, 2);
  EXPECT_EQ(conv.padding.w, 1);
  EXPECT_FALSE(conv.bias.defined());
  const nn::Conv2d plain(nn::Conv2dOptions(1, 10, 5));
  EXPECT_EQ(plain.stride.w, 1);
  EXPECT_EQ(plain.padding.h, 0);
  EXPECT_TRUE(plain.bias.defined());
}

TEST(HolderTest, ArrowAndStarReachTheLayerItself) {
  nn::Linear fc(3, 2);
  EXPECT_EQ(fc->weight.data_ptr<float>(), fc.weight.data_ptr<float>());
  EXPECT_EQ(fc->parameters().size(), 2u);
  nn::ModuleList blocks;
  blocks->push_back(std::make_shared<nn::ReLU>());
  EXPECT_EQ(&*blocks, &blocks);
  EXPECT_EQ((*blocks).size(), 1u);
  const nn::Dropout2d drop(0.25);
  EXPECT_EQ(drop->p, 0.25);
}

}  // namespace
}  // namespace torchlet
