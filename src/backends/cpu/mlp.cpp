// CpuBackend::mlp_step: forward, mean cross-entropy and backward of a small MLP in one call.
// Activations are kept transposed, [features][batch], so every loop runs along the batch in
// 8-float vectors (for Iris, 120 rows = 15 vectors), with the batch padded to a multiple of 8.
// Note [Padding lanes]: padded lanes of each layer's input may hold anything, but the loss
// gradient is zero there, so they never reach a weight gradient.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
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

// Softmax down each column of logits [c][np] in place, the summed loss of the real columns
// (lane_scale > 0), and then the gradient of the mean loss, (p - onehot) * lane_scale, where
// lane_scale is 1/n in real columns and 0 in padding. tf: targets as floats (-1 in padding).
// -log p[t] = log(sum_k e^(z_k - max)) - (z_t - max); each lane keeps the product of its
// columns' sums (each in [1, c]) as a mantissa in [1, 2) and a power of two, so the step needs
// only eight logs, at the end.
TORCHLET_SIMD_INLINE double softmax_cross_entropy(int64_t c, int64_t np, float* z, const float* tf,
                                                  const float* lane_scale) {
  v8 mantissa = simd::splat(1.0f), shifted{};  // shifted: the sum of z_t - max
  simd::v8i exponent{};
  for (int64_t v = 0; v < np; v += 8) {
    const v8 target = simd::load(tf + v), scale = simd::load(lane_scale + v);
    const simd::v8i real = scale > v8{};
    v8 m = simd::load(z + v);
    for (int64_t k = 1; k < c; ++k) m = simd::max(m, simd::load(z + k * np + v));
    v8 sum{}, zt{};
    for (int64_t k = 0; k < c; ++k) {
      const v8 zk = simd::load(z + k * np + v);
      zt = target == static_cast<float>(k) ? zk : zt;
      const v8 e = simd::exp(zk - m);
      simd::store(z + k * np + v, e);
      sum += e;
    }
    shifted += real ? zt - m : v8{};
    const simd::v8i product = simd::bits(mantissa * (real ? sum : simd::splat(1.0f)));
    exponent += (product >> 23) - 127;
    mantissa = simd::from_bits((product & 0x007fffff) | 0x3f800000);
    const v8 p_scale = scale / sum;
    for (int64_t k = 0; k < c; ++k) {
      const v8 p = simd::load(z + k * np + v) * p_scale;  // softmax / n
      const v8 hit = target == static_cast<float>(k) ? scale : v8{};
      simd::store(z + k * np + v, p - hit);
    }
  }
  double total = 0.0;
  for (int lane = 0; lane < 8; ++lane)
    total += std::log(static_cast<double>(mantissa[lane])) + std::numbers::ln2 * exponent[lane] -
             static_cast<double>(shifted[lane]);
  return total;
}

// out[i] = the sum of the lanes of the vector at p + 8 i, for i in [0, n): eight at a time.
TORCHLET_SIMD_INLINE void lane_sums(const float* p, int64_t n, float* out) {
  v8 group[8];
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int u = 0; u < 8; ++u) group[u] = simd::load(p + 8 * (i + u));
    simd::store(out + i, simd::sums(group));
  }
  if (i == n) return;
  for (int u = 0; u < 8; ++u) group[u] = i + u < n ? simd::load(p + 8 * (i + u)) : v8{};
  float last[8];
  simd::store(last, simd::sums(group));
  std::copy_n(last, n - i, out + i);
}

