// DistributedDataParallel's reducer (buckets filled by gradient hooks, launched in bucket order,
// waited for in synchronize()) and DistributedSampler's shards.
#include "torchlet/distributed/ddp.h"

#include <chrono>
#include <numeric>

#include "torchlet/autograd.h"
#include "torchlet/data/loader.h"
#include "torchlet/error.h"

namespace torchlet::distributed {

struct DistributedDataParallel::Reducer {
  struct Slot {
    Tensor param;
    int bucket = 0;
    int64_t offset = 0;  // in its bucket's flat buffer
    bool ready = false;  // this step's gradient is in the buffer
  };
  struct Bucket {
    Tensor flat;               // the bucket's gradients, end to end (float32)
    std::vector<int> members;  // slot indices
    int ready = 0;
    bool launched = false;
    Work work;
  };

  explicit Reducer(ProcessGroup& g) : group(g) {}

  ProcessGroup& group;
  std::vector<Slot> slots;
  std::vector<Bucket> buckets;
  std::size_t next = 0;  // the next bucket to launch: buckets go out in index order
  bool sync_off = false;
  double wait_s = 0.0;
  int64_t steps = 0;

  // Parameter i's full gradient for this step (.grad plus `added`, this backward's share).
  void fill(int i, const Tensor& added) {
    Slot& s = slots[static_cast<std::size_t>(i)];
    Bucket& b = buckets[static_cast<std::size_t>(s.bucket)];
    TORCHLET_CHECK(!s.ready && !b.launched,
                   "DistributedDataParallel: Expected synchronize() (or a no_sync scope) between "
                   "two backward passes, but got a second gradient for parameter ",
                   i, " in one step");
    const Tensor old = s.param.grad();
    const Tensor full =
        old.defined()
            ? (added.defined() ? old + added : old)
            : (added.defined() ? added : zeros(s.param.shape(), TensorOptions(s.param.device())));
    const int64_t n = s.param.numel();
    NoGradGuard no_grad;
    b.flat.narrow(0, s.offset, n).copy_(full.reshape({n}));
    s.ready = true;
    ++b.ready;
    // The buckets already sent move on while backward computes the rest.
    for (std::size_t k = 0; k < next; ++k) buckets[k].work.is_completed();
    while (next < buckets.size() &&
           buckets[next].ready == static_cast<int>(buckets[next].members.size())) {
      buckets[next].work = group.all_reduce_async(buckets[next].flat, ReduceOp::Average);
      buckets[next].launched = true;
      ++next;
    }
  }

