// Data-parallel scaling of the Fashion-MNIST image MLP (784-256-128-10, SGD, eager steps), one
// CPU thread a rank. Run under `mpirun -np 2`, in four phases: rank 0 trains alone on the global
// batch (the 1-rank baseline; the other ranks wait); every rank trains that baseline at the same
// time, without communication (the ceiling the machine allows: shared cores, caches, memory);
// every rank trains its share of each global batch without the all-reduce (DDP's compute
// alone); and every rank trains its share with DistributedDataParallel. Prints one JSON line:
// images/s of each phase and their ratios to the baseline, the communication time per step
// (the wait in synchronize()), every rank's step split (data, forward, backward, synchronize,
// optimizer) in ms, one all-reduce of all the gradients (and of one float) timed alone, and the
// load average (the machine may be shared). Not a test: ctest never runs it.
#include <torchlet/data/idx.h>
#include <torchlet/distributed/ddp.h>
#include <torchlet/threads.h>
#include <torchlet/torchlet.h>
#include <torchlet/train/models.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

namespace tl = torchlet;
namespace dist = torchlet::distributed;

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int64_t images = 12800;  // training images used (the first of Fashion-MNIST's)
  int64_t batch = 256;     // global batch
  int64_t epochs = 2;
  int64_t warmup = 5;  // steps before timing
  double bucket_cap_mb = dist::DdpOptions{}.bucket_cap_mb;
};

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

// Seconds a phase of the step took, summed over the timed steps.
struct Split {
  double data = 0.0, forward = 0.0, backward = 0.0, sync = 0.0, step = 0.0;
};

struct Run {
  int64_t steps = 0;
  double seconds = 0.0;
  Split split;
};

// Trains `epochs` epochs of shard `rank` of `world` (`local` images a step) and returns the
// timed steps, their seconds and how they split.
Run train(tl::nn::Module& model, dist::DistributedDataParallel* ddp, const tl::Tensor& x,
          const tl::Tensor& y, int rank, int world, int64_t local, const Options& o) {
  tl::optim::SGD sgd(model.parameters(), 0.01, 0.9);
  dist::DistributedSampler sampler(x.size(0), rank, world, {.seed = 1});
  Run run;
  auto lap = [](Clock::time_point& since, double& total) {
    const auto now = Clock::now();
    total += std::chrono::duration<double>(now - since).count();
    since = now;
  };
  auto steps = [&](int64_t epoch, int64_t limit, Split& split) {
    sampler.set_epoch(epoch);
    const tl::Tensor order = tl::tensor(sampler.indices());
    int64_t done = 0;
    for (int64_t first = 0; first + local <= order.size(0) && done < limit; first += local) {
      auto t = Clock::now();
      const tl::Tensor rows = order.slice(0, first, first + local);
      const tl::Tensor images = tl::index_select(x, rows), labels = tl::index_select(y, rows);
      lap(t, split.data);
      sgd.zero_grad();
      const tl::Tensor loss = tl::cross_entropy(model(images), labels);
      lap(t, split.forward);
      loss.backward();
      lap(t, split.backward);
      if (ddp) ddp->synchronize();
      lap(t, split.sync);
      sgd.step();
      lap(t, split.step);
      ++done;
    }
    return done;
  };
  Split warmup;
  steps(0, o.warmup, warmup);
  const auto start = Clock::now();
  for (int64_t e = 1; e <= o.epochs; ++e) run.steps += steps(e, INT64_MAX, run.split);
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return run;
}

// Milliseconds a step of `part`, of this rank alone or of every rank in rank order (JSON).
std::string per_rank_ms(dist::ProcessGroup* group, const Run& run, double Split::*part) {
  const double ms = run.steps ? 1e3 * run.split.*part / static_cast<double>(run.steps) : 0.0;
  const std::vector<double> all = group ? group->all_gather(ms) : std::vector<double>{ms};
  std::string text = "[";
  char number[32];
  for (std::size_t r = 0; r < all.size(); ++r) {
    std::snprintf(number, sizeof number, "%s%.3f", r ? ", " : "", all[r]);
    text += number;
  }
  return text + "]";
}

