// The small-matrix GEMM: register tiles of 4 rows x 16 columns accumulated over all of k,
// with the wider of m and n laid along the vector lanes (for the Iris MLP, the batch of 120),
// so tiny products such as [120, 4] x [4, 10] fill the vectors. The lane operand R is read in
// place when its rows are contiguous, else packed into a per-thread buffer (a transpose in
// 8 x 8 register blocks); the result is written straight into C (transposed when that is the
// orientation), with a bias add fused into that store when one is given (linear's forward).
// Compiled for AVX2+FMA and for baseline x86-64 with 8-lane vectors, chosen at load time, and
// with 16-lane vectors for CPUs with AVX-512 (x86-64-v4) when the lanes hold at least 16
// columns: every output is still one lane's FMAs over p in order, so each width gives the
// same bits.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu/gemm.h"
#include "backends/cpu/simd.h"

// The vector helpers below are always inlined into the per-target clones, so GCC's note that
// passing AVX vectors by value changes the ABI of a default-target function does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace torchlet::backend::cpu {

namespace {

template <int W>
struct Vec;  // (a vector_size that depends on W would be dropped: one specialisation each)
template <>
struct Vec<8> {
  using type = float __attribute__((vector_size(32)));
};
template <>
struct Vec<16> {
  using type = float __attribute__((vector_size(64)));
};
template <int W>
using vec = typename Vec<W>::type;
using v8 = vec<8>;
constexpr int64_t kLanes = 8;  // pack_transposed's blocks, and the width without AVX-512

struct Strided {  // element (i, p) = data[i * si + p * sp]
  const float* data;
  int64_t si, sp;
};

// Where each vector of w lanes of a tile row reads R and writes its columns of the result (J
// of them). Padded: vector v holds columns wv .. wv + w, those past J zero in a packed R.
// Overlapped (J >= w, beta = 0): the vector that would run past J starts at J - w instead and
// recomputes columns of the one before it, bit for bit, so every vector is whole and every
// load stays inside a row of J: R can then be the source itself when its rows are contiguous.
struct Lanes {
  const float* R;
  int64_t rs;  // R's row stride
  int64_t J, w;
  bool overlap, direct;  // direct: R is the source (overlapped only)
  [[gnu::always_inline]] int64_t start(int64_t v) const {
    return overlap ? std::min(w * v, J - w) : w * v;
  }
  [[gnu::always_inline]] int64_t valid(int64_t v) const {
    return overlap ? w : std::clamp<int64_t>(J - w * v, 0, w);
  }
  [[gnu::always_inline]] const float* at(int64_t v) const {
    return R + (direct ? start(v) : w * v);
  }
};

// The bias of a fused bias add, C(i, j) += bias[j], as the tiles see it: along the lanes
// (vector v's w values at lanes + wv) or along the tile rows.
struct Bias {
  const float* lanes = nullptr;
  const float* rows = nullptr;
};

template <int W = 8>
[[gnu::always_inline]] inline vec<W> load(const float* p) {
  vec<W> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Stores alpha * acc (+ beta * old) (+ add) into `valid` columns of out, o_sj apart. The bias
// comes last, so a fused bias add rounds as a separate one does.
template <int W>
[[gnu::always_inline]] inline void store_vector(const vec<W>& acc, const vec<W>& add, bool biased,
                                                float* out, int64_t o_sj, int64_t valid,
                                                float alpha, float beta) {
  if (o_sj == 1 && valid == W) {
    vec<W> r = alpha * acc;
    if (beta != 0.0f) r += beta * load<W>(out);
    if (biased) r += add;
    std::memcpy(out, &r, sizeof r);
    return;
  }
  float lanes[W], adds[W];
  std::memcpy(lanes, &acc, sizeof lanes);
  std::memcpy(adds, &add, sizeof adds);
  for (int64_t j = 0; j < valid; ++j) {
    float& o = out[j * o_sj];
    const float r = alpha * lanes[j] + (beta != 0.0f ? beta * o : 0.0f);
    o = biased ? r + adds[j] : r;
  }
}

// Rows i .. i + Rows of out(i, j) = alpha * sum_p L(i, p) R(p, j) + beta * out(i, j), in
// vectors of W lanes (R.w == W). Fast: out's rows contiguous, R overlapped, beta 0, no bias
// along the rows: whole vector stores, nothing to test per store.
template <int W, int Rows, bool Fast>
[[gnu::always_inline]] inline void tile_rows(int64_t i, int64_t k, const Strided& L, const Lanes& R,
                                             float alpha, float beta, const Bias& bias, float* out,
                                             int64_t o_si, int64_t o_sj) {
  using V = vec<W>;
  const int64_t vectors = (R.J + W - 1) / W;
  for (int64_t v = 0; v < vectors; v += 2) {
    const float* r0p = R.at(v);
    const float* r1p = R.at(v + 1);
    V acc[Rows][2] = {};
    for (int64_t p = 0; p < k; ++p) {
      const V r0 = load<W>(r0p + p * R.rs), r1 = load<W>(r1p + p * R.rs);
#pragma GCC unroll 4
      for (int r = 0; r < Rows; ++r) {
        const float a = L.data[(i + r) * L.si + p * L.sp];
        acc[r][0] += a * r0;
        acc[r][1] += a * r1;
      }
    }
    const bool biased = bias.lanes || bias.rows;
#pragma GCC unroll 4
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 2
      for (int h = 0; h < 2; ++h) {
        if constexpr (Fast) {
          V x = alpha * acc[r][h];
          if (bias.lanes) x += load<W>(bias.lanes + W * (v + h));
          std::memcpy(out + (i + r) * o_si + R.start(v + h), &x, sizeof x);
        } else {
          const V add = bias.lanes ? load<W>(bias.lanes + W * (v + h))
                                   : V{} + (bias.rows ? bias.rows[i + r] : 0.0f);
          store_vector<W>(acc[r][h], add, biased, out + (i + r) * o_si + R.start(v + h) * o_sj,
                          o_sj, R.valid(v + h), alpha, beta);
        }
      }
  }
}

template <int W, bool Fast>
[[gnu::always_inline]] inline void tile_all(int64_t I, int64_t k, const Strided& L, const Lanes& R,
                                            float alpha, float beta, const Bias& bias, float* out,
                                            int64_t o_si, int64_t o_sj) {
  int64_t i = 0;
  for (; i + 4 <= I; i += 4) tile_rows<W, 4, Fast>(i, k, L, R, alpha, beta, bias, out, o_si, o_sj);
  // The last 1-3 rows in one pass, so their accumulator chains run side by side.
  switch (I - i) {
    case 3: tile_rows<W, 3, Fast>(i, k, L, R, alpha, beta, bias, out, o_si, o_sj); break;
    case 2: tile_rows<W, 2, Fast>(i, k, L, R, alpha, beta, bias, out, o_si, o_sj); break;
    case 1: tile_rows<W, 1, Fast>(i, k, L, R, alpha, beta, bias, out, o_si, o_sj); break;
    default: break;
  }
}

template <int W>
[[gnu::always_inline]] inline void tiles(int64_t I, int64_t k, const Strided& L, const Lanes& R,
                                         float alpha, float beta, const Bias& bias, float* out,
                                         int64_t o_si, int64_t o_sj) {
  if (o_sj == 1 && R.overlap && beta == 0.0f && !bias.rows)
    tile_all<W, true>(I, k, L, R, alpha, beta, bias, out, o_si, o_sj);
  else
    tile_all<W, false>(I, k, L, R, alpha, beta, bias, out, o_si, o_sj);
}

TORCHLET_SIMD_CLONES void tile_kernel(int64_t I, int64_t k, Strided L, Lanes R, float alpha,
                                      float beta, Bias bias, float* out, int64_t o_si,
                                      int64_t o_sj) {
  tiles<8>(I, k, L, R, alpha, beta, bias, out, o_si, o_sj);
}

[[gnu::target("arch=x86-64-v4")]] void tile_kernel16(int64_t I, int64_t k, Strided L, Lanes R,
                                                     float alpha, float beta, Bias bias, float* out,
                                                     int64_t o_si, int64_t o_sj) {
  tiles<16>(I, k, L, R, alpha, beta, bias, out, o_si, o_sj);
}

// out[p][8b + u] = src[(column of lane 8b + u) * ld + p] for every block b of 8 lanes of Jp
// and p < k (lane wv + u of vector v is column R.start(v) + u): src's columns are contiguous,
// so eight of them are read as vectors and turned in registers.
TORCHLET_SIMD_CLONES void pack_transposed(const float* src, int64_t ld, int64_t k, const Lanes& R,
                                          int64_t Jp, float* out) {
  const int64_t blocks = R.w / kLanes;  // per vector
  for (int64_t v = 0; v < Jp / kLanes; ++v) {
    const float* col[kLanes];
    const int64_t first = R.start(v / blocks) + kLanes * (v % blocks);
    for (int u = 0; u < kLanes; ++u) col[u] = src + (first + u) * ld;
    float* dst = out + kLanes * v;
    int64_t p = 0;
    for (; p + kLanes <= k; p += kLanes) {
      v8 r[kLanes];
      for (int u = 0; u < kLanes; ++u) r[u] = load(col[u] + p);
      v8 t[kLanes], q[kLanes];
      for (int u = 0; u < kLanes; u += 2) {  // interleave pairs of columns
        t[u] = __builtin_shufflevector(r[u], r[u + 1], 0, 8, 1, 9, 4, 12, 5, 13);
        t[u + 1] = __builtin_shufflevector(r[u], r[u + 1], 2, 10, 3, 11, 6, 14, 7, 15);
      }
      for (int u = 0; u < kLanes; u += 4) {  // then pairs of pairs
        q[u] = __builtin_shufflevector(t[u], t[u + 2], 0, 1, 8, 9, 4, 5, 12, 13);
        q[u + 1] = __builtin_shufflevector(t[u], t[u + 2], 2, 3, 10, 11, 6, 7, 14, 15);
        q[u + 2] = __builtin_shufflevector(t[u + 1], t[u + 3], 0, 1, 8, 9, 4, 5, 12, 13);
        q[u + 3] = __builtin_shufflevector(t[u + 1], t[u + 3], 2, 3, 10, 11, 6, 7, 14, 15);
      }
      for (int u = 0; u < 4; ++u) {  // and the halves: row p + u, then row p + u + 4
        const v8 lo = __builtin_shufflevector(q[u], q[u + 4], 0, 1, 2, 3, 8, 9, 10, 11);
        const v8 hi = __builtin_shufflevector(q[u], q[u + 4], 4, 5, 6, 7, 12, 13, 14, 15);
        std::memcpy(dst + (p + u) * Jp, &lo, sizeof lo);
        std::memcpy(dst + (p + u + 4) * Jp, &hi, sizeof hi);
      }
    }
    for (; p < k; ++p)
      for (int u = 0; u < kLanes; ++u) dst[p * Jp + u] = col[u][p];
  }
}

}  // namespace

void gemm_small(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                int64_t ldc, const float* bias) {
  const Strided A{a, trans_a ? 1 : lda, trans_a ? lda : 1};  // A(i, p)
  const Strided B{b, trans_b ? 1 : ldb, trans_b ? ldb : 1};  // B(p, j)
  // Lanes along n (C row by row, vector stores) unless n fills less than half a vector; then
  // along m (computing C^T = B^T A^T, written transposed).
  const bool along_n = n >= 8 || n >= m;
  const int64_t I = along_n ? m : n, J = along_n ? n : m;
  const Strided src = along_n ? B : Strided{a, A.sp, A.si};  // R(p, j) = src(p, j)
  static const bool avx512 = __builtin_cpu_supports("x86-64-v4");
  const int64_t w = avx512 && J >= 16 ? 16 : kLanes;
  Lanes R{nullptr, 0, J, w, J >= w && beta == 0.0f, false};
  R.direct = R.overlap && src.sp == 1;
  // Packed rows hold whole tiles (pairs of vectors); the bias row follows them.
  const int64_t vectors = (J + w - 1) / w, Jp = (vectors + 1) / 2 * 2 * w;
  thread_local std::vector<float> packed;
  const auto size = static_cast<std::size_t>((R.direct ? 1 : k + 1) * Jp);
  if (packed.size() < size) packed.resize(size);
  float* buffer = packed.data();
  if (R.direct) {
    R.R = src.data, R.rs = src.si;
  } else if (R.overlap && src.si == 1) {  // a transpose, 8 x 8 blocks in registers
    R.R = buffer, R.rs = Jp;
    pack_transposed(src.data, src.sp, k, R, Jp, buffer);
  } else {  // column by column of R, each read along src
    R.R = buffer, R.rs = Jp;
    for (int64_t q = 0; q < Jp; ++q) {
      const int64_t col = R.start(q / w) + q % w;
      if (col < J)
        for (int64_t p = 0; p < k; ++p) buffer[p * Jp + q] = src.data[col * src.sp + p * src.si];
      else
        for (int64_t p = 0; p < k; ++p) buffer[p * Jp + q] = 0.0f;
    }
  }
  Bias tile_bias;
  if (bias && along_n) {
    float* lanes = buffer + (R.direct ? 0 : k * Jp);
    for (int64_t q = 0; q < Jp; ++q) {
      const int64_t col = R.start(q / w) + q % w;
      lanes[q] = col < J ? bias[col] : 0.0f;
    }
    tile_bias.lanes = lanes;
  } else if (bias) {
    tile_bias.rows = bias;
  }
  const auto kernel = w == 16 ? tile_kernel16 : tile_kernel;
  if (along_n)
    kernel(I, k, A, R, alpha, beta, tile_bias, c, ldc, 1);
  else  // L(i, p) = B(p, i): rows of B^T
    kernel(I, k, Strided{b, B.sp, B.si}, R, alpha, beta, tile_bias, c, 1, ldc);
}

}  // namespace torchlet::backend::cpu
