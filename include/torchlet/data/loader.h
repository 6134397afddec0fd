// DataLoader: mini-batches of a data set held in two tensors, in order or reshuffled each
// epoch, as PyTorch's DataLoader over a TensorDataset. It never copies samples one by one:
// an in-order batch is a view of the data, a shuffled one is one index_select (a gather on
// the data's device). Loading files is elsewhere (csv.h, idx.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "torchlet/tensor.h"

namespace torchlet::data {

struct LoaderOptions {
  int64_t batch_size = 64;  // samples per batch, >= 1
  bool shuffle = false;     // a new order every epoch (from seed and the epoch number)
  uint64_t seed = 0;
  bool drop_last = false;  // leave out a last batch smaller than batch_size
};

// One mini-batch: input [B, ...] and target [B, ...], B <= batch_size.
struct Batch {
  Tensor input, target;
};

// The order of the samples 0..n-1 in epoch `epoch` of a shuffling loader: a Fisher-Yates
// shuffle driven by std::mt19937_64 seeded from (seed, epoch), with no
// implementation-defined distribution in between, so it is the same on every platform.
std::vector<int64_t> epoch_permutation(int64_t n, uint64_t seed, int64_t epoch);

// Iterates over (inputs, targets) in batches:
//
//   data::DataLoader loader(images, labels, {.batch_size = 128, .shuffle = true, .seed = 1});
//   for (int epoch = 0; epoch < 10; ++epoch)
//     for (const data::Batch& b : loader) train_step(b.input, b.target);
//
// inputs is [N, ...] and targets [N, ...] (usually [N] class indices); both must be on the
// same device, CPU or CUDA, and stay there. Every begin() starts a new epoch: epochs are
// numbered 0, 1, 2, ... and, with shuffle, epoch k's order is epoch_permutation(N, seed, k).
// Without shuffle, a batch is a view (narrow) sharing the data's memory, so writing to it
// writes the data. With shuffle, a batch is a new tensor gathered on the data's device.
//
// On CUDA the whole data set is expected to live on the GPU (Fashion-MNIST's 60,000 training
// images are 188 MB as float32): the only host-to-device copy is the epoch's permutation, made
// once per epoch in begin() (8 bytes per sample). Nothing in the loader waits for the GPU.
// The loader keeps handles to the tensors (not copies); it is not safe to iterate one loader
// from several threads.
class DataLoader {
 public:
  // Throws torchlet::Error unless both tensors are defined and have at least one dimension,
  // the same first size and the same device, and options.batch_size >= 1.
  DataLoader(Tensor inputs, Tensor targets, LoaderOptions options = {});

  // An input iterator over one epoch's batches; each iterator keeps its epoch's order, so
  // starting another epoch does not disturb one in progress.
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;
    using pointer = const Batch*;
    using reference = const Batch&;

    Iterator() = default;
    const Batch& operator*() const noexcept { return batch_; }
    const Batch* operator->() const noexcept { return &batch_; }
    Iterator& operator++();
    void operator++(int) { ++*this; }
    friend bool operator==(const Iterator& a, const Iterator& b) noexcept {
      return a.index_ == b.index_;
    }

   private:
    friend class DataLoader;
    Iterator(const DataLoader* loader, Tensor order, int64_t index);
    void load();  // fills batch_ for index_

    const DataLoader* loader_ = nullptr;
    Tensor order_;  // the epoch's permutation on the data's device; undefined without shuffle
    int64_t index_ = 0;
    Batch batch_;
  };

  // Starts the next epoch (the first call starts epoch 0).
  Iterator begin();
  Iterator end() const;

  // Batches per epoch: ceil(N / batch_size), or floor with drop_last.
  int64_t size() const noexcept;
  // N, the number of samples.
  int64_t dataset_size() const noexcept { return inputs_.size(0); }
  // The number the next begin() gives its epoch; set it to resume training at an epoch.
  int64_t next_epoch() const noexcept { return next_epoch_; }
  void set_next_epoch(int64_t epoch);
  const LoaderOptions& options() const noexcept { return options_; }
  const Tensor& inputs() const noexcept { return inputs_; }
  const Tensor& targets() const noexcept { return targets_; }

 private:
  Tensor inputs_, targets_;
  LoaderOptions options_;
  int64_t next_epoch_ = 0;
};

}  // namespace torchlet::data
