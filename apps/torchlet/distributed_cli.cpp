// The CLI's distributed run: the process group, the error agreement before training, the shard
// and DistributedDataParallel for the fit loop. A build without MPI keeps one process.
#include "distributed_cli.h"

#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <optional>

#include "commands.h"
#include "torchlet/error.h"
#ifdef TORCHLET_WITH_DISTRIBUTED
#include "torchlet/distributed/ddp.h"
#endif

namespace torchlet::cli {

namespace {

// The exit status main() gives an exception.
int status_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const ExitStatus& e) {
    return e.status;
  } catch (const Error& e) {
    return exit_status_for(e.kind());
  } catch (const std::bad_alloc&) {
    return kExitDevice;
  } catch (...) {
  }
  return kExitInternal;
}

}  // namespace

#ifdef TORCHLET_WITH_DISTRIBUTED

struct DistributedCli::State {
  std::optional<distributed::ProcessGroup> group;
  std::optional<distributed::DistributedDataParallel> ddp;
  std::optional<distributed::DistributedSampler> sampler;
  bool ready = false;
};

DistributedCli::DistributedCli() : s_(std::make_unique<State>()) {
  if (distributed::environment().world_size <= 1) return;
  s_->group.emplace();
  // Rank 0 alone prints: the others' reports (and --json) go nowhere.
  if (s_->group->rank() != 0 && !std::freopen("/dev/null", "w", stdout))
    TORCHLET_CHECK_KIND(IO, false, "rank ", s_->group->rank(),
                        ": Expected to open /dev/null for its output, but got an error");
}

DistributedCli::~DistributedCli() = default;

bool DistributedCli::active() const noexcept { return s_->group && s_->group->size() > 1; }
int DistributedCli::rank() const noexcept { return s_->group ? s_->group->rank() : 0; }
int DistributedCli::size() const noexcept { return s_->group ? s_->group->size() : 1; }

void DistributedCli::run(const std::function<void()>& command) {
  try {
    command();
  } catch (...) {
    if (!active() || s_->ready) throw;
    // Agreed with the other ranks' ready() (the same all_gather): the lowest failing rank
    // reports its error, the others end with its status without a word.
    const std::vector<int64_t> statuses =
        s_->group->all_gather(static_cast<int64_t>(status_of(std::current_exception())));
    for (std::size_t r = 0; r < statuses.size(); ++r) {
      if (statuses[r] == 0) continue;
      if (static_cast<int>(r) == rank()) throw;
      throw ExitStatus{static_cast<int>(statuses[r])};
    }
    throw;
  }
}

void DistributedCli::ready() {
  if (!active() || s_->ready) return;
  s_->ready = true;
  for (int64_t status : s_->group->all_gather(int64_t{0}))
    if (status != 0) throw ExitStatus{static_cast<int>(status)};
}

void DistributedCli::shard(nn::Module& model, TrainOptions& options, int64_t rows,
                           int64_t global_batch, uint64_t seed, bool shuffle) {
  TORCHLET_CHECK(global_batch % size() == 0, "--batch-size: Expected a multiple of the ", size(),
                 " ranks (the global batch is split evenly), but got ", global_batch);
  TORCHLET_CHECK(rows >= size(), "--data: Expected at least one training row a rank (", size(),
                 "), but got ", rows);
  ready();
  if (!active()) return;
  s_->sampler.emplace(rows, *s_->group, distributed::SamplerOptions{shuffle, seed, false});
  s_->ddp.emplace(model, *s_->group);
  // Full batch: each rank's whole shard; otherwise the global batch split evenly.
  options.batch_size = global_batch / size();
  // The fit loop numbers epochs from 1, DataLoader from 0: with the loader's numbers the global
  // batches are those of one process's `torchlet train --data fashion-mnist`.
  options.sampler = [sampler = &*s_->sampler](int64_t epoch) {
    sampler->set_epoch(epoch - 1);
    return sampler->indices();
  };
  options.before_step = [ddp = &*s_->ddp] { ddp->synchronize(); };
}

double DistributedCli::mean(double value) {
  if (!active()) return value;
  double sum = 0.0;
  for (double v : s_->group->all_gather(value)) sum += v;
  return sum / size();
}

void DistributedCli::average(std::vector<float>& values) {
  if (!active() || values.empty()) return;
  const Tensor t = tensor(values);
  s_->group->all_reduce(t, distributed::ReduceOp::Average);
  values = t.to_vector<float>();
}

DistributedCli::CommSummary DistributedCli::comm_summary() {
  if (!active()) return {};
  const double wait = s_->ddp ? s_->ddp->wait_s() : 0.0;
  return {size(), s_->ddp ? s_->ddp->steps() : 0, mean(wait)};
}

RanksInfo ranks_info() {
  const distributed::Environment env = distributed::environment();
  return {env.rank, env.world_size, env.local_rank, env.launcher, true};
}

#else  // a build without MPI: one process

struct DistributedCli::State {};

DistributedCli::DistributedCli() {
  for (const char* size : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    const char* text = std::getenv(size);
    TORCHLET_CHECK(!text || std::atoi(text) <= 1, "torchlet: Expected one process (", size, "=",
                   text ? text : "", "), but this torchlet was built without MPI ",
                   "(install libopenmpi-dev and rebuild)");
  }
}
DistributedCli::~DistributedCli() = default;
bool DistributedCli::active() const noexcept { return false; }
int DistributedCli::rank() const noexcept { return 0; }
int DistributedCli::size() const noexcept { return 1; }
void DistributedCli::run(const std::function<void()>& command) { command(); }
void DistributedCli::ready() {}
void DistributedCli::shard(nn::Module&, TrainOptions&, int64_t, int64_t, uint64_t, bool) {}
double DistributedCli::mean(double value) { return value; }
void DistributedCli::average(std::vector<float>&) {}
DistributedCli::CommSummary DistributedCli::comm_summary() { return {}; }
RanksInfo ranks_info() { return {}; }

#endif

void print_comm_summary(std::FILE* out, const DistributedCli::CommSummary& c, double train_s) {
  if (c.ranks <= 1 || c.steps == 0 || train_s <= 0.0) return;
  const double share = c.wait_s / train_s;
  fmt::print(
      out, "ranks:     {}, all-reduce wait {:.2f} ms per step ({:.1f} of {:.1f} s, {:.0f}%)\n",
      c.ranks, c.wait_s / static_cast<double>(c.steps) * 1e3, c.wait_s, train_s, share * 100.0);
  // Measured on the idle 2-core machine (docs/distributed.md), Fashion-MNIST's MLP: at the
  // default 64 images a step the ranks waited 22% of the time and 2 ranks ran at 0.81x of one
  // process; at 1024 they waited 9% and ran at 1.82x.
  if (share >= 0.15)
    fmt::print(out,
               "note:      the ranks waited for each other's gradients {:.0f}% of the time: a step "
               "is too short to share (a larger --batch-size amortises it, docs/distributed.md)\n",
               share * 100.0);
}

}  // namespace torchlet::cli
