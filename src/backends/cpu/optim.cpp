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
  if (o.momentum == 0.0f &&
      !o.maximize) {  // plain SGD, the common case: a loop the compiler vectorises
    const float lr = o.lr, wd = o.weight_decay;
    if (wd == 0.0f) {
      for (int64_t i = 0; i < n; ++i) param[i] -= lr * grad[i];
    } else {
      for (int64_t i = 0; i < n; ++i) param[i] -= lr * (grad[i] + wd * param[i]);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    float d = o.maximize ? -grad[i] : grad[i];
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
  const float decay = static_cast<float>(1.0 - static_cast<double>(o.lr) * o.weight_decay);
  for (int64_t i = 0; i < n; ++i) {
    float g = o.maximize ? -grad[i] : grad[i];
    if (o.decoupled)
      param[i] *= decay;
    else if (o.weight_decay != 0.0f)
      g += o.weight_decay * param[i];
    exp_avg[i] = o.beta1 * exp_avg[i] + (1.0f - o.beta1) * g;
    exp_avg_sq[i] = o.beta2 * exp_avg_sq[i] + (1.0f - o.beta2) * g * g;
    const float denom = std::sqrt(exp_avg_sq[i]) / bias_correction2_sqrt + o.eps;
    param[i] -= step_size * exp_avg[i] / denom;
  }
}

void rmsprop_one(float* param, const float* grad, float* square_avg, float* momentum_buf,
                 float* grad_avg, int64_t n, const RmspropOptions o) {  // by value, as in sgd_one
  for (int64_t i = 0; i < n; ++i) {
    float g = o.maximize ? -grad[i] : grad[i];
    if (o.weight_decay != 0.0f) g += o.weight_decay * param[i];
    square_avg[i] = o.alpha * square_avg[i] + (1.0f - o.alpha) * g * g;
    float avg;
    if (o.centered) {
      grad_avg[i] = o.alpha * grad_avg[i] + (1.0f - o.alpha) * g;
      avg = std::sqrt(square_avg[i] - grad_avg[i] * grad_avg[i]) + o.eps;
    } else {
      avg = std::sqrt(square_avg[i]) + o.eps;
    }
    if (o.momentum > 0.0f) {
      momentum_buf[i] = o.momentum * momentum_buf[i] + g / avg;
      param[i] -= o.lr * momentum_buf[i];
    } else {
      param[i] -= o.lr * g / avg;
    }
  }
}

void adagrad_one(float* param, const float* grad, float* sum, int64_t n, const AdagradOptions o,
                 int64_t step) {  // by value, as in sgd_one
  const float clr = static_cast<float>(
      o.lr / (1.0 + static_cast<double>(step - 1) * static_cast<double>(o.lr_decay)));
  for (int64_t i = 0; i < n; ++i) {
    float g = o.maximize ? -grad[i] : grad[i];
    if (o.weight_decay != 0.0f) g += o.weight_decay * param[i];
    sum[i] += g * g;
    param[i] -= clr * g / (std::sqrt(sum[i]) + o.eps);
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

void CpuBackend::rmsprop_step(const ParamUpdate* params, int count, const RmspropOptions& options) {
  profile::record_launch();
  for (int k = 0; k < count; ++k) {
    const ParamUpdate& u = params[k];
    parallel_for(u.n, kParallelGrain, [&](int64_t b, int64_t e) {
      rmsprop_one(u.param + b, u.grad + b, u.state1 + b, u.state2 ? u.state2 + b : nullptr,
                  u.state3 ? u.state3 + b : nullptr, e - b, options);
    });
  }
}

void CpuBackend::adagrad_step(const ParamUpdate* params, int count, const AdagradOptions& options) {
  profile::record_launch();
  for (int k = 0; k < count; ++k) {
    const ParamUpdate& u = params[k];
    const int64_t step = ++*u.step;
    parallel_for(u.n, kParallelGrain, [&](int64_t b, int64_t e) {
      adagrad_one(u.param + b, u.grad + b, u.state1 + b, e - b, options, step);
    });
  }
}

}  // namespace torchlet::backend::cpu
