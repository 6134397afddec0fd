// The fused softmax + cross-entropy on CUDA. The forward takes many blocks: each block's 32-thread
// groups take a row at a time (max and sum by a tree in shared memory, then the row's probs and
// loss term), a block adds its groups' terms in a fixed order, and a second one-block launch adds
// the blocks' sums by a fixed tree: no float atomics, so the loss is the same run to run. The
// backward is one elementwise launch. Mirrors backends/cpu/loss.cpp.
#include "backends/cuda/common.cuh"

namespace torchlet::backend::cuda::kernels {

namespace {

constexpr int kLanes = 32;                        // threads a row
constexpr int kRowsPerBlock = kThreads / kLanes;  // rows a block takes at once
constexpr int64_t kMaxBlocks = 1024;              // enough to fill any GPU

// The forward's per-block loss sums, read by the second launch. One buffer per device is safe:
// the backend queues everything on its device's one stream, so launches never overlap.
__device__ double block_loss[kMaxBlocks];

// Block b takes rows b*8 .. b*8+7, then the same 8 rows a grid further on, ...; in every pass
// each thread's group either has a row or idles through the barriers with the rest.
__global__ void cross_entropy_rows_kernel(const float* logits, const int64_t* target, float* probs,
                                          int64_t n, int64_t c, ErrorFlag error) {
  __shared__ float max_part[kThreads];
  __shared__ double sum_part[kThreads];
  __shared__ double group_loss[kRowsPerBlock];
  const int lane = static_cast<int>(threadIdx.x) % kLanes;
  const int group = static_cast<int>(threadIdx.x) / kLanes;
  const int first = group * kLanes;  // the group's slot 0 in max_part and sum_part
  double acc = 0.0;                  // lane 0: the loss terms of the group's rows so far
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock; base < n;
       base += static_cast<int64_t>(gridDim.x) * kRowsPerBlock) {
    const int64_t i = base + group;
    const bool live = i < n;
    const float* row = logits + (live ? i : base) * c;
    float max = row[0];
    for (int64_t j = lane; live && j < c; j += kLanes) max = fmaxf(max, row[j]);
    max_part[threadIdx.x] = max;
    __syncthreads();
    for (int half = kLanes / 2; half > 0; half /= 2) {
      if (lane < half)
        max_part[threadIdx.x] = fmaxf(max_part[threadIdx.x], max_part[threadIdx.x + half]);
      __syncthreads();
    }
    // No barrier between passes: slot `first` of max_part is read here and written next by
    // lane 0 only after the sum's barriers below; likewise sum_part after the next max's.
    max = max_part[first];
    double sum = 0.0;
    for (int64_t j = lane; live && j < c; j += kLanes)
      sum += exp(static_cast<double>(row[j] - max));
    sum_part[threadIdx.x] = sum;
    __syncthreads();
    for (int half = kLanes / 2; half > 0; half /= 2) {
      if (lane < half) sum_part[threadIdx.x] += sum_part[threadIdx.x + half];
      __syncthreads();
    }
    sum = sum_part[first];
    for (int64_t j = lane; live && j < c; j += kLanes)
      probs[i * c + j] = static_cast<float>(exp(static_cast<double>(row[j] - max)) / sum);
    if (live && lane == 0) {
      const int64_t t = target[i];
      if (t < 0 || t >= c) {
        report(error, t);
        acc += nan("");
      } else {
        acc += ::log(sum) - (row[t] - max);
      }
    }
  }
  if (lane == 0) group_loss[group] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    double total = 0.0;
    for (int g = 0; g < kRowsPerBlock; ++g) total += group_loss[g];
    block_loss[blockIdx.x] = total;
  }
}

// One block: the blocks' sums by a fixed tree, then the mean.
__global__ void cross_entropy_mean_kernel(float* loss, int64_t blocks, int64_t n) {
  __shared__ double partial[kThreads];
  double acc = 0.0;
  for (int64_t b = threadIdx.x; b < blocks; b += blockDim.x) acc += block_loss[b];
  partial[threadIdx.x] = acc;
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
  const int64_t rows = (n + kRowsPerBlock - 1) / kRowsPerBlock;
  const int64_t blocks = rows < 1 ? 1 : (rows > kMaxBlocks ? kMaxBlocks : rows);
  cross_entropy_rows_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      logits, target, probs, n, c, error);
  cross_entropy_mean_kernel<<<1, kThreads, 0, stream>>>(loss, blocks, n);
}

void cross_entropy_backward(const float* probs, const int64_t* target, const float* dloss,
                            float* dlogits, int64_t n, int64_t c, cudaStream_t stream) {
  cross_entropy_backward_kernel<<<blocks_for(n * c), kThreads, 0, stream>>>(probs, target, dloss,
                                                                            dlogits, n, c);
}

}  // namespace torchlet::backend::cuda::kernels