// The step's split as a JSON object (of every rank when `group` is given).
std::string split_json(dist::ProcessGroup* group, const Run& run) {
  return "{\"data\": " + per_rank_ms(group, run, &Split::data) +
         ", \"forward\": " + per_rank_ms(group, run, &Split::forward) +
         ", \"backward\": " + per_rank_ms(group, run, &Split::backward) +
         ", \"sync\": " + per_rank_ms(group, run, &Split::sync) +
         ", \"step\": " + per_rank_ms(group, run, &Split::step) + "}";
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app("Data-parallel scaling of the Fashion-MNIST MLP (run under mpirun -np 2)");
  app.add_option("--images", o.images, "Training images used")->capture_default_str();
  app.add_option("--batch", o.batch, "Global batch (split across the ranks)")
      ->capture_default_str();
  app.add_option("--epochs", o.epochs, "Timed epochs")->capture_default_str();
  app.add_option("--bucket-cap-mb", o.bucket_cap_mb, "DDP's bucket size")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    dist::ProcessGroup group;
    tl::set_num_threads(1);
    const tl::data::ImageSplit data = tl::data::load_fashion_mnist(o.images, 1);
    const tl::Tensor &x = data.train.images, &y = data.train.labels;
    auto make = [] {
      tl::manual_seed(0);
      return tl::nn::make_image_model("mlp", tl::nn::kImageMlpHidden, 1, 28, 28, 10).net;
    };
    const int rank = group.rank(), world = group.size();
    const int64_t local = o.batch / world;
    // The baseline: rank 0 alone, the whole global batch a step; the others wait at the barrier.
    Run one;
    if (rank == 0) {
      auto model = make();
      one = train(*model, nullptr, x, y, 0, 1, o.batch, o);
    }
    const double one_ips = static_cast<double>(one.steps * o.batch) / one.seconds;
    // The ceiling: every rank trains the baseline alone at the same time (no communication), so
    // the machine's cores, caches and memory are shared as under DDP.
    group.barrier();
    Run side;
    {
      auto model = make();
      side = train(*model, nullptr, x, y, 0, 1, o.batch, o);
    }
    double side_ips = 0.0;
    for (double ips : group.all_gather(static_cast<double>(side.steps * o.batch) / side.seconds))
      side_ips += ips;
    // Every rank its shard, `local` images a step, without the all-reduce: DDP's compute alone.
    // Images/s over all ranks is set by the slowest rank.
    group.barrier();
    Run shard;
    {
      auto model = make();
      shard = train(*model, nullptr, x, y, rank, world, local, o);
    }
    double shard_s = 0.0;
    for (double s : group.all_gather(shard.seconds)) shard_s = std::max(shard_s, s);
    const double shard_ips = static_cast<double>(shard.steps * o.batch) / shard_s;
    group.barrier();
    auto model = make();
    dist::DistributedDataParallel ddp(*model, group, {.bucket_cap_mb = o.bucket_cap_mb});
    const Run all = train(*model, &ddp, x, y, rank, world, local, o);
    const double all_ips = static_cast<double>(all.steps * o.batch) / all.seconds;
    const double wait_ms = 1e3 * ddp.wait_s() / static_cast<double>(ddp.steps());
    const std::string one_split = split_json(nullptr, one), shard_split = split_json(&group, shard),
                      all_split = split_json(&group, all);
    // All the gradients in one all-reduce, timed alone (0.9 MB).
    int64_t numel = 0;
    for (const tl::Tensor& p : model->parameters()) numel += p.numel();
    const tl::Tensor bucket = tl::zeros({numel});
    constexpr int kReps = 50;
    group.barrier();
    const auto start = Clock::now();
    for (int i = 0; i < kReps; ++i) group.all_reduce(bucket, dist::ReduceOp::Average);
    const double allreduce_ms =
        1e3 * std::chrono::duration<double>(Clock::now() - start).count() / kReps;
    // And of one float: the latency term of the scaling model (docs/distributed.md).
    const tl::Tensor one_float = tl::zeros({1});
    group.barrier();
    const auto small = Clock::now();
    for (int i = 0; i < kReps; ++i) group.all_reduce(one_float);
    const double latency_ms =
        1e3 * std::chrono::duration<double>(Clock::now() - small).count() / kReps;
    if (rank == 0)
      std::printf(
          "{\"bench\": \"ddp\", \"ranks\": %d, \"threads_per_rank\": 1, \"global_batch\": %lld, "
          "\"images_per_s_1rank\": %.1f, \"images_per_s_side_by_side\": %.1f, "
          "\"images_per_s_no_allreduce\": %.1f, \"images_per_s\": %.1f, \"speedup\": %.3f, "
          "\"speedup_side_by_side\": %.3f, \"speedup_no_allreduce\": %.3f, "
          "\"comm_wait_ms_per_step\": %.3f, \"buckets\": %zu, \"model_mb\": %.3f, "
          "\"allreduce_ms\": %.3f, \"allreduce_1float_ms\": %.4f, \"split_ms_1rank\": %s, "
          "\"split_ms_no_allreduce\": %s, \"split_ms\": %s, \"mpi\": \"%s\", "
          "\"loadavg\": \"%s\"}\n",
          world, static_cast<long long>(o.batch), one_ips, side_ips, shard_ips, all_ips,
          all_ips / one_ips, side_ips / one_ips, shard_ips / one_ips, wait_ms,
          ddp.bucket_sizes().size(), 4.0 * static_cast<double>(numel) / (1024.0 * 1024.0),
          allreduce_ms, latency_ms, one_split.c_str(), shard_split.c_str(), all_split.c_str(),
          group.library().c_str(), load_average().c_str());
  } catch (const tl::Error& e) {
    std::fprintf(stderr, "bench_ddp: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
