// Activations composed from the elementwise ops (no kernels of their own): leaky_relu, elu and
// softplus (gelu and silu are one pass each, in unary.cpp). Their gradients come from the ops they
// are made of. Branches that where() does not take are kept finite, so no inf * 0 reaches a
// gradient.
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

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
