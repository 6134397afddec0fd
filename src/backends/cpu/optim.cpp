// CPU optimizer updates, element by element in PyTorch's order of operations so results
// match torch.optim to float rounding.
#include <cmath>

#include "backends/cpu/cpu_backend.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cpu {

namespace {

// `o` is taken by value: a float the loop writes through `param` could otherwise alias a field
// of a referenced SgdOptions, and the compiler would reload every field per element.
void sgd_one(float* param, const float* grad, float* momentum_buf, int64_t n, const SgdOptions o) {
  if (o.momentum == 0.0f) {  // plain SGD, the common case: a loop the compiler vectorises
    const float lr = o.lr, wd = o.weight_decay;
    if (wd == 0.0f) {
      for (int64_t i = 0; i < n; ++i) param[i] -= lr * grad[i];
    } else {
      for (int64_t i = 0; i < n; ++i) param[i] -= lr * (grad[i] + wd * param[i]);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    float d = grad[i];
    if (o.weight_decay != 0.0f) d += o.weight_decay * param[i];
    if (o.momentum != 0.0f) {
      float& buf = momentum_buf[i];
      buf = o.momentum * buf + d;  // zero before the first step (backend.h)
      d = o.nesterov ? d + o.momentum * buf : buf;
    }
    param[i] -= o.lr * d;
  }
}

void adam_one(float* param, const float* grad, float* exp_avg, float* exp_avg_sq, int64_t n,
              const AdamOptions o, int64_t step) {  // by value, as in sgd_one
  const double t = static_cast<double>(step);
  const float bias_correction1 = static_cast<float>(1.0 - std::pow(o.beta1, t));
  const float bias_correction2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(o.beta2, t)));
  const float step_size = o.lr / bias_correction1;
  for (int64_t i = 0; i < n; ++i) {
    float g = grad[i];
    if (o.weight_decay != 0.0f) g += o.weight_decay * param[i];
    exp_avg[i] = o.beta1 * exp_avg[i] + (1.0f - o.beta1) * g;
    exp_avg_sq[i] = o.beta2 * exp_avg_sq[i] + (1.0f - o.beta2) * g * g;
    const float denom = std::sqrt(exp_avg_sq[i]) / bias_correction2_sqrt + o.eps;
    param[i] -= step_size * exp_avg[i] / denom;
  }
}

}  // namespace

void CpuBackend::sgd_step(const ParamUpdate* params, int count, const SgdOptions& options) {
  profile::record_launch();
  for (int k = 0; k < count; ++k) {
    const ParamUpdate& u = params[k];
    parallel_for(u.n, kParallelGrain, [&](int64_t b, int64_t e) {
      sgd_one(u.param + b, u.grad + b, u.state1 ? u.state1 + b : nullptr, e - b, options);
    });
  }
}

void CpuBackend::adam_step(const ParamUpdate* params, int count, const AdamOptions& options) {
  profile::record_launch();
  for (int k = 0; k < count; ++k) {
    const ParamUpdate& u = params[k];
    const int64_t step = ++*u.step;
    parallel_for(u.n, kParallelGrain, [&](int64_t b, int64_t e) {
      adam_one(u.param + b, u.grad + b, u.state1 + b, u.state2 + b, e - b, options, step);
    });
  }
}

}  // namespace torchlet::backend::cpu
