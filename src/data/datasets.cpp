// TensorDataset, MNIST and make_data_loader (torchlet/data/datasets.h).
#include "torchlet/data/datasets.h"

#include <limits>

#include "torchlet/data/idx.h"
#include "torchlet/error.h"

namespace torchlet::data {
namespace datasets {

TensorDataset::TensorDataset(Tensor data, Tensor targets)
    : data_(std::move(data)), targets_(std::move(targets)) {
  TORCHLET_CHECK(data_.defined() && targets_.defined() && data_.dim() >= 1 && targets_.dim() >= 1,
                 "TensorDataset: Expected defined data and targets with at least one dimension, "
                 "but got ",
                 data_.defined() ? data_.dim() : -1, " and ",
                 targets_.defined() ? targets_.dim() : -1, " dimensions");
  TORCHLET_CHECK(data_.size(0) == targets_.size(0),
                 "TensorDataset: Expected as many targets as samples, but got ", data_.size(0),
                 " samples and ", targets_.size(0), " targets");
}

Example TensorDataset::get(int64_t index) const {
  TORCHLET_CHECK(index >= 0 && index < data_.size(0), "TensorDataset::get: Expected index in [0, ",
                 data_.size(0), "), but got ", index);
  return {data_[index], targets_[index]};
}

TensorDataset TensorDataset::map(const transforms::Normalize<>& normalize) const {
  TORCHLET_CHECK(normalize.stddev != 0.0, "Normalize: Expected stddev != 0, but got 0");
  return {(data_ - normalize.mean) / normalize.stddev, targets_};
}

MNIST::MNIST(const std::string& root, Mode mode)
    : TensorDataset([&] {
        // The other part is read and checked too, but none of its samples is kept.
        ImageSplit split =
            mode == Mode::kTrain ? load_mnist_dir(root, -1, 0) : load_mnist_dir(root, 0, -1);
        ImageData& part = mode == Mode::kTrain ? split.train : split.test;
        return TensorDataset(part.images, part.labels);
      }()),
      mode_(mode) {}

}  // namespace datasets

namespace {
std::unique_ptr<ExampleLoader> make_loader(const datasets::TensorDataset& dataset,
                                           std::size_t batch_size, bool shuffle, uint64_t seed) {
  TORCHLET_CHECK(batch_size >= 1 && batch_size <= std::numeric_limits<int64_t>::max(),
                 "make_data_loader: Expected batch_size >= 1, but got ", batch_size);
  return std::make_unique<ExampleLoader>(
      dataset,
      LoaderOptions{
          .batch_size = static_cast<int64_t>(batch_size), .shuffle = shuffle, .seed = seed});
}
}  // namespace

std::unique_ptr<ExampleLoader> make_data_loader(const datasets::TensorDataset& dataset,
                                                std::size_t batch_size, samplers::RandomSampler) {
  const auto seed = randint(0, std::numeric_limits<int64_t>::max(), {1}).item<int64_t>();
  return make_loader(dataset, batch_size, true, static_cast<uint64_t>(seed));
}

std::unique_ptr<ExampleLoader> make_data_loader(const datasets::TensorDataset& dataset,
                                                std::size_t batch_size,
                                                samplers::SequentialSampler) {
  return make_loader(dataset, batch_size, false, 0);
}

}  // namespace torchlet::data
