// Activations composed from the elementwise ops (no kernels of their own): gelu in both of
// PyTorch's forms, silu, leaky_relu, elu and softplus. Their gradients come from the ops they
// are made of. Branches that where() does not take are kept finite, so no inf * 0 reaches a
// gradient.
#include <cmath>
#include <numbers>

#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

Tensor gelu(const Tensor& x, const std::string& approximate) {
  TORCHLET_CHECK(approximate == "none" || approximate == "tanh",
                 "gelu: Expected approximate 'none' or 'tanh', but got '", approximate, "'");
  if (approximate == "tanh") {
    const double k = std::sqrt(2.0 / std::numbers::pi);
    return x * 0.5 * (tanh((x + x * x * x * 0.044715) * k) + 1.0);
  }
  return x * 0.5 * (erf(x * (1.0 / std::numbers::sqrt2)) + 1.0);
}

Tensor silu(const Tensor& x) { return x * sigmoid(x); }

Tensor leaky_relu(const Tensor& x, double negative_slope) {
  return where(x > 0, x, x * negative_slope);
}

Tensor elu(const Tensor& x, double alpha) {
  return where(x > 0, x, expm1(clamp_max(x, 0)) * alpha);
}

Tensor softplus(const Tensor& x, double beta, double threshold) {
  TORCHLET_CHECK(beta > 0, "softplus: Expected beta > 0, but got ", beta);
  const Tensor bx = x * beta;
  return where(bx > threshold, x, log1p(exp(clamp_max(bx, threshold))) / beta);
}

}  // namespace torchlet
