// The training loop shared by `torchlet train` and `torchlet bench`: full-batch or shuffled
// mini-batch epochs, each step fused into one backend call (nn::FusedMlp) or run op by op
// with autograd, and the loss recorded into a buffer on the training device (no device
// synchronisation per record; the buffer is read once at the end).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
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
  // Epochs the model was trained before this call (a resumed run), which then trains epochs
  // epochs_before+1 .. epochs_before+epochs. Epoch numbers are counted over the whole run: the
  // loss is recorded (and chunks end) at multiples of record_every and print_every, and each
  // epoch's mini-batch order depends only on the seed and its number, so that a run resumed
  // with its optimizer's state repeats an uninterrupted run bit for bit.
  int64_t epochs_before = 0;
  // On a CUDA device, capture one full-batch step as a CUDA graph and replay it each epoch
  // (one launch per step instead of one per op): Auto uses it where it is safe (CUDA, full
  // batch, SGD, and not the replayed fused path, which is one launch per 100 epochs already);
  // On asks for it and fails where it cannot be used; Off never.
  enum class Graph { Auto, On, Off } graph = Graph::Auto;
};

// Why a CUDA graph cannot train this run, or empty when it can.
std::string graph_refusal(const Device& device, int64_t batches, const optim::Optimizer& optimizer);

struct FitResult {
  std::vector<float> losses;         // the recorded losses (epoch mean over batches)
  std::vector<int64_t> loss_epochs;  // the epoch number of each recorded loss (whole run)
  float final_loss = 0.0f;
  int64_t epochs_done = 0;  // by this call
  double train_s = 0.0;     // wall time of the loop, the device synchronised at the end
  bool graph = false;       // the steps were replayed from a captured CUDA graph
  bool fused = false;       // the steps were nn::FusedMlp calls (see fused_pays in training.cpp)
};

// Called after each epoch (or each replayed chunk of epochs, see FitOptions::print_every) with
// the number of the last epoch done (over the whole run, see epochs_before) and its loss (still on
// the device: reading it synchronises, so callbacks read it only when they print). Returning false
// stops training.
using EpochCallback = std::function<bool(int64_t epoch, const Tensor& loss)>;

FitResult fit(nn::Sequential& model, optim::Optimizer& optimizer, const Tensor& X, const Tensor& y,
              const FitOptions& options, const EpochCallback& on_epoch);

}  // namespace torchlet::cli
