// DataLoader and epoch_permutation: the epoch's order is built on the host, sent to the data's
// device once per epoch, and each shuffled batch is an index_select with a slice of it.
#include "torchlet/data/loader.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "torchlet/error.h"
#include "torchlet/functional.h"

namespace torchlet::data {
namespace {

// A uniform integer in [0, bound) from rng's 64-bit outputs. Rejecting the top values that
// would make some remainders more likely keeps it exactly uniform; unlike
// std::uniform_int_distribution, the algorithm is ours, so every platform gets the same value.
uint64_t uniform_below(std::mt19937_64& rng, uint64_t bound) {
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  const uint64_t limit = max - max % bound;  // a multiple of bound
  uint64_t x = rng();
  while (x >= limit) x = rng();
  return x % bound;
}

}  // namespace

std::vector<int64_t> epoch_permutation(int64_t n, uint64_t seed, int64_t epoch) {
  TORCHLET_CHECK(n >= 0, "epoch_permutation: Expected n >= 0, but got ", n);
  TORCHLET_CHECK(epoch >= 0, "epoch_permutation: Expected epoch >= 0, but got ", epoch);
  // std::seed_seq's mixing is specified by the standard, so it too is the same everywhere.
  const auto e = static_cast<uint64_t>(epoch);
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                    static_cast<uint32_t>(e), static_cast<uint32_t>(e >> 32)};
  std::mt19937_64 rng(seq);
  std::vector<int64_t> order(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  for (int64_t i = n - 1; i > 0; --i) {  // Fisher-Yates: swap i with a j in [0, i]
    const auto j = static_cast<int64_t>(uniform_below(rng, static_cast<uint64_t>(i) + 1));
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
  }
  return order;
}

DataLoader::DataLoader(Tensor inputs, Tensor targets, LoaderOptions options)
    : inputs_(std::move(inputs)), targets_(std::move(targets)), options_(options) {
  TORCHLET_CHECK(inputs_.defined(), "DataLoader: Expected a defined inputs tensor, but got an ",
                 "undefined one");
  TORCHLET_CHECK(targets_.defined(), "DataLoader: Expected a defined targets tensor, but got an ",
                 "undefined one");
  TORCHLET_CHECK(inputs_.dim() >= 1 && targets_.dim() >= 1,
                 "DataLoader: Expected inputs and targets with at least one dimension (samples "
                 "first), but got inputs ",
                 inputs_.shape(), " and targets ", targets_.shape());
  TORCHLET_CHECK(inputs_.size(0) == targets_.size(0),
                 "DataLoader: Expected inputs and targets with the same number of samples (first "
                 "dimension), but got inputs ",
                 inputs_.shape(), " and targets ", targets_.shape());
  TORCHLET_CHECK(inputs_.device() == targets_.device(),
                 "DataLoader: Expected inputs and targets on the same device, but got inputs on ",
                 inputs_.device(), " and targets on ", targets_.device());
  TORCHLET_CHECK(options_.batch_size >= 1, "DataLoader: Expected batch_size >= 1, but got ",
                 options_.batch_size);
}

int64_t DataLoader::size() const noexcept {
  const int64_t n = dataset_size(), b = options_.batch_size;
  return options_.drop_last ? n / b : (n + b - 1) / b;
}

void DataLoader::set_next_epoch(int64_t epoch) {
  TORCHLET_CHECK(epoch >= 0, "DataLoader::set_next_epoch: Expected epoch >= 0, but got ", epoch);
  next_epoch_ = epoch;
}

DataLoader::Iterator DataLoader::begin() {
  const int64_t epoch = next_epoch_++;
  Tensor order;
  if (options_.shuffle) {
    // The one host-to-device copy of the epoch.
    order = tensor(epoch_permutation(dataset_size(), options_.seed, epoch), inputs_.device());
  }
  return Iterator(this, std::move(order), 0);
}

DataLoader::Iterator DataLoader::end() const { return Iterator(this, Tensor(), size()); }

DataLoader::Iterator::Iterator(const DataLoader* loader, Tensor order, int64_t index)
    : loader_(loader), order_(std::move(order)), index_(index) {
  load();
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  ++index_;
  load();
  return *this;
}

void DataLoader::Iterator::load() {
  if (index_ >= loader_->size()) {  // the end: no batch
    batch_ = Batch();
    return;
  }
  const int64_t batch_size = loader_->options_.batch_size;
  const int64_t start = index_ * batch_size;
  const int64_t length = std::min(batch_size, loader_->dataset_size() - start);
  if (!order_.defined()) {
    batch_ = {loader_->inputs_.narrow(0, start, length),
              loader_->targets_.narrow(0, start, length)};
    return;
  }
  const Tensor rows = order_.narrow(0, start, length);
  batch_ = {index_select(loader_->inputs_, rows), index_select(loader_->targets_, rows)};
}

}  // namespace torchlet::data