// The lanes of dW[j][i .. i+U) = sum_col dZ[j][col] A[i + u][col] into pw (a vector each): U
// dot products sharing each load of dZ[j]; with pb, the lanes of db[j] = sum_col dZ[j][col].
template <int U>
TORCHLET_SIMD_INLINE void weight_grad_block(int64_t i, int64_t np, const float* dzj, const float* a,
                                            float* pw, float* pb) {
  v8 acc[U] = {}, bsum{};
  for (int64_t v = 0; v < np; v += 8) {
    const v8 d = simd::load(dzj + v);
    if (pb) bsum += d;
    for (int u = 0; u < U; ++u) acc[u] += d * simd::load(a + (i + u) * np + v);
  }
  for (int u = 0; u < U; ++u) simd::store(pw + 8 * (i + u), acc[u]);
  if (pb) simd::store(pb, bsum);
}

// dW[j][i] = sum_col dZ[j][col] A[i][col]; db[j] = sum_col dZ[j][col]. The lanes go through
// `partial` (8 (in + 1) out floats), then are summed eight weights at a time.
TORCHLET_SIMD_INLINE void weight_grads(int64_t in, int64_t out, int64_t np, const float* dz,
                                       const float* a, float* dw, float* db, float* partial) {
  float* const bias_partial = partial + 8 * in * out;
  for (int64_t j = 0; j < out; ++j) {
    const float* dzj = dz + j * np;
    float* pw = partial + 8 * j * in;
    float* pb = bias_partial + 8 * j;  // summed once, by the first block
    int64_t i = 0;
    for (; i + 4 <= in; i += 4, pb = nullptr) weight_grad_block<4>(i, np, dzj, a, pw, pb);
    switch (in - i) {
      case 3: weight_grad_block<3>(i, np, dzj, a, pw, pb); break;
      case 2: weight_grad_block<2>(i, np, dzj, a, pw, pb); break;
      case 1: weight_grad_block<1>(i, np, dzj, a, pw, pb); break;
      default: break;
    }
  }
  lane_sums(partial, in * out, dw);
  lane_sums(bias_partial, out, db);
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

// p -= lr * (g + weight_decay * p), PyTorch's SGD without momentum.
TORCHLET_SIMD_INLINE void sgd_update(float* p, const float* g, int64_t n, const MlpSgd& sgd) {
  for (int64_t i = 0; i < n; ++i) p[i] -= sgd.lr * (g[i] + sgd.weight_decay * p[i]);
}

// Where run() keeps its vectors: act[l] is layer l's input [w[l]][np] (act[layers]: the
// logits, then the loss gradient); scratch[2]: the gradients flowing back; partial: the lanes
// of one layer's weight gradients.
struct Work {
  std::vector<float*> act;
  float* scratch[2];
  float* partial;
};

// `steps` steps on the same batch; losses[i] gets step i's mean loss; with sgd, the weights
// are updated after each step.
TORCHLET_SIMD_CLONES void run(const MlpStep& s, const MlpSgd* sgd, int64_t steps, float* losses,
                              const Work& work, const float* tf, const float* lane_scale,
                              int64_t np) {
  const int layers = s.layers;
  const int64_t* w = s.widths;
  float* const* act = work.act.data();
  for (int64_t step = 0; step < steps; ++step) {
    for (int l = 0; l < layers; ++l)
      affine(w[l], w[l + 1], np, s.weight[l], s.bias[l], act[l], act[l + 1], l + 1 < layers);
    const double total = softmax_cross_entropy(w[layers], np, act[layers], tf, lane_scale);
    losses[step] = static_cast<float>(total / static_cast<double>(s.n));
    float* dz = act[layers];
    for (int l = layers - 1; l >= 0; --l) {
      weight_grads(w[l], w[l + 1], np, dz, act[l], s.weight_grad[l], s.bias_grad[l], work.partial);
      if (l == 0) break;
      float* da = work.scratch[l % 2];
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

// The last batch of all the rows (rows null) laid out on this thread, and where: a step
// replayed on the same features and targets (a training loop's every epoch) finds them still
// transposed in act[0] (which run() only reads) and checked, with their per-column constants.
struct LaidOut {
  std::vector<float> x;
  std::vector<int64_t> target;
  const float* at = nullptr;  // act[0]; null: nothing held
  int64_t x_rows = 0, features = 0, classes = 0;

  bool holds(const MlpStep& s, const float* x0, int64_t classes_now) const {
    return !s.rows && at == x0 && x_rows == s.x_rows && features == s.widths[0] &&
           classes == classes_now && static_cast<int64_t>(target.size()) == s.n &&
           std::memcmp(target.data(), s.target, target.size() * sizeof(int64_t)) == 0 &&
           std::memcmp(x.data(), s.x, x.size() * sizeof(float)) == 0;
  }
};

// Checks the batch's rows and targets and lays them out: the features transposed into x0
// ([features][np], zero in padding), the targets as floats (-1 in padding) and the loss's
// per-column scale (1/n, 0 in padding).
void lay_out(const MlpStep& s, int64_t np, int64_t classes, float* x0,
             std::vector<float>& target_floats, std::vector<float>& lane_scale) {
  target_floats.assign(static_cast<std::size_t>(np), -1.0f);
  lane_scale.assign(static_cast<std::size_t>(np), 0.0f);
  std::fill_n(lane_scale.begin(), s.n, 1.0f / static_cast<float>(s.n));
  const int64_t features = s.widths[0];
  for (int64_t col = 0; col < s.n; ++col) {
    const int64_t row = s.rows ? s.rows[col] : col;
    TORCHLET_CHECK(row >= 0 && row < s.x_rows, "FusedMlp: Expected row indices in [0, ", s.x_rows,
                   "), but got ", row);
    const int64_t t = s.target[row];
    TORCHLET_CHECK(t >= 0 && t < classes,
                   "cross_entropy: Expected every target to be a class "
                   "index in [0, ",
                   classes, "), but got ", t, " at position ", col);
    target_floats[col] = static_cast<float>(t);
    const float* x = s.x + row * features;
    for (int64_t i = 0; i < features; ++i) x0[i * np + col] = x[i];
  }
  for (int64_t i = 0; i < features; ++i) std::fill(x0 + i * np + s.n, x0 + (i + 1) * np, 0.0f);
}

// Lays out the work vectors and the batch (unless this thread's last batch was the same),
// and runs.
void mlp_run(const MlpStep& s, const MlpSgd* sgd, int64_t steps, float* losses) {
  const int64_t np = (s.n + 7) / 8 * 8;
  const int64_t classes = s.widths[s.layers];
  int64_t total_width = 0, widest = 0, partials = 0;
  for (int l = 0; l <= s.layers; ++l) {
    total_width += s.widths[l], widest = std::max(widest, s.widths[l]);
    if (l < s.layers) partials = std::max(partials, 8 * (s.widths[l] + 1) * s.widths[l + 1]);
  }
  thread_local std::vector<float> buffer, target_floats, lane_scale;
  thread_local Work work;
  thread_local LaidOut laid_out;
  buffer.resize(static_cast<std::size_t>((total_width + 2 * widest) * np + partials));
  work.act.resize(static_cast<std::size_t>(s.layers) + 1);
  float* cursor = buffer.data();
  for (int l = 0; l <= s.layers; ++l) work.act[l] = cursor, cursor += s.widths[l] * np;
  work.scratch[0] = cursor, work.scratch[1] = cursor + widest * np;
  work.partial = cursor + 2 * widest * np;
  if (!laid_out.holds(s, work.act[0], classes)) {
    laid_out.at = nullptr;  // act[0] is about to change, and the checks may throw
    lay_out(s, np, classes, work.act[0], target_floats, lane_scale);
    if (!s.rows) {
      laid_out.x.assign(s.x, s.x + s.n * s.widths[0]);
      laid_out.target.assign(s.target, s.target + s.n);
      laid_out.at = work.act[0];
      laid_out.x_rows = s.x_rows, laid_out.features = s.widths[0], laid_out.classes = classes;
    }
  }
  run(s, sgd, steps, losses, work, target_floats.data(), lane_scale.data(), np);
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
