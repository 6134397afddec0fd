// torchlet::train: the one fit loop behind `torchlet train` (tables and images) and `torchlet
// bench`, for any module: epochs over tensors (full batch or shuffled mini-batches) or over a
// data::DataLoader, the loss recorded into a buffer on the training device (no synchronisation
// per record; read once at the end), callbacks per epoch and per batch, validation with early
// stopping, a stop at a NaN or infinite loss, a cooperative stop (a signal handler's flag) and
// checkpoint hooks. It picks how each step runs (see Execution):
//
//   auto model = nn::make_mlp({4, 10, 3});
//   optim::SGD sgd(model->parameters(), 0.01);
//   TrainResult r = train(*model, sgd, X_train, y_train, {.epochs = 20000, .record_every = 200});
//   // r.losses: the loss at epochs 200, 400, ..., 20000
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "torchlet/data/loader.h"
#include "torchlet/nn/module.h"
#include "torchlet/optim/optimizer.h"
#include "torchlet/tensor.h"

namespace torchlet {

// How one training step runs. Every mode gives the eager losses to float rounding.
enum class Execution {
  // Fused where it pays (an nn::Sequential MLP with the default loss: always on a GPU, on the
  // CPU for layers up to 64 wide, where its kernels beat OpenBLAS's GEMMs), eager otherwise.
  Auto,
  // Op by op with autograd: model(x), the loss, zero_grad, backward, step, as a user writes it.
  Eager,
  // One backend call per step (nn::FusedMlp); full-batch SGD without momentum replays up to 100
  // epochs inside one call. Throws torchlet::Error for a model FusedMlp does not support or a
  // loss other than the default.
  Fused,
  // torchlet::compile of the eager step (any module): recorded on its second call, replayed
  // after that.
  Compiled,
};

// Whether a full-batch step on a CUDA device is captured as a CUDA graph and replayed (one
// launch per step instead of one per op): Auto where it is safe (CUDA, full batch, SGD, and
// not the chunked fused replay, which is one launch per 100 epochs already), On or fail, Off.
enum class CudaGraph { Auto, On, Off };

// Why a CUDA graph cannot replay this run's steps, or empty when it can.
std::string graph_refusal(const Device& device, int64_t batches, const optim::Optimizer& optimizer);

// What the per-epoch callback sees. The loss is the epoch's mean over its batches (see
// TrainOptions::epoch_mean), a 0-dim
// tensor still on the device: value() reads it (a synchronisation on a GPU) once and keeps it,
// and train() checks every value read for NaN and infinity (on the CPU it reads every epoch).
class EpochInfo {
 public:
  EpochInfo(int64_t epoch, Tensor loss, Tensor val_loss);
  int64_t epoch() const noexcept { return epoch_; }  // the last epoch done, over the whole run
  const Tensor& loss() const noexcept { return loss_; }
  float value() const;
  bool read() const noexcept { return value_.has_value(); }
  // The validation loss after this epoch (0-dim, on the device), when validation ran.
  const Tensor& val_loss() const noexcept { return val_loss_; }

