// Optimizer updates on CUDA: every parameter of a step in one launch (blockIdx.y picks the
// parameter, blocks stride over its elements). PyTorch's formulas in the CPU reference's
// order of operations (backends/cpu/optim.cpp).
#include "backends/cuda/common.cuh"

namespace torchlet::backend::cuda::kernels {

namespace {

__global__ void sgd_kernel(Updates updates, SgdOptions o) {
  const ParamUpdate u = updates.u[blockIdx.y];
  TORCHLET_GRID_STRIDE(i, u.n) {
    float d = o.maximize ? -u.grad[i] : u.grad[i];
    if (o.weight_decay != 0.0f) d += o.weight_decay * u.param[i];
    if (o.momentum != 0.0f) {
      const float buf = o.momentum * u.state1[i] + d;  // zero before the first step
      u.state1[i] = buf;
      d = o.nesterov ? d + o.momentum * buf : buf;
    }
    u.param[i] -= o.lr * d;
  }
}

__global__ void adam_kernel(Updates updates, AdamOptions o) {
  const ParamUpdate u = updates.u[blockIdx.y];
  const double t = static_cast<double>(*u.step);
  const float bias_correction1 = static_cast<float>(1.0 - pow(static_cast<double>(o.beta1), t));
  const float bias_correction2_sqrt =
      static_cast<float>(sqrt(1.0 - pow(static_cast<double>(o.beta2), t)));
  const float step_size = o.lr / bias_correction1;
  const float decay = static_cast<float>(1.0 - static_cast<double>(o.lr) * o.weight_decay);
  TORCHLET_GRID_STRIDE(i, u.n) {
    float g = o.maximize ? -u.grad[i] : u.grad[i];
    if (o.decoupled)
      u.param[i] *= decay;
    else if (o.weight_decay != 0.0f)
      g += o.weight_decay * u.param[i];
    const float m = o.beta1 * u.state1[i] + (1.0f - o.beta1) * g;
    const float v = o.beta2 * u.state2[i] + (1.0f - o.beta2) * g * g;
    u.state1[i] = m;
    u.state2[i] = v;
    const float denom = sqrtf(v) / bias_correction2_sqrt + o.eps;
    u.param[i] -= step_size * m / denom;
  }
}

__global__ void rmsprop_kernel(Updates updates, RmspropOptions o) {
  const ParamUpdate u = updates.u[blockIdx.y];
  TORCHLET_GRID_STRIDE(i, u.n) {
    float g = o.maximize ? -u.grad[i] : u.grad[i];
    if (o.weight_decay != 0.0f) g += o.weight_decay * u.param[i];
    const float square_avg = o.alpha * u.state1[i] + (1.0f - o.alpha) * g * g;
    u.state1[i] = square_avg;
    float avg;
    if (o.centered) {
      const float grad_avg = o.alpha * u.state3[i] + (1.0f - o.alpha) * g;
      u.state3[i] = grad_avg;
      avg = sqrtf(square_avg - grad_avg * grad_avg) + o.eps;
    } else {
      avg = sqrtf(square_avg) + o.eps;
    }
    if (o.momentum > 0.0f) {
      const float buf = o.momentum * u.state2[i] + g / avg;
      u.state2[i] = buf;
      u.param[i] -= o.lr * buf;
    } else {
      u.param[i] -= o.lr * g / avg;
    }
  }
}

__global__ void adagrad_kernel(Updates updates, AdagradOptions o) {
  const ParamUpdate u = updates.u[blockIdx.y];
  const float clr = static_cast<float>(
      o.lr / (1.0 + static_cast<double>(*u.step - 1) * static_cast<double>(o.lr_decay)));
  TORCHLET_GRID_STRIDE(i, u.n) {
    float g = o.maximize ? -u.grad[i] : u.grad[i];
    if (o.weight_decay != 0.0f) g += o.weight_decay * u.param[i];
    const float sum = u.state1[i] + g * g;
    u.state1[i] = sum;
    u.param[i] -= clr * g / (sqrtf(sum) + o.eps);
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

}  // namespace

void sgd_step(const Updates& updates, const SgdOptions& options, cudaStream_t stream) {
  sgd_kernel<<<grid_for(updates), kThreads, 0, stream>>>(updates, options);
}

void adam_step(const Updates& updates, const AdamOptions& options, cudaStream_t stream) {
  advance_steps_kernel<<<1, kMaxUpdates, 0, stream>>>(updates);
  adam_kernel<<<grid_for(updates), kThreads, 0, stream>>>(updates, options);
}

void rmsprop_step(const Updates& updates, const RmspropOptions& options, cudaStream_t stream) {
  rmsprop_kernel<<<grid_for(updates), kThreads, 0, stream>>>(updates, options);
}

void adagrad_step(const Updates& updates, const AdagradOptions& options, cudaStream_t stream) {
  advance_steps_kernel<<<1, kMaxUpdates, 0, stream>>>(updates);
  adagrad_kernel<<<grid_for(updates), kThreads, 0, stream>>>(updates, options);
}

}  // namespace torchlet::backend::cuda::kernels
