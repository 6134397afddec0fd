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

// A random order of 0..n-1 for one epoch's mini-batches, on `device`.
Tensor shuffled_rows(int64_t n, std::mt19937_64& rng, const Device& device) {
  std::vector<int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  return tensor(order, device);
}

// The last epoch of the replayed chunk that starts at `first`: at most 100 epochs, ending
// where the loss must be recorded or shown.
int64_t chunk_end(int64_t first, const FitOptions& options) {
  int64_t last = std::min(options.epochs, first + 99);
  for (int64_t every : {options.record_every, options.print_every})
    if (every > 0) last = std::min(last, (first + every - 1) / every * every);
  return last;
}

}  // namespace

FitResult fit(nn::Sequential& model, optim::Optimizer& optimizer, const Tensor& X, const Tensor& y,
              const FitOptions& options, const EpochCallback& on_epoch) {
  using Clock = std::chrono::steady_clock;
  const Device device = X.device();
  const int64_t rows = X.size(0);
  const int64_t batch = options.batch_size > 0 ? std::min(options.batch_size, rows) : rows;
  const int64_t batches = (rows + batch - 1) / batch;
  const int64_t records = options.record_every > 0 ? options.epochs / options.record_every : 0;
  Tensor recorded = zeros({records}, device);
  std::mt19937_64 rng(options.seed);
  std::optional<nn::FusedMlp> fused;
  if (options.fused && nn::FusedMlp::supports(model)) fused.emplace(model);
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
  const auto start = Clock::now();
  for (int64_t epoch = 1; epoch <= options.epochs; ++epoch) {
    if (replay) {
      const int64_t last = chunk_end(epoch, options);
      Tensor losses = fused->train_sgd(X, y, *sgd, last - epoch + 1);
      epoch = last;
      epoch_loss = losses.slice(0, -1, losses.size(0)).reshape({});
    } else if (batches == 1) {
      epoch_loss = step(Tensor());
    } else {
      Tensor order = shuffled_rows(rows, rng, device);
      Tensor sum = zeros({}, device);
      for (int64_t b = 0; b < batches; ++b)
        sum = sum + step(order.slice(0, b * batch, std::min(rows, (b + 1) * batch)));
      epoch_loss = sum / static_cast<float>(batches);
    }
    result.epochs_done = epoch;
    if (options.record_every > 0 && epoch % options.record_every == 0) {
      const int64_t k = epoch / options.record_every - 1;
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
  return result;
}

}  // namespace torchlet::cli
