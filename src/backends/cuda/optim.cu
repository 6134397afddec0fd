// Optimizer updates on CUDA: every parameter of a step in one launch (blockIdx.y picks the
// parameter, blocks stride over its elements). PyTorch's formulas in the CPU reference's
// order of operations (backends/cpu/optim.cpp).
#include "backends/cuda/common.cuh"

namespace torchlet::backend::cuda::kernels {

namespace {

__global__ void sgd_kernel(Updates updates, SgdOptions o) {
  const ParamUpdate u = updates.u[blockIdx.y];
  TORCHLET_GRID_STRIDE(i, u.n) {
    float d = u.grad[i];
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
  TORCHLET_GRID_STRIDE(i, u.n) {
    float g = u.grad[i];
    if (o.weight_decay != 0.0f) g += o.weight_decay * u.param[i];
    const float m = o.beta1 * u.state1[i] + (1.0f - o.beta1) * g;
    const float v = o.beta2 * u.state2[i] + (1.0f - o.beta2) * g * g;
    u.state1[i] = m;
    u.state2[i] = v;
    const float denom = sqrtf(v) / bias_correction2_sqrt + o.eps;
    u.param[i] -= step_size * m / denom;
  }
}

// One thread per parameter adds one to its step count, before adam_kernel reads it.
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

}  // namespace torchlet::backend::cuda::kernels
