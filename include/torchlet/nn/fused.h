// FusedMlp: one training step of an MLP (forward, mean cross-entropy, backward) computed by a
// single backend call instead of a recorded autograd graph: no per-op dispatch, no
// intermediate tensors. It is the CPU counterpart of capturing the step as a CUDA graph, and
// what `torchlet train` uses for its MLPs; results match the eager ops to float rounding.
#pragma once

#include <vector>

#include "torchlet/nn/layers.h"
#include "torchlet/optim/optimizer.h"

namespace torchlet::nn {

class FusedMlp {
 public:
  // True when `model` is Linear, (ReLU, Linear)*, every Linear with a bias.
  static bool supports(const Sequential& model);
  // Throws torchlet::Error when the model is not supported.
  explicit FusedMlp(Sequential& model);

  // The mean cross-entropy of model(X[rows]) against y[rows]: a 0-dim tensor on X's device,
  // not synchronised. Sets every parameter's grad() to its gradient of that loss (replacing
  // what was there, as zero_grad() then backward() would), in buffers reused across steps.
  // X [N, in] float32, y [N] int64; rows: int64 indices of the batch, undefined for all N.
  Tensor loss_and_grads(const Tensor& X, const Tensor& y, const Tensor& rows = Tensor());

  // `steps` full-batch training steps, each exactly `sgd.zero_grad(); loss_and_grads(X, y);
  // sgd.step();`, replayed inside one backend call: the captured step, run again and again
  // without returning to the host. Returns the `steps` losses ([steps] on X's device, not
  // synchronised). `sgd` must hold this model's parameters and use no momentum.
  Tensor train_sgd(const Tensor& X, const Tensor& y, const optim::SGD& sgd, int64_t steps);

 private:
  void publish_grads();  // points each parameter's grad() at this step's gradient buffer

  std::vector<Linear*> layers_;
  std::vector<int64_t> widths_;
  std::vector<Tensor> weight_grads_, bias_grads_;
};

}  // namespace torchlet::nn
