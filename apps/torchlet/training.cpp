// The training loop and the MLP builder.
#include "training.h"

#include <chrono>
#include <numeric>
#include <optional>
#include <random>

namespace torchlet::cli {

std::shared_ptr<nn::Sequential> make_mlp(const std::vector<int64_t>& widths) {
  auto model = std::make_shared<nn::Sequential>();
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
    if (i > 0) model->add<nn::ReLU>();
    model->add<nn::Linear>(widths[i], widths[i + 1]);
  }
  return model;
}

namespace {

// A random order of 0..n-1 for the mini-batches of epoch `epoch` (numbered over the whole
// run), on `device`. It depends on the seed and the epoch only, so a resumed run shuffles its
// epochs exactly as an uninterrupted one does, without saving a generator's state.
Tensor shuffled_rows(int64_t n, uint64_t seed, int64_t epoch, const Device& device) {
  std::seed_seq seeds{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                      static_cast<uint32_t>(epoch), static_cast<uint32_t>(epoch >> 32)};
  std::mt19937_64 rng(seeds);
  std::vector<int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  return tensor(order, device);
}

// The last epoch (whole-run number) of the replayed chunk that starts at epoch `first`: at most
// 100 epochs, ending where the loss must be recorded or shown.
int64_t chunk_end(int64_t first, const FitOptions& options) {
  int64_t last = std::min(options.epochs_before + options.epochs, first + 99);
  for (int64_t every : {options.record_every, options.print_every})
    if (every > 0) last = std::min(last, (first + every - 1) / every * every);
  return last;
}

}  // namespace

// The fused step is one backend call: on a GPU always worth it (one launch, or the cuBLASLt
// path for large layers); on the CPU its kernels are written for narrow layers and have no
// cache blocking, so wide ones are left to the eager path, whose GEMMs are OpenBLAS's
// (784-512-512-10 at batch 256: eager about 4x faster, measured on 2026-11-29).
static bool fused_pays(const nn::Sequential& model, const Device& device) {
  if (!nn::FusedMlp::supports(model)) return false;
  if (device.is_cuda()) return true;
  for (const Tensor& p : model.parameters())
    if (p.dim() == 2 && std::max(p.size(0), p.size(1)) > 64) return false;
  return true;
}

std::string graph_refusal(const Device& device, int64_t batches,
                          const optim::Optimizer& optimizer) {
  if (!device.is_cuda()) return "CUDA graphs need a CUDA device (--device cuda)";
  if (batches != 1) return "CUDA graphs are used for full-batch training only (no --batch-size)";
  if (!dynamic_cast<const optim::SGD*>(&optimizer))
    return "Adam keeps its step count on the host, so a replayed step would repeat it (use "
           "--optimizer sgd)";
  return "";
}

FitResult fit(nn::Sequential& model, optim::Optimizer& optimizer, const Tensor& X, const Tensor& y,
              const FitOptions& options, const EpochCallback& on_epoch) {
  using Clock = std::chrono::steady_clock;
  const Device device = X.device();
  const int64_t rows = X.size(0);
  const int64_t batch = options.batch_size > 0 ? std::min(options.batch_size, rows) : rows;
  const int64_t batches = (rows + batch - 1) / batch;
  const int64_t before = options.epochs_before, last_epoch = before + options.epochs;
  // Recorded epochs are the multiples of record_every in (before, last_epoch].
  const int64_t records = options.record_every > 0
                              ? last_epoch / options.record_every - before / options.record_every
                              : 0;
  Tensor recorded = zeros({records}, device);
  std::optional<nn::FusedMlp> fused;
  if (options.fused && fused_pays(model, device)) fused.emplace(model);
  // One optimisation step on the given rows (all rows when `idx` is undefined).
  auto step = [&](const Tensor& idx) {
    optimizer.zero_grad();
    Tensor loss;
    if (fused) {
      loss = fused->loss_and_grads(X, y, idx);
    } else {
      loss = cross_entropy(model(idx.defined() ? index_select(X, idx) : X),
                           idx.defined() ? index_select(y, idx) : y);
      loss.backward();
    }
    optimizer.step();
    return loss.detach();
  };
  FitResult result;
  Tensor epoch_loss;
  // Replays whole chunks of full-batch plain-SGD epochs in one call when it can.
  auto* sgd = dynamic_cast<optim::SGD*>(&optimizer);
  const bool replay = fused && batches == 1 && sgd && sgd->momentum() == 0.0;
  const std::string refusal = graph_refusal(device, batches, optimizer);
  TORCHLET_CHECK(options.graph != FitOptions::Graph::On || refusal.empty(),
                 "--graph: Expected a run a CUDA graph can replay, but ", refusal);
  const bool use_graph = refusal.empty() && (options.graph == FitOptions::Graph::On ||
                                             (options.graph == FitOptions::Graph::Auto && !replay));
  std::optional<cuda::Graph> graph;
  Tensor graph_loss;  // written by every replay
  const auto start = Clock::now();
  for (int64_t epoch = before + 1; epoch <= last_epoch; ++epoch) {
    if (replay) {
      const int64_t last = chunk_end(epoch, options);
      Tensor losses = fused->train_sgd(X, y, *sgd, last - epoch + 1);
      epoch = last;
      epoch_loss = losses.slice(0, -1, losses.size(0)).reshape({});
    } else if (use_graph) {
      if (!graph) {  // the first epoch runs eagerly (gradients and state exist), then capture
        epoch_loss = step(Tensor());
        graph.emplace();
        graph->capture_begin(device);
        graph_loss = step(Tensor());
        graph->capture_end();
      } else {
        graph->replay();
        epoch_loss = graph_loss;
      }
    } else if (batches == 1) {
      epoch_loss = step(Tensor());
    } else {
      Tensor order = shuffled_rows(rows, options.seed, epoch, device);
      Tensor sum = zeros({}, device);
      for (int64_t b = 0; b < batches; ++b)
        sum = sum + step(order.slice(0, b * batch, std::min(rows, (b + 1) * batch)));
      epoch_loss = sum / static_cast<float>(batches);
    }
    result.epochs_done = epoch - before;
    if (options.record_every > 0 && epoch % options.record_every == 0) {
      const int64_t k = epoch / options.record_every - before / options.record_every - 1;
      NoGradGuard no_grad;
      recorded.narrow(0, k, 1).copy_(epoch_loss.reshape({1}));
      result.loss_epochs.push_back(epoch);
    }
    if (on_epoch && !on_epoch(epoch, epoch_loss)) break;
  }
  // Reading the results waits for the device, so the time includes all queued work.
  result.final_loss = epoch_loss.defined() ? epoch_loss.item() : 0.0f;
  const auto all = recorded.to_vector<float>();
  result.losses.assign(all.begin(),
                       all.begin() + static_cast<std::ptrdiff_t>(result.loss_epochs.size()));
  result.train_s = std::chrono::duration<double>(Clock::now() - start).count();
  result.graph = graph.has_value();
  result.fused = fused.has_value();
  return result;
}

}  // namespace torchlet::cli
