// CpuBackend::mlp_step: forward, mean cross-entropy and backward of a small MLP in one call.
// Activations are kept transposed, [features][batch], so every loop runs along the batch in
// 8-float vectors (for Iris, 120 rows = 15 vectors), with the batch padded to a multiple of 8.
// Note [Padding lanes]: padded lanes of each layer's input may hold anything, but the loss
// gradient is zero there, so they never reach a weight gradient.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/simd.h"
#include "torchlet/error.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cpu {

namespace {

using simd::v8;

// Runs body.template operator()<V>(v) over the vectors of a row of np floats: blocks of four
// vectors, then one block of the 1-3 left, so each accumulator chain stays short and several
// run side by side (a lone chain waits on FMA latency).
template <typename Body>
TORCHLET_SIMD_INLINE void for_vector_blocks(int64_t np, Body&& body) {
  int64_t v = 0;
  for (; v + 32 <= np; v += 32) body.template operator()<4>(v);
  switch ((np - v) / 8) {
    case 3: body.template operator()<3>(v); break;
    case 2: body.template operator()<2>(v); break;
    case 1: body.template operator()<1>(v); break;
    default: break;
  }
}

// Z[j][:] = b[j] + sum_i W[j][i] A[i][:], then ReLU when `relu`; A is [in][np], Z [out][np].
TORCHLET_SIMD_INLINE void affine(int64_t in, int64_t out, int64_t np, const float* w,
                                 const float* b, const float* a, float* z, bool relu) {
  for (int64_t j = 0; j < out; ++j) {
    const float* wj = w + j * in;
    for_vector_blocks(np, [&]<int V>(int64_t v) {
      v8 acc[V];
      for (int u = 0; u < V; ++u) acc[u] = simd::splat(b[j]);
      for (int64_t i = 0; i < in; ++i)
        for (int u = 0; u < V; ++u) acc[u] += wj[i] * simd::load(a + i * np + v + 8 * u);
      for (int u = 0; u < V; ++u)
        simd::store(z + j * np + v + 8 * u, relu ? simd::max(acc[u], v8{}) : acc[u]);
    });
  }
}

// Softmax down each column of logits [c][np] in place, the summed loss of the n real columns
// (in double), and then the gradient of the mean loss, (p - onehot) * lane_scale, where
// lane_scale is 1/n in real columns and 0 in padding. tf: targets as floats (-1 in padding).
TORCHLET_SIMD_INLINE double softmax_cross_entropy(int64_t c, int64_t n, int64_t np, float* z,
                                                  const int64_t* t, const float* tf,
                                                  const float* lane_scale) {
  double total = 0.0, product = 1.0;
  for (int64_t v = 0; v < np; v += 8) {
    v8 m = simd::load(z + v);
    for (int64_t k = 1; k < c; ++k) m = simd::max(m, simd::load(z + k * np + v));
    // -log p[t] = log(sum_k e^(z_k - max)) - (z_t - max). The logs of the sums (each in
    // [1, c]) go through a running product: one log per 32 rows instead of one per row.
    float maxes[8];
    simd::store(maxes, m);
    for (int64_t col = v; col < v + 8 && col < n; ++col)
      total -= z[t[col] * np + col] - maxes[col - v];
    v8 sum{};
    for (int64_t k = 0; k < c; ++k) {
      const v8 e = simd::exp(simd::load(z + k * np + v) - m);
      simd::store(z + k * np + v, e);
      sum += e;
    }
    float sums[8];
    simd::store(sums, sum);
    for (int64_t col = v; col < v + 8 && col < n; ++col) {
      product *= sums[col - v];
      if (col % 32 == 31) total += std::log(product), product = 1.0;
    }
    const v8 scale = simd::load(lane_scale + v) / sum;
    const v8 target = simd::load(tf + v);
    for (int64_t k = 0; k < c; ++k) {
      const v8 p = simd::load(z + k * np + v) * scale;  // softmax / n
      const v8 hit = target == static_cast<float>(k) ? simd::load(lane_scale + v) : v8{};
      simd::store(z + k * np + v, p - hit);
    }
  }
  return total + std::log(product);
}

// dW[j][i .. i+U) = sum_col dZ[j][col] A[i + u][col]: U dot products sharing each load of
// dZ[j]; the first block also sums dZ[j] into db[j].
template <int U>
TORCHLET_SIMD_INLINE void weight_grad_block(int64_t i, int64_t np, const float* dzj, const float* a,
                                            float* dwj, float* dbj) {
  v8 acc[U] = {}, bsum{};
  for (int64_t v = 0; v < np; v += 8) {
    const v8 d = simd::load(dzj + v);
    if (dbj) bsum += d;
    for (int u = 0; u < U; ++u) acc[u] += d * simd::load(a + (i + u) * np + v);
  }
  for (int u = 0; u < U; ++u) dwj[i + u] = simd::sum(acc[u]);
  if (dbj) *dbj = simd::sum(bsum);
}

// dW[j][i] = sum_col dZ[j][col] A[i][col]; db[j] = sum_col dZ[j][col].
TORCHLET_SIMD_INLINE void weight_grads(int64_t in, int64_t out, int64_t np, const float* dz,
                                       const float* a, float* dw, float* db) {
  for (int64_t j = 0; j < out; ++j) {
    const float* dzj = dz + j * np;
    float* dwj = dw + j * in;
    float* dbj = db + j;  // summed once, by the first block
    int64_t i = 0;
    for (; i + 4 <= in; i += 4, dbj = nullptr) weight_grad_block<4>(i, np, dzj, a, dwj, dbj);
    switch (in - i) {
      case 3: weight_grad_block<3>(i, np, dzj, a, dwj, dbj); break;
      case 2: weight_grad_block<2>(i, np, dzj, a, dwj, dbj); break;
      case 1: weight_grad_block<1>(i, np, dzj, a, dwj, dbj); break;
      default: break;
    }
  }
}

// dA[i][:] = (sum_j W[j][i] dZ[j][:]) where the ReLU output A[i][:] > 0, else 0.
TORCHLET_SIMD_INLINE void input_grads(int64_t in, int64_t out, int64_t np, const float* w,
                                      const float* dz, const float* a, float* da) {
  for (int64_t i = 0; i < in; ++i)
    for_vector_blocks(np, [&]<int V>(int64_t v) {
      v8 acc[V] = {};
      for (int64_t j = 0; j < out; ++j)
        for (int u = 0; u < V; ++u) acc[u] += w[j * in + i] * simd::load(dz + j * np + v + 8 * u);
      for (int u = 0; u < V; ++u) {
        const int64_t at = i * np + v + 8 * u;
        simd::store(da + at, simd::load(a + at) > v8{} ? acc[u] : v8{});
      }
    });
}

int64_t widest_of(const MlpStep& s) {
  int64_t widest = 0;
  for (int l = 0; l <= s.layers; ++l) widest = std::max(widest, s.widths[l]);
  return widest;
}

// p -= lr * (g + weight_decay * p), PyTorch's SGD without momentum.
TORCHLET_SIMD_INLINE void sgd_update(float* p, const float* g, int64_t n, const MlpSgd& sgd) {
  for (int64_t i = 0; i < n; ++i) p[i] -= sgd.lr * (g[i] + sgd.weight_decay * p[i]);
}

// `steps` steps on the same batch; losses[i] gets step i's mean loss; with sgd, the weights
// are updated after each step.
TORCHLET_SIMD_CLONES void run(const MlpStep& s, const MlpSgd* sgd, int64_t steps, float* losses,
                              float* work, const int64_t* t, const float* tf,
                              const float* lane_scale, int64_t np) {
  const int layers = s.layers;
  const int64_t* w = s.widths;
  // act[l]: layer l's input [w[l]][np]; act[layers]: logits, then the loss gradient.
  std::vector<float*> act(static_cast<std::size_t>(layers) + 1);
  float* cursor = work;
  for (int l = 0; l <= layers; ++l) act[l] = cursor, cursor += w[l] * np;
  float* scratch[2] = {cursor, cursor + widest_of(s) * np};  // gradients flowing back
  const int64_t f = w[0];
  for (int64_t i = 0; i < f; ++i)
    for (int64_t col = 0; col < np; ++col)
      act[0][i * np + col] = col < s.n ? s.x[(s.rows ? s.rows[col] : col) * f + i] : 0.0f;
  for (int64_t step = 0; step < steps; ++step) {
    for (int l = 0; l < layers; ++l)
      affine(w[l], w[l + 1], np, s.weight[l], s.bias[l], act[l], act[l + 1], l + 1 < layers);
    const double total = softmax_cross_entropy(w[layers], s.n, np, act[layers], t, tf, lane_scale);
    losses[step] = static_cast<float>(total / static_cast<double>(s.n));
    float* dz = act[layers];
    for (int l = layers - 1; l >= 0; --l) {
      weight_grads(w[l], w[l + 1], np, dz, act[l], s.weight_grad[l], s.bias_grad[l]);
      if (l == 0) break;
      float* da = scratch[l % 2];
      input_grads(w[l], w[l + 1], np, s.weight[l], dz, act[l], da);
      dz = da;
    }
    if (!sgd) continue;
    for (int l = 0; l < layers; ++l) {
      sgd_update(s.weight[l], s.weight_grad[l], w[l] * w[l + 1], *sgd);
      sgd_update(s.bias[l], s.bias_grad[l], w[l + 1], *sgd);
    }
  }
}

// Checks the batch's rows and targets, lays out per-column constants, and runs.
void mlp_run(const MlpStep& s, const MlpSgd* sgd, int64_t steps, float* losses) {
  const int64_t np = (s.n + 7) / 8 * 8;
  const int64_t classes = s.widths[s.layers];
  int64_t total_width = 0;
  for (int l = 0; l <= s.layers; ++l) total_width += s.widths[l];
  thread_local std::vector<float> work, target_floats, lane_scale;
  thread_local std::vector<int64_t> targets;
  work.resize(static_cast<std::size_t>((total_width + 2 * widest_of(s)) * np));
  targets.assign(static_cast<std::size_t>(np), 0);
  target_floats.assign(static_cast<std::size_t>(np), -1.0f);
  lane_scale.assign(static_cast<std::size_t>(np), 0.0f);
  std::fill_n(lane_scale.begin(), s.n, 1.0f / static_cast<float>(s.n));
  for (int64_t col = 0; col < s.n; ++col) {
    const int64_t row = s.rows ? s.rows[col] : col;
    TORCHLET_CHECK(row >= 0 && row < s.x_rows, "FusedMlp: Expected row indices in [0, ", s.x_rows,
                   "), but got ", row);
    const int64_t t = s.target[row];
    TORCHLET_CHECK(t >= 0 && t < classes,
                   "cross_entropy: Expected every target to be a class "
                   "index in [0, ",
                   classes, "), but got ", t, " at position ", col);
    targets[col] = t;
    target_floats[col] = static_cast<float>(t);
  }
  run(s, sgd, steps, losses, work.data(), targets.data(), target_floats.data(), lane_scale.data(),
      np);
}

}  // namespace

void CpuBackend::mlp_step(const MlpStep& s) {
  profile::record_launch();
  mlp_run(s, nullptr, 1, s.loss);
}

void CpuBackend::mlp_sgd_steps(const MlpStep& s, const MlpSgd& sgd, int64_t steps, float* losses) {
  profile::record_launch();
  mlp_run(s, &sgd, steps, losses);
}

}  // namespace torchlet::backend::cpu
