// CPU optimizer updates, element by element in PyTorch's order of operations so results
// match torch.optim to rounding; each loop is a template on the parameters' element type
// (float32 or float64), with the options rounded to it as PyTorch rounds its scalars.
#include <cmath>
#include <type_traits>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/simd.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cpu {

namespace {

// The options are read into locals of type T: a T the loop writes through `param` could
// otherwise alias a field of the options, and the compiler would reload every field per element.
template <typename T>
void sgd_one(T* param, const T* grad, T* momentum_buf, int64_t n, const SgdOptions& o) {
  const T lr = static_cast<T>(o.lr), wd = static_cast<T>(o.weight_decay);
  const T momentum = static_cast<T>(o.momentum);
  const bool nesterov = o.nesterov, maximize = o.maximize;
  if (momentum == T(0) &&
      !maximize) {  // plain SGD, the common case: a loop the compiler vectorises
    if (wd == T(0)) {
      for (int64_t i = 0; i < n; ++i) param[i] -= lr * grad[i];
    } else {
      for (int64_t i = 0; i < n; ++i) param[i] -= lr * (grad[i] + wd * param[i]);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    T d = maximize ? -grad[i] : grad[i];
    if (wd != T(0)) d += wd * param[i];
    if (momentum != T(0)) {
      T& buf = momentum_buf[i];
      buf = momentum * buf + d;  // zero before the first step (backend.h)
      d = nesterov ? d + momentum * buf : buf;
    }
    param[i] -= lr * d;
  }
}

// One Adam element, PyTorch's order of operations (g already with its weight decay).
template <typename T>
struct AdamScalars {
  T beta1, beta2, bias_correction2_sqrt, eps, step_size;
};
template <typename T>
TORCHLET_SIMD_INLINE void adam_element(T& param, T g, T& exp_avg, T& exp_avg_sq,
                                       const AdamScalars<T>& c) {
  exp_avg = c.beta1 * exp_avg + (T(1) - c.beta1) * g;
  exp_avg_sq = c.beta2 * exp_avg_sq + (T(1) - c.beta2) * g * g;
  const T denom = std::sqrt(exp_avg_sq) / c.bias_correction2_sqrt + c.eps;
  param -= c.step_size * exp_avg / denom;
}

// float32 Adam and AdamW without maximize, the common case: one branch-free loop per kind of
// weight decay, so that the AVX2 clone runs 8 elements per instruction (sqrt and division
// included: this file is compiled with -fno-math-errno, its square roots being of values never
// negative); adam_one below runs the rest.
TORCHLET_SIMD_CLONES void adam_float(float* param, const float* grad, float* exp_avg,
                                     float* exp_avg_sq, int64_t n, const AdamScalars<float> c,
                                     float wd, float decay, bool decoupled) {
  if (decoupled) {
    for (int64_t i = 0; i < n; ++i) {
      param[i] *= decay;
      adam_element(param[i], grad[i], exp_avg[i], exp_avg_sq[i], c);
    }
  } else if (wd != 0.0f) {
    for (int64_t i = 0; i < n; ++i)
      adam_element(param[i], grad[i] + wd * param[i], exp_avg[i], exp_avg_sq[i], c);
  } else {
    for (int64_t i = 0; i < n; ++i) adam_element(param[i], grad[i], exp_avg[i], exp_avg_sq[i], c);
  }
}

template <typename T>
void adam_one(T* param, const T* grad, T* exp_avg, T* exp_avg_sq, int64_t n, const AdamOptions& o,
              int64_t step) {
  const double t = static_cast<double>(step);
  const T bias_correction2_sqrt = static_cast<T>(std::sqrt(1.0 - std::pow(o.beta2, t)));
  const T wd = static_cast<T>(o.weight_decay);
  const T beta1 = static_cast<T>(o.beta1), beta2 = static_cast<T>(o.beta2);
  const T eps = static_cast<T>(o.eps);
  const T step_size = static_cast<T>(o.lr / (1.0 - std::pow(o.beta1, t)));
  const T decay = static_cast<T>(1.0 - o.lr * o.weight_decay);
  const bool decoupled = o.decoupled, maximize = o.maximize;
  const AdamScalars<T> c{beta1, beta2, bias_correction2_sqrt, eps, step_size};
  if constexpr (std::is_same_v<T, float>) {
    if (!maximize) return adam_float(param, grad, exp_avg, exp_avg_sq, n, c, wd, decay, decoupled);
  }
  for (int64_t i = 0; i < n; ++i) {
    T g = maximize ? -grad[i] : grad[i];
    if (decoupled)
      param[i] *= decay;
    else if (wd != T(0))
      g += wd * param[i];
    adam_element(param[i], g, exp_avg[i], exp_avg_sq[i], c);
  }
}

template <typename T>
void rmsprop_one(T* param, const T* grad, T* square_avg, T* momentum_buf, T* grad_avg, int64_t n,
                 const RmspropOptions& o) {
  const T lr = static_cast<T>(o.lr), alpha = static_cast<T>(o.alpha);
  const T eps = static_cast<T>(o.eps), wd = static_cast<T>(o.weight_decay);
  const T momentum = static_cast<T>(o.momentum);
  const bool centered = o.centered, maximize = o.maximize;
  for (int64_t i = 0; i < n; ++i) {
    T g = maximize ? -grad[i] : grad[i];
    if (wd != T(0)) g += wd * param[i];
    square_avg[i] = alpha * square_avg[i] + (T(1) - alpha) * g * g;
    T avg;
    if (centered) {
      grad_avg[i] = alpha * grad_avg[i] + (T(1) - alpha) * g;
      avg = std::sqrt(square_avg[i] - grad_avg[i] * grad_avg[i]) + eps;
    } else {
      avg = std::sqrt(square_avg[i]) + eps;
    }
    if (momentum > T(0)) {
      momentum_buf[i] = momentum * momentum_buf[i] + g / avg;
      param[i] -= lr * momentum_buf[i];
    } else {
      param[i] -= lr * g / avg;
    }
  }
}

template <typename T>
void adagrad_one(T* param, const T* grad, T* sum, int64_t n, const AdagradOptions& o,
                 int64_t step) {
  const T clr = static_cast<T>(o.lr / (1.0 + static_cast<double>(step - 1) * o.lr_decay));
  const T wd = static_cast<T>(o.weight_decay), eps = static_cast<T>(o.eps);
  const bool maximize = o.maximize;
  for (int64_t i = 0; i < n; ++i) {
    T g = maximize ? -grad[i] : grad[i];
    if (wd != T(0)) g += wd * param[i];
    sum[i] += g * g;
    param[i] -= clr * g / (std::sqrt(sum[i]) + eps);
  }
}

// `at(p, b)`: the typed pointer p + b, or null for an unused state.
template <typename T>
T* at(void* p, int64_t b) {
  return p ? static_cast<T*>(p) + b : nullptr;
}
template <typename T>
const T* at(const void* p, int64_t b) {
  return static_cast<const T*>(p) + b;
}

}  // namespace

void CpuBackend::sgd_step(const ParamUpdate* params, int count, const SgdOptions& options) {
  profile::record_launch();
  for (int k = 0; k < count; ++k) {
    const ParamUpdate& u = params[k];
    dispatch_floating(u.dtype, [&]<typename T>() {
      parallel_for(u.n, kParallelGrain, [&](int64_t b, int64_t e) {
        sgd_one(at<T>(u.param, b), at<T>(u.grad, b), at<T>(u.state1, b), e - b, options);
      });
    });
  }
}

void CpuBackend::adam_step(const ParamUpdate* params, int count, const AdamOptions& options) {
  profile::record_launch();
  for (int k = 0; k < count; ++k) {
    const ParamUpdate& u = params[k];
    const int64_t step = ++*u.step;
    dispatch_floating(u.dtype, [&]<typename T>() {
      parallel_for(u.n, kParallelGrain, [&](int64_t b, int64_t e) {
        adam_one(at<T>(u.param, b), at<T>(u.grad, b), at<T>(u.state1, b), at<T>(u.state2, b), e - b,
                 options, step);
      });
    });
  }
}

void CpuBackend::rmsprop_step(const ParamUpdate* params, int count, const RmspropOptions& options) {
  profile::record_launch();
  for (int k = 0; k < count; ++k) {
    const ParamUpdate& u = params[k];
    dispatch_floating(u.dtype, [&]<typename T>() {
      parallel_for(u.n, kParallelGrain, [&](int64_t b, int64_t e) {
        rmsprop_one(at<T>(u.param, b), at<T>(u.grad, b), at<T>(u.state1, b), at<T>(u.state2, b),
                    at<T>(u.state3, b), e - b, options);
      });
    });
  }
}

void CpuBackend::adagrad_step(const ParamUpdate* params, int count, const AdagradOptions& options) {
  profile::record_launch();
  for (int k = 0; k < count; ++k) {
    const ParamUpdate& u = params[k];
    const int64_t step = ++*u.step;
    dispatch_floating(u.dtype, [&]<typename T>() {
      parallel_for(u.n, kParallelGrain, [&](int64_t b, int64_t e) {
        adagrad_one(at<T>(u.param, b), at<T>(u.grad, b), at<T>(u.state1, b), e - b, options, step);
      });
    });
  }
}

}  // namespace torchlet::backend::cpu
