// A small MLP's whole training step (forward, mean cross-entropy, backward, and optionally
// plain SGD) in ONE thread block, repeated `steps` times inside one launch. This is how the
// course's tiny model (4-10-3, 120 rows) stops paying a launch per op: a launch costs a few
// microseconds, while the arithmetic of a whole epoch is about 20 thousand multiply-adds.
// Weights, activations and gradients live in shared memory for the whole launch; only the
// losses and the final weights and gradients go back to global memory.
//
// Shared memory layout (in this order): per-thread loss partials (double), then weights,
// biases, weight gradients, bias gradients, activations act[0..L] ([n][width] row-major; the
// last holds the logits, then the loss gradient), two scratch buffers for the gradients
// flowing back, and the batch's targets.
#include "backends/cuda/common.cuh"

namespace torchlet::backend::cuda::kernels {

namespace {

constexpr int kMlpThreads = 256;

struct Layout {
  int params = 0;  // weights + biases
  int widest_hidden = 0;
  int act_total = 0;  // sum of n * width over act[0..L]
};

Layout layout_of(const int* widths, int layers, int n) {
  Layout l;
  for (int k = 0; k < layers; ++k) l.params += widths[k] * widths[k + 1] + widths[k + 1];
  for (int k = 0; k <= layers; ++k) l.act_total += n * widths[k];
  for (int k = 1; k < layers; ++k)
    l.widest_hidden = widths[k] > l.widest_hidden ? widths[k] : l.widest_hidden;
  if (l.widest_hidden < widths[layers]) l.widest_hidden = widths[layers];
  return l;
}

__global__ void __launch_bounds__(kMlpThreads) mlp_kernel(Mlp m) {
  extern __shared__ double shared[];
  const int tid = threadIdx.x, nt = blockDim.x, L = m.layers, n = m.n;
  double* loss_part = shared;
  float* cursor = reinterpret_cast<float*>(shared + nt);
  float *W[kMlpMaxLayers], *B[kMlpMaxLayers], *GW[kMlpMaxLayers], *GB[kMlpMaxLayers];
  float* act[kMlpMaxLayers + 1];
  for (int l = 0; l < L; ++l) W[l] = cursor, cursor += m.widths[l] * m.widths[l + 1];
  for (int l = 0; l < L; ++l) B[l] = cursor, cursor += m.widths[l + 1];
  for (int l = 0; l < L; ++l) GW[l] = cursor, cursor += m.widths[l] * m.widths[l + 1];
  for (int l = 0; l < L; ++l) GB[l] = cursor, cursor += m.widths[l + 1];
  for (int l = 0; l <= L; ++l) act[l] = cursor, cursor += n * m.widths[l];
  int widest = m.widths[L];
  for (int l = 1; l < L; ++l) widest = m.widths[l] > widest ? m.widths[l] : widest;
  float* scratch[2] = {cursor, cursor + n * widest};
  int* target = reinterpret_cast<int*>(cursor + 2 * n * widest);

  // Load the parameters and the batch (rows gathered, checked).
  for (int l = 0; l < L; ++l) {
    const int nw = m.widths[l] * m.widths[l + 1];
    for (int k = tid; k < nw; k += nt) W[l][k] = m.weight[l][k];
    for (int k = tid; k < m.widths[l + 1]; k += nt) B[l][k] = m.bias[l][k];
  }
  const int f = m.widths[0], c = m.widths[L];
  for (int k = tid; k < n * f; k += nt) {
    const int r = k / f;
    const int64_t row = m.rows ? m.rows[r] : r;
    const bool ok = row >= 0 && row < m.x_rows;
    if (!ok && k % f == 0) report(m.error, row);
    act[0][k] = ok ? m.x[row * f + k % f] : 0.0f;
  }
  for (int r = tid; r < n; r += nt) {
    const int64_t row = m.rows ? m.rows[r] : r;
    const int64_t t = row >= 0 && row < m.x_rows ? m.target[row] : -1;
    if (t < 0 || t >= c) report(m.error, t);
    target[r] = static_cast<int>(t);
  }
  __syncthreads();

  for (int step = 0; step < m.steps; ++step) {
    // Forward: act[l + 1] = act[l] W^T + b, ReLU between layers.
    for (int l = 0; l < L; ++l) {
      const int in = m.widths[l], out = m.widths[l + 1];
      for (int k = tid; k < n * out; k += nt) {
        const int r = k / out, j = k % out;
        const float* w = W[l] + j * in;
        const float* a = act[l] + r * in;
        float z = B[l][j];
        for (int i = 0; i < in; ++i) z += w[i] * a[i];
        act[l + 1][k] = (l + 1 < L && z < 0.0f) ? 0.0f : z;
      }
      __syncthreads();
    }
    // Softmax, the summed loss, and the gradient of the mean loss in place of the logits.
    double acc = 0.0;
    for (int r = tid; r < n; r += nt) {
      float* z = act[L] + r * c;
      const int t = target[r];
      float max = z[0];
      for (int j = 1; j < c; ++j) max = fmaxf(max, z[j]);
      float sum = 0.0f;
      for (int j = 0; j < c; ++j) sum += expf(z[j] - max);
      if (t < 0 || t >= c) {
        acc = nan("");
      } else {
        acc += ::log(static_cast<double>(sum)) - (z[t] - max);
      }
      for (int j = 0; j < c; ++j) z[j] = expf(z[j] - max) / sum / n - (j == t ? 1.0f / n : 0.0f);
    }
    loss_part[tid] = acc;
    __syncthreads();
    for (int half = nt / 2; half > 0; half /= 2) {
      if (tid < half) loss_part[tid] += loss_part[tid + half];
      __syncthreads();
    }
    if (tid == 0) m.loss[step] = static_cast<float>(loss_part[0] / n);
    // Backward: weight and bias gradients of each layer, then the gradient of its input.
    const float* dz = act[L];
    for (int l = L - 1; l >= 0; --l) {
      const int in = m.widths[l], out = m.widths[l + 1];
      for (int k = tid; k < out * in + out; k += nt) {
        const bool is_bias = k >= out * in;
        const int j = is_bias ? k - out * in : k / in, i = k % in;
        float s0 = 0.0f, s1 = 0.0f;  // two chains: half the dependent-add latency
        int r = 0;
        for (; r + 1 < n; r += 2) {
          s0 += dz[r * out + j] * (is_bias ? 1.0f : act[l][r * in + i]);
          s1 += dz[(r + 1) * out + j] * (is_bias ? 1.0f : act[l][(r + 1) * in + i]);
        }
        if (r < n) s0 += dz[r * out + j] * (is_bias ? 1.0f : act[l][r * in + i]);
        if (is_bias)
          GB[l][j] = s0 + s1;
        else
          GW[l][k] = s0 + s1;
      }
      if (l > 0) {
        float* da = scratch[l % 2];
        for (int k = tid; k < n * in; k += nt) {
          const int r = k / in, i = k % in;
          float s = 0.0f;
          for (int j = 0; j < out; ++j) s += W[l][j * in + i] * dz[r * out + j];
          da[k] = act[l][k] > 0.0f ? s : 0.0f;
        }
        dz = da;
      }
      __syncthreads();
    }
    if (m.update) {  // p -= lr * (g + weight_decay * p)
      for (int l = 0; l < L; ++l) {
        const int nw = m.widths[l] * m.widths[l + 1];
        for (int k = tid; k < nw; k += nt) W[l][k] -= m.lr * (GW[l][k] + m.weight_decay * W[l][k]);
        for (int k = tid; k < m.widths[l + 1]; k += nt)
          B[l][k] -= m.lr * (GB[l][k] + m.weight_decay * B[l][k]);
      }
      __syncthreads();
    }
  }

  // Write back the gradients (of the last step) and, when updated, the parameters.
  for (int l = 0; l < L; ++l) {
    const int nw = m.widths[l] * m.widths[l + 1];
    for (int k = tid; k < nw; k += nt) {
      m.weight_grad[l][k] = GW[l][k];
      if (m.update) m.weight[l][k] = W[l][k];
    }
    for (int k = tid; k < m.widths[l + 1]; k += nt) {
      m.bias_grad[l][k] = GB[l][k];
      if (m.update) m.bias[l][k] = B[l][k];
    }
  }
}

}  // namespace

std::size_t mlp_shared_bytes(const int* widths, int layers, int n) {
  const Layout l = layout_of(widths, layers, n);
  const std::size_t floats = 2 * static_cast<std::size_t>(l.params) + l.act_total +
                             2 * static_cast<std::size_t>(n) * l.widest_hidden;
  return kMlpThreads * sizeof(double) + floats * sizeof(float) + n * sizeof(int);
}

void mlp_step(const Mlp& mlp, std::size_t shared_bytes, bool raise_limit, cudaStream_t stream) {
  if (raise_limit)
    cudaFuncSetAttribute(mlp_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         static_cast<int>(shared_bytes));
  mlp_kernel<<<1, kMlpThreads, shared_bytes, stream>>>(mlp);
}

}  // namespace torchlet::backend::cuda::kernels
