// Gradient clipping from tensor ops (norm, stack, clamp), so it runs on the gradients' device
// with no copy to the host, as PyTorch's torch/nn/utils/clip_grad.py.
#include "torchlet/nn/utils.h"

#include <cmath>

#include "torchlet/autograd.h"
#include "torchlet/error.h"
#include "torchlet/functional.h"

namespace torchlet::nn::utils {

namespace {

std::vector<Tensor> grads_of(const std::vector<Tensor>& parameters) {
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters)
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  return grads;
}

}  // namespace

Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  NoGradGuard no_grad;
  const std::vector<Tensor> grads = grads_of(parameters);
  if (grads.empty()) return zeros(Shape{});
  std::vector<Tensor> norms;
  for (const Tensor& g : grads) norms.push_back(norm(g.detach(), norm_type));
  const bool inf = std::isinf(norm_type);
  const Tensor total = norms.size() == 1 ? norms.front()
                       : inf             ? amax(stack(norms), {0})
                                         : norm(stack(norms), norm_type);
  if (error_if_nonfinite) {
    const double value = total.item<double>();
    TORCHLET_CHECK(std::isfinite(value), "clip_grad_norm_: Expected a finite total norm of order ",
                   norm_type, " of the gradients, but got ", value,
                   " (set error_if_nonfinite=false to scale by it anyway)");
  }
  const Tensor coef = clamp_max(max_norm / (total + 1e-6), 1.0);
  for (const Tensor& g : grads) {
    Tensor target = g;
    target.copy_(g * coef);
  }
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& g : grads_of(parameters)) {
    Tensor target = g;
    target.copy_(clamp(g, -clip_value, clip_value));
  }
}

}  // namespace torchlet::nn::utils
