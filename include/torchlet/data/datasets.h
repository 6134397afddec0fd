// LibTorch's data API as its MNIST example uses it: datasets::MNIST, transforms::Normalize<> and
// Stack<>, and make_data_loader with a sequential or random sampler, over torchlet's DataLoader.
// A dataset here holds all its samples as two tensors (data [N, ...], targets [N]), so a batch
// is one slice or gather of them, never a stack of single samples; IDX reading is in idx.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "torchlet/data/loader.h"
#include "torchlet/tensor.h"

namespace torchlet::data {

// One sample or one batch, as LibTorch's Example<>: data and target.
struct Example {
  Tensor data, target;
};

namespace transforms {
// (data - mean) / stddev, the target unchanged, as LibTorch's Normalize<>.
template <typename Target = Tensor>
struct Normalize {
  Normalize(double mean, double stddev) : mean(mean), stddev(stddev) {}
  double mean, stddev;
};
// LibTorch's collation of a batch's examples into one Example of stacked tensors. Batches of
// a TensorDataset are stacked already, so mapping Stack<> keeps the dataset as it is.
template <typename T = Example>
struct Stack {};
}  // namespace transforms

namespace datasets {

// Samples held as two tensors on one device: data [N, ...] and targets [N, ...].
class TensorDataset {
 public:
  // Throws torchlet::Error unless both are defined with the same first size.
  TensorDataset(Tensor data, Tensor targets);
  // Sample `index` (0 <= index < size()): data[index] and targets[index], views.
  Example get(int64_t index) const;
  // LibTorch's size(), an optional (a stream dataset has none); always set here.
  std::optional<std::size_t> size() const { return static_cast<std::size_t>(data_.size(0)); }
  // A dataset with data normalised by `normalize` (computed now, once, for all samples).
  TensorDataset map(const transforms::Normalize<>& normalize) const;
  TensorDataset map(const transforms::Stack<>&) const { return *this; }
  const Tensor& data() const noexcept { return data_; }
  const Tensor& targets() const noexcept { return targets_; }

 private:
  Tensor data_, targets_;
};

// The four MNIST-style IDX files in `root` (see load_mnist_dir: MNIST's names, with or without
// .gz): images [N, 1, 28, 28] float32 in [0, 1] and int64 labels, of the training part (60,000
// samples in MNIST and Fashion-MNIST) or the test part (10,000). Throws as load_mnist_dir does.
class MNIST : public TensorDataset {
 public:
  enum class Mode { kTrain, kTest };
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);
  bool is_train() const noexcept { return mode_ == Mode::kTrain; }
  const Tensor& images() const noexcept { return data(); }

 private:
  Mode mode_;
};

}  // namespace datasets

namespace samplers {
// LibTorch's two samplers: the dataset's order, or a new random order every epoch (its seed
// drawn from the generator manual_seed() sets when the loader is made).
struct SequentialSampler {};
struct RandomSampler {};
}  // namespace samplers

// make_data_loader's loader: DataLoader's batches as Examples (batch.data, batch.target).
class ExampleLoader {
 public:
  ExampleLoader(const datasets::TensorDataset& dataset, LoaderOptions options)
      : loader_(dataset.data(), dataset.targets(), options) {}

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Example;
    using difference_type = std::ptrdiff_t;
    Iterator() = default;
    explicit Iterator(DataLoader::Iterator it) : it_(std::move(it)) { load(); }
    const Example& operator*() const noexcept { return example_; }
    const Example* operator->() const noexcept { return &example_; }
    Iterator& operator++() {
      ++it_;
      load();
      return *this;
    }
    void operator++(int) { ++*this; }
    friend bool operator==(const Iterator& a, const Iterator& b) noexcept { return a.it_ == b.it_; }

   private:
    void load() { example_ = Example{it_->input, it_->target}; }
    DataLoader::Iterator it_;
    Example example_;
  };

  // Starts the next epoch.
  Iterator begin() { return Iterator(loader_.begin()); }
  Iterator end() const { return Iterator(loader_.end()); }
  int64_t size() const noexcept { return loader_.size(); }  // batches per epoch
  const DataLoader& loader() const noexcept { return loader_; }

 private:
  DataLoader loader_;
};

// LibTorch's make_data_loader<Sampler>(dataset, batch_size): batches of batch_size in the
// sampler's order (RandomSampler by default, as LibTorch's), the last one smaller when
// batch_size does not divide the dataset's size.
std::unique_ptr<ExampleLoader> make_data_loader(const datasets::TensorDataset& dataset,
                                                std::size_t batch_size,
                                                samplers::RandomSampler sampler = {});
std::unique_ptr<ExampleLoader> make_data_loader(const datasets::TensorDataset& dataset,
                                                std::size_t batch_size,
                                                samplers::SequentialSampler sampler);
template <typename Sampler>
std::unique_ptr<ExampleLoader> make_data_loader(const datasets::TensorDataset& dataset,
                                                std::size_t batch_size) {
  return make_data_loader(dataset, batch_size, Sampler{});
}

}  // namespace torchlet::data
