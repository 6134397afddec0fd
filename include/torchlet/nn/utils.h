// Gradient clipping, as torch.nn.utils: clip_grad_norm_ scales every gradient so that their
// joint norm is at most max_norm; clip_grad_value_ limits each element to [-clip, clip].
// Parameters without a gradient are skipped. Neither records autograd.
#pragma once

#include <limits>
#include <vector>

#include "torchlet/tensor.h"

namespace torchlet::nn::utils {

// The norm_type-norm (infinity allowed) of all gradients together, as a float32 scalar tensor
// on the first gradient's device (0 when none has one); each gradient is multiplied by
// max_norm / (norm + 1e-6) when that is below 1. error_if_nonfinite: throws torchlet::Error
// instead when the norm is NaN or infinite.
Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm,
                       double norm_type = 2.0, bool error_if_nonfinite = false);
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);

}  // namespace torchlet::nn::utils