  void synchronize() {
    if (sync_off) return;
    for (std::size_t i = 0; i < slots.size(); ++i)
      if (!slots[i].ready) fill(static_cast<int>(i), Tensor());
    const auto start = std::chrono::steady_clock::now();
    for (Bucket& b : buckets) b.work.wait();
    wait_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    NoGradGuard no_grad;
    for (Slot& s : slots) {
      const Bucket& b = buckets[static_cast<std::size_t>(s.bucket)];
      const Tensor reduced = b.flat.narrow(0, s.offset, s.param.numel()).reshape(s.param.shape());
      // As PyTorch's reducer: into the gradient backward left (no allocation), else a copy.
      if (Tensor grad = s.param.grad(); grad.defined() && grad.is_contiguous())
        grad.copy_(reduced);
      else
        s.param.set_grad(reduced.clone());
      s.ready = false;
    }
    for (Bucket& b : buckets) b.ready = 0, b.launched = false;
    next = 0;
    ++steps;
  }
};

DistributedDataParallel::DistributedDataParallel(nn::Module& module, ProcessGroup& group,
                                                 DdpOptions options)
    : module_(module), group_(group), reducer_(std::make_shared<Reducer>(group)) {
  TORCHLET_CHECK(options.bucket_cap_mb >= 0.0,
                 "DistributedDataParallel: Expected bucket_cap_mb >= 0, but got ",
                 options.bucket_cap_mb);
  {
    NoGradGuard no_grad;
    for (const Tensor& t : module.parameters()) group.broadcast(t, 0);
    for (const Tensor& t : module.buffers())
      if (t.defined()) group.broadcast(t, 0);
  }
  const double cap = options.bucket_cap_mb * 1024.0 * 1024.0;
  const std::vector<Tensor> params = module.parameters();
  Reducer& r = *reducer_;
  double bytes = 0.0;
  int64_t numel = 0;
  std::vector<int> members;
  auto close = [&](const Device& device) {
    if (members.empty()) return;
    for (int i : members)
      r.slots[static_cast<std::size_t>(i)].bucket = static_cast<int>(r.buckets.size());
    r.buckets.push_back({zeros({numel}, TensorOptions(device)), members, 0, false, {}});
    members.clear(), bytes = 0.0, numel = 0;
  };
  for (auto it = params.rbegin(); it != params.rend(); ++it) {
    const Tensor& p = *it;
    if (!p.requires_grad()) continue;
    TORCHLET_CHECK(p.dtype() == kFloat32, "DistributedDataParallel: Expected float32 parameters, ",
                   "but got ", p.dtype());
    if (!r.slots.empty() && p.device() != r.slots.front().param.device())
      TORCHLET_CHECK(false, "DistributedDataParallel: Expected every parameter on one device (",
                     r.slots.front().param.device(), "), but got one on ", p.device());
    const int index = static_cast<int>(r.slots.size());
    r.slots.push_back({p, 0, numel, false});
    members.push_back(index);
    numel += p.numel();
    bytes += 4.0 * static_cast<double>(p.numel());
    if (bytes >= cap) close(p.device());
    p.register_hook([weak = std::weak_ptr<Reducer>(reducer_), index](const Tensor& g) {
      if (const auto reducer = weak.lock(); reducer && !reducer->sync_off) reducer->fill(index, g);
    });
  }
  if (!r.slots.empty()) close(r.slots.front().param.device());
}

DistributedDataParallel::~DistributedDataParallel() = default;

void DistributedDataParallel::synchronize() { reducer_->synchronize(); }

bool DistributedDataParallel::sync_off() const noexcept { return reducer_->sync_off; }
void DistributedDataParallel::set_sync_off(bool off) noexcept { reducer_->sync_off = off; }

std::vector<int64_t> DistributedDataParallel::bucket_sizes() const {
  std::vector<int64_t> sizes;
  for (const auto& b : reducer_->buckets) sizes.push_back(static_cast<int64_t>(b.members.size()));
  return sizes;
}

double DistributedDataParallel::wait_s() const noexcept { return reducer_->wait_s; }
int64_t DistributedDataParallel::steps() const noexcept { return reducer_->steps; }

DistributedSampler::DistributedSampler(int64_t dataset_size, int rank, int world_size,
                                       SamplerOptions options)
    : size_(dataset_size), rank_(rank), world_(world_size), options_(options) {
  TORCHLET_CHECK(world_size >= 1 && rank >= 0 && rank < world_size,
                 "DistributedSampler: Expected 0 <= rank < world_size, but got rank ", rank, " of ",
                 world_size);
  TORCHLET_CHECK(dataset_size >= world_size,
                 "DistributedSampler: Expected at least one sample a rank (", world_size,
                 "), but got ", dataset_size);
  num_samples_ =
      options.drop_last ? dataset_size / world_size : (dataset_size + world_size - 1) / world_size;
}

std::vector<int64_t> DistributedSampler::indices() const {
  std::vector<int64_t> order;
  if (options_.shuffle) {
    order = data::epoch_permutation(size_, options_.seed, epoch_);
  } else {
    order.resize(static_cast<std::size_t>(size_));
    std::iota(order.begin(), order.end(), 0);
  }
  const auto total = static_cast<std::size_t>(num_samples_ * world_);
  for (std::size_t k = 0; order.size() < total; ++k) {  // padding: the order again from its start
    const int64_t again = order[k];
    order.push_back(again);
  }
  std::vector<int64_t> mine;
  mine.reserve(static_cast<std::size_t>(num_samples_));
  for (std::size_t i = static_cast<std::size_t>(rank_); i < total;
       i += static_cast<std::size_t>(world_))
    mine.push_back(order[i]);
  return mine;
}

}  // namespace torchlet::distributed
