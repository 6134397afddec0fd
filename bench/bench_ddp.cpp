// Data-parallel scaling of the Fashion-MNIST image MLP (784-256-128-10, SGD, eager steps), one
// CPU thread a rank. Run under `mpirun -np 2`: rank 0 first trains alone on the global batch
// (the 1-rank baseline; the other ranks wait), then every rank trains its half of each global
// batch with DistributedDataParallel. Prints one JSON line: images/s of both, their ratio, the
// communication time per step (the wait in synchronize()) and the time of one bucket's
// all-reduce (and of one float), and the load average (the machine may be shared). Not a test:
// ctest never runs it.
#include <torchlet/data/idx.h>
#include <torchlet/distributed/ddp.h>
#include <torchlet/threads.h>
#include <torchlet/torchlet.h>
#include <torchlet/train/models.h>

#include <CLI/CLI.hpp>
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
};

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

// Trains `epochs` epochs of this rank's shard and returns images/s over all ranks (the
// global batches per second times the global batch).
double images_per_s(tl::nn::Module& model, dist::DistributedDataParallel* ddp, const tl::Tensor& x,
                    const tl::Tensor& y, int rank, int world, const Options& o) {
  tl::optim::SGD sgd(model.parameters(), 0.01, 0.9);
  dist::DistributedSampler sampler(x.size(0), rank, world, {.seed = 1});
  const int64_t local = o.batch / world;
  auto steps = [&](int64_t epoch, int64_t limit) {
    sampler.set_epoch(epoch);
    const tl::Tensor order = tl::tensor(sampler.indices());
    int64_t done = 0;
    for (int64_t first = 0; first + local <= order.size(0) && done < limit; first += local) {
      const tl::Tensor rows = order.slice(0, first, first + local);
      sgd.zero_grad();
      tl::cross_entropy(model(tl::index_select(x, rows)), tl::index_select(y, rows)).backward();
      if (ddp) ddp->synchronize();
      sgd.step();
      ++done;
    }
    return done;
  };
  steps(0, o.warmup);
  const auto start = Clock::now();
  int64_t done = 0;
  for (int64_t e = 1; e <= o.epochs; ++e) done += steps(e, INT64_MAX);
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  return static_cast<double>(done * o.batch) / s;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app("Data-parallel scaling of the Fashion-MNIST MLP (run under mpirun -np 2)");
  app.add_option("--images", o.images, "Training images used")->capture_default_str();
  app.add_option("--batch", o.batch, "Global batch (split across the ranks)")
      ->capture_default_str();
  app.add_option("--epochs", o.epochs, "Timed epochs")->capture_default_str();
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
    // The baseline: rank 0 alone, the whole global batch a step; the others wait at the barrier.
    double one = 0.0;
    if (group.rank() == 0) {
      auto model = make();
      one = images_per_s(*model, nullptr, x, y, 0, 1, o);
    }
    group.barrier();
    auto model = make();
    dist::DistributedDataParallel ddp(*model, group);
    const double all = images_per_s(*model, &ddp, x, y, group.rank(), group.size(), o);
    const double wait_ms = 1e3 * ddp.wait_s() / static_cast<double>(ddp.steps());
    // One bucket's all-reduce alone (every gradient: the model is one 0.9 MB bucket).
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
    if (group.rank() == 0)
      std::printf(
          "{\"bench\": \"ddp\", \"ranks\": %d, \"threads_per_rank\": 1, \"global_batch\": %lld, "
          "\"images_per_s_1rank\": %.1f, \"images_per_s\": %.1f, \"speedup\": %.3f, "
          "\"comm_wait_ms_per_step\": %.3f, \"buckets\": %zu, \"bucket_mb\": %.3f, "
          "\"allreduce_ms\": %.3f, \"allreduce_1float_ms\": %.4f, \"mpi\": \"%s\", \"loadavg\": "
          "\"%s\"}\n",
          group.size(), static_cast<long long>(o.batch), one, all, all / one, wait_ms,
          ddp.bucket_sizes().size(), 4.0 * static_cast<double>(numel) / (1024.0 * 1024.0),
          allreduce_ms, latency_ms, group.library().c_str(), load_average().c_str());
  } catch (const tl::Error& e) {
    std::fprintf(stderr, "bench_ddp: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
