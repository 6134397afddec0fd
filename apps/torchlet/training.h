// The training loop shared by `torchlet train` and `torchlet bench`: full-batch or shuffled
// mini-batch epochs, each step fused into one backend call (nn::FusedMlp) or run op by op
// with autograd, and the loss recorded into a buffer on the training device (no device
// synchronisation per record; the buffer is read once at the end).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "torchlet/torchlet.h"

namespace torchlet::cli {

// An MLP: Linear layers of the given widths (inputs, hidden..., classes) with ReLU between.
std::shared_ptr<nn::Sequential> make_mlp(const std::vector<int64_t>& widths);

struct FitOptions {
  int64_t epochs = 20000;
  int64_t batch_size = 0;      // 0: the whole training set each step, as the course does
  int64_t record_every = 200;  // 0: never
  uint64_t seed = 0;           // the mini-batch order
  // One backend call per step (nn::FusedMlp) instead of recorded ops: same results, far
  // less overhead for small models. Used when the model is a plain MLP.
  bool fused = true;
  // Epochs at which the callback must see the loss (0: none): with full-batch plain SGD the
  // fused steps are replayed in chunks of up to 100 epochs inside one backend call, and
  // chunks end at these epochs and at recorded ones.
  int64_t print_every = 0;
};

struct FitResult {
  std::vector<float> losses;         // the recorded losses (epoch mean over batches)
  std::vector<int64_t> loss_epochs;  // the 1-based epoch of each recorded loss
  float final_loss = 0.0f;
  int64_t epochs_done = 0;
  double train_s = 0.0;  // wall time of the loop, the device synchronised at the end
};

// Called after each epoch (or each replayed chunk of epochs, see FitOptions::print_every) with
// the 1-based number of the last epoch done and its loss (still on the device: reading it
// synchronises, so callbacks read it only when they print). Returning false stops training.
using EpochCallback = std::function<bool(int64_t epoch, const Tensor& loss)>;

FitResult fit(nn::Sequential& model, optim::Optimizer& optimizer, const Tensor& X, const Tensor& y,
              const FitOptions& options, const EpochCallback& on_epoch);

}  // namespace torchlet::cli
