// The fused softmax + cross-entropy on CUDA: the forward is one block (each thread takes rows,
// then a fixed-order tree sums their losses, so the result is deterministic); the backward is
// one elementwise launch. Mirrors backends/cpu/loss.cpp.
#include "backends/cuda/common.cuh"

namespace torchlet::backend::cuda::kernels {

namespace {

__global__ void cross_entropy_forward_kernel(const float* logits, const int64_t* target,
                                             float* loss, float* probs, int64_t n, int64_t c,
                                             ErrorFlag error) {
  __shared__ double partial[kThreads];
  double acc = 0.0;
  bool bad = false;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const int64_t t = target[i];
    const float* row = logits + i * c;
    float max = row[0];
    for (int64_t j = 1; j < c; ++j) max = fmaxf(max, row[j]);
    double sum = 0.0;
    for (int64_t j = 0; j < c; ++j) sum += exp(static_cast<double>(row[j] - max));
    for (int64_t j = 0; j < c; ++j)
      probs[i * c + j] = static_cast<float>(exp(static_cast<double>(row[j] - max)) / sum);
    if (t < 0 || t >= c) {
      report(error, t);
      bad = true;
    } else {
      acc += ::log(sum) - (row[t] - max);
    }
  }
  partial[threadIdx.x] = bad ? nan("") : acc;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) loss[0] = static_cast<float>(partial[0] / static_cast<double>(n));
}

__global__ void cross_entropy_backward_kernel(const float* probs, const int64_t* target,
                                              const float* dloss, float* dlogits, int64_t n,
                                              int64_t c) {
  const float scale = dloss[0] / static_cast<float>(n);
  TORCHLET_GRID_STRIDE(k, n * c) {
    const int64_t i = k / c, j = k % c;
    dlogits[k] = probs[k] * scale - (target[i] == j ? scale : 0.0f);
  }
}

}  // namespace

void cross_entropy_forward(const float* logits, const int64_t* target, float* loss, float* probs,
                           int64_t n, int64_t c, ErrorFlag error, cudaStream_t stream) {
  cross_entropy_forward_kernel<<<1, kThreads, 0, stream>>>(logits, target, loss, probs, n, c,
                                                           error);
}

void cross_entropy_backward(const float* probs, const int64_t* target, const float* dloss,
                            float* dlogits, int64_t n, int64_t c, cudaStream_t stream) {
  cross_entropy_backward_kernel<<<blocks_for(n * c), kThreads, 0, stream>>>(probs, target, dloss,
                                                                            dlogits, n, c);
}

}  // namespace torchlet::backend::cuda::kernels