 private:
  int64_t epoch_;
  Tensor loss_, val_loss_;
  mutable std::optional<float> value_;
};

// Loss of one batch: a 0-dim tensor on the device, with its epoch and index (from 0) in it.
using BatchCallback = std::function<bool(int64_t epoch, int64_t batch, const Tensor& loss)>;
// Returning false stops training after this epoch.
using EpochCallback = std::function<bool(const EpochInfo& info)>;
// The loss of a batch: output and target to a 0-dim tensor.
using LossFn = std::function<Tensor(const Tensor& output, const Tensor& target)>;

struct TrainOptions {
  int64_t epochs = 1;
  // Tensors only: rows per step, 0 for all of them; mini-batches are reshuffled each epoch (from
  // seed and the epoch's number). A DataLoader brings its own batches.
  int64_t batch_size = 0;
  uint64_t seed = 0;
  // Tensors only: the rows each epoch trains on, in order (the same number every epoch), in
  // place of a shuffle of all of them: a distributed::DistributedSampler's shard of this rank.
  std::function<std::vector<int64_t>(int64_t epoch)> sampler{};
  // Called after every backward, before the optimizer's step: DistributedDataParallel's
  // synchronize(). Runs eager or fused steps only (Execution::Compiled and CUDA graphs would
  // replay without it: refused with an Error), each epoch returning to the host.
  std::function<void()> before_step{};
  // Record the epoch's loss every N epochs (0: never), on the device.
  int64_t record_every = 0;
  // Record the mean loss of every N batches (and of an epoch's last, shorter window; 0: never).
  int64_t record_every_batches = 0;
  // Epochs at which on_epoch must see the loss: the chunked fused replay ends a chunk there (and
  // at recorded, validated and checkpointed epochs); otherwise it sees every epoch.
  int64_t print_every = 0;
  // Epochs the model was trained before this call (a resumed run), which then trains epochs
  // epochs_before+1 .. epochs_before+epochs. Epoch numbers count over the whole run: losses are
  // recorded at multiples of record_every, and each epoch's mini-batch order depends only on the
  // seed and its number, so a run resumed with its optimizer's state repeats an uninterrupted one.
  int64_t epochs_before = 0;
  Execution execution = Execution::Auto;
  CudaGraph graph = CudaGraph::Auto;
  LossFn loss{};  // empty: mean cross-entropy over class indices
  // Validation after every validate_every epochs (with val_input defined): the loss on
  // (val_input, val_target) in eval mode without gradients. patience > 0 stops training once
  // the validation loss has not improved for that many validations (reading it each time).
  // A loss counts as better only when it is below the best by more than min_delta (Keras's
  // EarlyStopping(min_delta)); the best epoch is the last one that was.
  Tensor val_input{}, val_target{};
  int64_t validate_every = 1;
  int64_t patience = 0;
  double min_delta = 0.0;
  // With validation: keep a copy of the parameters at the best validation loss and put them
  // back in the model at the end (when a later epoch was worse), as Keras's
  // restore_best_weights.
  bool restore_best = false;
  // Stop at the first NaN or infinite loss read (see EpochInfo).
  bool stop_on_nonfinite = true;
  // An epoch of several batches reports their mean loss (one device add per batch to sum
  // them); false: its last batch's loss, with no work beside the steps (what a benchmark of the
  // steps wants).
  bool epoch_mean = true;
  // Cooperative stop (e.g. a signal handler's flag): asked after every epoch, and after every
  // batch with stop_within_epoch (the epoch in progress then does not count as done).
  std::function<bool()> should_stop{};
  bool stop_within_epoch = false;
  // Called after every checkpoint_every-th epoch with its number (0: never).
  int64_t checkpoint_every = 0;
  std::function<void(int64_t epoch)> checkpoint{};
  EpochCallback on_epoch{};
  // After every step (not inside the chunked fused replay, whose steps never return to the
  // host); returning false stops training at once: the epoch counts as done only when this was
  // its last batch.
  BatchCallback on_batch{};
};

enum class StopReason {
  Completed,     // every epoch done
  NonFinite,     // a loss read was NaN or infinite (see TrainResult::nonfinite_epoch)
  Callback,      // on_epoch or on_batch returned false
  StopFlag,      // should_stop() said so
  EarlyStopping  // the validation loss stopped improving (see TrainOptions::patience)
};

struct TrainResult {
  StopReason stop = StopReason::Completed;
  std::vector<float> losses;         // the recorded epoch losses
  std::vector<int64_t> loss_epochs;  // the epoch of each (over the whole run)
  std::vector<float> window_losses;  // the recorded batch-window means
  std::vector<double> window_at;     // their position: epochs done, with a fraction of batches
  float final_loss = 0.0f;           // the last epoch's loss (NaN when none finished)
  int64_t epochs_done = 0;           // by this call
  // At a NaN stop: the first epoch read non-finite, its value, the last epoch read finite.
  int64_t nonfinite_epoch = 0, last_finite_epoch = 0;
  float nonfinite_loss = 0.0f;
  // With validation: the best validation loss and its epoch.
  float best_val_loss = 0.0f;
  int64_t best_epoch = 0;
  double train_s = 0.0;  // wall time of the loop, the device's work included
  bool fused = false;    // the steps were nn::FusedMlp calls
  bool graph = false;    // the steps were replayed from a captured CUDA graph
  bool compiled = false;
  // restore_best put the best epoch's parameters back (a later epoch was worse).
  bool restored = false;
};

// Trains `model` on (inputs, targets): inputs [N, ...], targets [N] class indices (or what
// options.loss takes), on the model's device.
TrainResult train(nn::Module& model, optim::Optimizer& optimizer, const Tensor& inputs,
                  const Tensor& targets, const TrainOptions& options);
// The same over a loader's batches (the loader's own epoch count orders them: see
// DataLoader::next_epoch); options.batch_size and seed are unused.
TrainResult train(nn::Module& model, optim::Optimizer& optimizer, data::DataLoader& loader,
                  const TrainOptions& options);

}  // namespace torchlet
