// The loss objects: each forwards to its function in functional.h with its options.
#include "torchlet/nn/loss.h"

#include "torchlet/functional.h"

namespace torchlet::nn {

Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) const {
  if (!weight.defined() && ignore_index == -100 && reduction == "mean" && label_smoothing == 0.0)
    return cross_entropy(input, target);  // the fused kernel
  return cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing);
}

Tensor NLLLoss::forward(const Tensor& input, const Tensor& target) const {
  return nll_loss(input, target, weight, ignore_index, reduction);
}

Tensor MSELoss::forward(const Tensor& input, const Tensor& target) const {
  return mse_loss(input, target, reduction);
}

Tensor L1Loss::forward(const Tensor& input, const Tensor& target) const {
  return l1_loss(input, target, reduction);
}

Tensor SmoothL1Loss::forward(const Tensor& input, const Tensor& target) const {
  return smooth_l1_loss(input, target, reduction, beta);
}

Tensor HuberLoss::forward(const Tensor& input, const Tensor& target) const {
  return huber_loss(input, target, reduction, delta);
}

Tensor BCELoss::forward(const Tensor& input, const Tensor& target) const {
  return binary_cross_entropy(input, target, weight, reduction);
}

Tensor BCEWithLogitsLoss::forward(const Tensor& input, const Tensor& target) const {
  return binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction);
}

Tensor KLDivLoss::forward(const Tensor& input, const Tensor& target) const {
  return kl_div(input, target, reduction, log_target);
}

}  // namespace torchlet::nn
