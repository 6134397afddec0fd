// Optimizer updates on CUDA: every parameter of a step in one launch (blockIdx.y picks the
// parameter, blocks stride over its elements), one template per element type (float32,
// float64; a launch's updates share one). PyTorch's formulas in the CPU reference's order of
// operations (backends/cpu/optim.cpp), with the options rounded to T as there.
#include <type_traits>

#include "backends/cuda/common.cuh"

namespace torchlet::backend::cuda::kernels {

namespace {

template <typename T>
__device__ inline T root(T x) {
  if constexpr (std::is_same_v<T, float>)
    return sqrtf(x);
  else
    return sqrt(x);
}

// The kernels take a T (zero) only to name their element type without explicit template
// arguments at the launch.
template <typename T>
__global__ void sgd_kernel(Updates updates, SgdOptions o, T) {
  const ParamUpdate u = updates.u[blockIdx.y];
  T* param = static_cast<T*>(u.param);
  const T* grad = static_cast<const T*>(u.grad);
  T* buffer = static_cast<T*>(u.state1);
  const T lr = static_cast<T>(o.lr), wd = static_cast<T>(o.weight_decay);
  const T momentum = static_cast<T>(o.momentum);
  TORCHLET_GRID_STRIDE(i, u.n) {
    T d = o.maximize ? -grad[i] : grad[i];
    if (wd != T(0)) d += wd * param[i];
    if (momentum != T(0)) {
      const T buf = momentum * buffer[i] + d;  // zero before the first step
      buffer[i] = buf;
      d = o.nesterov ? d + momentum * buf : buf;
    }
    param[i] -= lr * d;
  }
}

template <typename T>
__global__ void adam_kernel(Updates updates, AdamOptions o, T) {
  const ParamUpdate u = updates.u[blockIdx.y];
  T* param = static_cast<T*>(u.param);
  const T* grad = static_cast<const T*>(u.grad);
  T* exp_avg = static_cast<T*>(u.state1);
  T* exp_avg_sq = static_cast<T*>(u.state2);
  const double t = static_cast<double>(*u.step);
  const T bias_correction2_sqrt = static_cast<T>(sqrt(1.0 - pow(o.beta2, t)));
  const T step_size = static_cast<T>(o.lr / (1.0 - pow(o.beta1, t)));
  const T decay = static_cast<T>(1.0 - o.lr * o.weight_decay);
  const T wd = static_cast<T>(o.weight_decay), eps = static_cast<T>(o.eps);
  const T beta1 = static_cast<T>(o.beta1), beta2 = static_cast<T>(o.beta2);
  TORCHLET_GRID_STRIDE(i, u.n) {
    T g = o.maximize ? -grad[i] : grad[i];
    if (o.decoupled)
      param[i] *= decay;
    else if (wd != T(0))
      g += wd * param[i];
    const T m = beta1 * exp_avg[i] + (T(1) - beta1) * g;
    const T v = beta2 * exp_avg_sq[i] + (T(1) - beta2) * g * g;
    exp_avg[i] = m;
    exp_avg_sq[i] = v;
    const T denom = root(v) / bias_correction2_sqrt + eps;
    param[i] -= step_size * m / denom;
  }
}

template <typename T>
__global__ void rmsprop_kernel(Updates updates, RmspropOptions o, T) {
  const ParamUpdate u = updates.u[blockIdx.y];
  T* param = static_cast<T*>(u.param);
  const T* grad = static_cast<const T*>(u.grad);
  T* square_avgs = static_cast<T*>(u.state1);
  T* buffer = static_cast<T*>(u.state2);
  T* grad_avgs = static_cast<T*>(u.state3);
  const T lr = static_cast<T>(o.lr), alpha = static_cast<T>(o.alpha);
  const T eps = static_cast<T>(o.eps), wd = static_cast<T>(o.weight_decay);
  const T momentum = static_cast<T>(o.momentum);
  TORCHLET_GRID_STRIDE(i, u.n) {
    T g = o.maximize ? -grad[i] : grad[i];
    if (wd != T(0)) g += wd * param[i];
    const T square_avg = alpha * square_avgs[i] + (T(1) - alpha) * g * g;
    square_avgs[i] = square_avg;
    T avg;
    if (o.centered) {
      const T grad_avg = alpha * grad_avgs[i] + (T(1) - alpha) * g;
      grad_avgs[i] = grad_avg;
      avg = root(square_avg - grad_avg * grad_avg) + eps;
    } else {
      avg = root(square_avg) + eps;
    }
    if (momentum > T(0)) {
      const T buf = momentum * buffer[i] + g / avg;
      buffer[i] = buf;
      param[i] -= lr * buf;
    } else {
      param[i] -= lr * g / avg;
    }
  }
}

template <typename T>
__global__ void adagrad_kernel(Updates updates, AdagradOptions o, T) {
  const ParamUpdate u = updates.u[blockIdx.y];
  T* param = static_cast<T*>(u.param);
  const T* grad = static_cast<const T*>(u.grad);
  T* sums = static_cast<T*>(u.state1);
  const T clr = static_cast<T>(o.lr / (1.0 + static_cast<double>(*u.step - 1) * o.lr_decay));
  const T wd = static_cast<T>(o.weight_decay), eps = static_cast<T>(o.eps);
  TORCHLET_GRID_STRIDE(i, u.n) {
    T g = o.maximize ? -grad[i] : grad[i];
    if (wd != T(0)) g += wd * param[i];
    const T sum = sums[i] + g * g;
    sums[i] = sum;
    param[i] -= clr * g / (root(sum) + eps);
  }
}

// One thread per parameter adds one to its step count, before adam_kernel (or adagrad_kernel)
// reads it.
__global__ void advance_steps_kernel(Updates updates) {
  if (static_cast<int>(threadIdx.x) < updates.count) ++*updates.u[threadIdx.x].step;
}

dim3 grid_for(const Updates& updates) {
  int64_t largest = 1;
  for (int k = 0; k < updates.count; ++k)
    largest = updates.u[k].n > largest ? updates.u[k].n : largest;
  const unsigned x = blocks_for(largest) < 1024 ? blocks_for(largest) : 1024;
  return dim3(x, static_cast<unsigned>(updates.count));
}

// f(T{}) for the updates' element type, float or double.
template <typename F>
void with_float_type(const Updates& updates, F&& f) {
  if (updates.u[0].dtype == DType::Float64)
    f(double{});
  else
    f(float{});
}

}  // namespace

void sgd_step(const Updates& updates, const SgdOptions& options, cudaStream_t stream) {
  with_float_type(updates, [&](auto zero) {
    sgd_kernel<<<grid_for(updates), kThreads, 0, stream>>>(updates, options, zero);
  });
}

void adam_step(const Updates& updates, const AdamOptions& options, cudaStream_t stream) {
  advance_steps_kernel<<<1, kMaxUpdates, 0, stream>>>(updates);
  with_float_type(updates, [&](auto zero) {
    adam_kernel<<<grid_for(updates), kThreads, 0, stream>>>(updates, options, zero);
  });
}

void rmsprop_step(const Updates& updates, const RmspropOptions& options, cudaStream_t stream) {
  with_float_type(updates, [&](auto zero) {
    rmsprop_kernel<<<grid_for(updates), kThreads, 0, stream>>>(updates, options, zero);
  });
}

void adagrad_step(const Updates& updates, const AdagradOptions& options, cudaStream_t stream) {
  advance_steps_kernel<<<1, kMaxUpdates, 0, stream>>>(updates);
  with_float_type(updates, [&](auto zero) {
    adagrad_kernel<<<grid_for(updates), kThreads, 0, stream>>>(updates, options, zero);
  });
}

}  // namespace torchlet::backend::cuda::kernels
