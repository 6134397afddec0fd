// Data-parallel training over a ProcessGroup, as PyTorch's: DistributedDataParallel averages
// a module's gradients over the ranks in buckets launched as backward produces them, and
// DistributedSampler gives each rank its shard of a data set, reshuffled per epoch alike on
// every rank.
//
//   distributed::ProcessGroup group;
//   distributed::DistributedDataParallel ddp(*model, group);  // rank 0's weights everywhere
//   loss_fn(ddp(x_shard), y_shard).backward();                // buckets launched meanwhile
//   ddp.synchronize();                                        // mean gradients in .grad
//   optimizer.step();
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "torchlet/distributed.h"
#include "torchlet/nn/module.h"

namespace torchlet::distributed {

struct DdpOptions {
  // A bucket is closed once it holds this many bytes of gradients (PyTorch's bucket_cap_mb);
  // 0 puts every gradient in a bucket of its own.
  double bucket_cap_mb = 25.0;
};

// Wraps `module` (which must outlive it) for training on every rank of `group`. At
// construction every parameter and buffer is overwritten by rank 0's. The parameters are
// grouped into buckets in reverse parameters() order (the order backward produces their
// gradients), the same on every rank. A gradient hook on each parameter copies its gradient
// (.grad plus what this backward adds) into its bucket; a full bucket's mean all-reduce is
// launched at once, in bucket order, while backward goes on. synchronize() launches what is
// left (gradients computed without autograd, such as nn::FusedMlp's), waits for every bucket
// and writes the means into the parameters' .grad. Within a NoSync scope nothing is reduced:
// gradients accumulate locally, and the first synchronised backward after it averages the sum.
class DistributedDataParallel {
 public:
  DistributedDataParallel(nn::Module& module, ProcessGroup& group, DdpOptions options = {});
  ~DistributedDataParallel();
  DistributedDataParallel(const DistributedDataParallel&) = delete;
  DistributedDataParallel& operator=(const DistributedDataParallel&) = delete;

  Tensor operator()(const Tensor& input) { return module_(input); }
  nn::Module& module() noexcept { return module_; }
  ProcessGroup& group() noexcept { return group_; }

  // Call after backward, before the optimizer's step (a no-op inside a NoSync scope).
  void synchronize();

  // Gradient accumulation: while one lives, backward reduces nothing (PyTorch's no_sync()).
  class NoSync {
   public:
    explicit NoSync(DistributedDataParallel& ddp) : ddp_(ddp), was_(ddp.sync_off()) {
      ddp_.set_sync_off(true);
    }
    ~NoSync() { ddp_.set_sync_off(was_); }
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    DistributedDataParallel& ddp_;
    bool was_;
  };
  NoSync no_sync() { return NoSync(*this); }

  // The number of gradients (parameters) in each bucket, in launch order.
  std::vector<int64_t> bucket_sizes() const;
  // Seconds synchronize() spent waiting for all-reduces since construction (communication
  // not hidden behind backward), and the number of synchronised steps.
  double wait_s() const noexcept;
  int64_t steps() const noexcept;

 private:
  bool sync_off() const noexcept;
  void set_sync_off(bool off) noexcept;

  struct Reducer;  // shared with the gradient hooks, which outlive this object on the tensors
  nn::Module& module_;
  ProcessGroup& group_;
  std::shared_ptr<Reducer> reducer_;
};

struct SamplerOptions {
  bool shuffle = true;  // a new order every epoch, data::epoch_permutation(N, seed, epoch)
  uint64_t seed = 0;
  // Leave out the last N % world_size samples; otherwise the order is padded with its own
  // first samples up to a multiple of world_size (PyTorch's DistributedSampler).
  bool drop_last = false;
};

// Rank `rank`'s share of the samples 0..N-1 in epoch `epoch`: every world_size-th sample of the
// (padded) epoch order, starting at `rank`. With shuffle, every rank draws the same order, so
// the shards never overlap, and the union of the ranks' k-th batches of b samples is the k-th
// batch of world_size * b samples of that order (what one process with that batch size sees).
class DistributedSampler {
 public:
  DistributedSampler(int64_t dataset_size, int rank, int world_size, SamplerOptions options = {});
  DistributedSampler(int64_t dataset_size, const ProcessGroup& group, SamplerOptions options = {})
      : DistributedSampler(dataset_size, group.rank(), group.size(), options) {}

  void set_epoch(int64_t epoch) noexcept { epoch_ = epoch; }
  int64_t epoch() const noexcept { return epoch_; }
  // This rank's sample indices for the current epoch (num_samples() of them).
  std::vector<int64_t> indices() const;
  int64_t num_samples() const noexcept { return num_samples_; }

 private:
  int64_t size_, num_samples_;
  int rank_, world_;
  SamplerOptions options_;
  int64_t epoch_ = 0;
};

}  // namespace torchlet::distributed
