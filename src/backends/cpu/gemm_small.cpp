// The small-matrix GEMM: register tiles of 4 rows x 16 columns accumulated over all of k,
// with the wider of m and n laid along the vector lanes (for the Iris MLP, the batch of 120),
// so tiny products such as [120, 4] x [4, 10] fill the vectors. One operand is packed into a
// per-thread buffer; the result is written straight into C (transposed when that is the
// orientation). Compiled for AVX2+FMA and for baseline x86-64, chosen at load time.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu/gemm.h"

// The vector helpers below are always inlined into the per-target clones, so GCC's note that
// passing AVX vectors by value changes the ABI of a default-target function does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace torchlet::backend::cpu {

namespace {

using v8 = float __attribute__((vector_size(32)));
constexpr int64_t kTile = 16;  // columns per register tile: two 8-float vectors

struct Strided {  // element (i, p) = data[i * si + p * sp]
  const float* data;
  int64_t si, sp;
};

[[gnu::always_inline]] inline v8 load8(const float* p) {
  v8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Stores alpha * acc (+ beta * old) into out(i, j0 .. j0 + 16), only the `valid` columns.
[[gnu::always_inline]] inline void store_tile(const v8 (&acc)[2], float* out, int64_t o_sj,
                                              int64_t valid, float alpha, float beta) {
  if (o_sj == 1 && valid == kTile) {
    for (int h = 0; h < 2; ++h) {
      v8 r = alpha * acc[h];
      if (beta != 0.0f) r += beta * load8(out + 8 * h);
      std::memcpy(out + 8 * h, &r, sizeof r);
    }
    return;
  }
  float lanes[kTile];
  std::memcpy(lanes, acc, sizeof lanes);
  for (int64_t j = 0; j < valid; ++j) {
    float& o = out[j * o_sj];
    o = alpha * lanes[j] + (beta != 0.0f ? beta * o : 0.0f);
  }
}

// Rows i .. i + Rows of out(i, j) = alpha * sum_p L(i, p) R[p][j] + beta * out(i, j).
template <int Rows>
[[gnu::always_inline]] inline void tile_rows(int64_t i, int64_t J, int64_t Jp, int64_t k,
                                             const Strided& L, const float* R, float alpha,
                                             float beta, float* out, int64_t o_si, int64_t o_sj) {
  for (int64_t j0 = 0; j0 < Jp; j0 += kTile) {
    v8 acc[Rows][2] = {};
    for (int64_t p = 0; p < k; ++p) {
      const v8 r0 = load8(R + p * Jp + j0), r1 = load8(R + p * Jp + j0 + 8);
#pragma GCC unroll 4
      for (int r = 0; r < Rows; ++r) {
        const float a = L.data[(i + r) * L.si + p * L.sp];
        acc[r][0] += a * r0;
        acc[r][1] += a * r1;
      }
    }
    const int64_t valid = std::min(kTile, J - j0);
#pragma GCC unroll 4
    for (int r = 0; r < Rows; ++r)
      store_tile(acc[r], out + (i + r) * o_si + j0 * o_sj, o_sj, valid, alpha, beta);
  }
}

[[gnu::target_clones("arch=x86-64-v3", "default")]] void tile_kernel(
    int64_t I, int64_t J, int64_t Jp, int64_t k, Strided L, const float* R, float alpha, float beta,
    float* out, int64_t o_si, int64_t o_sj) {
  int64_t i = 0;
  for (; i + 4 <= I; i += 4) tile_rows<4>(i, J, Jp, k, L, R, alpha, beta, out, o_si, o_sj);
  for (; i < I; ++i) tile_rows<1>(i, J, Jp, k, L, R, alpha, beta, out, o_si, o_sj);
}

}  // namespace

void gemm_small(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                int64_t ldc) {
  const Strided A{a, trans_a ? 1 : lda, trans_a ? lda : 1};  // A(i, p)
  const Strided B{b, trans_b ? 1 : ldb, trans_b ? ldb : 1};  // B(p, j)
  // Lanes along n (C row by row, vector stores) unless n fills less than half a vector; then
  // along m (computing C^T = B^T A^T, written transposed).
  const bool along_n = n >= 8 || n >= m;
  const int64_t I = along_n ? m : n, J = along_n ? n : m;
  const int64_t Jp = (J + kTile - 1) / kTile * kTile;
  thread_local std::vector<float> packed;
  if (packed.size() < static_cast<std::size_t>(k * Jp)) packed.resize(k * Jp);
  float* R = packed.data();
  const Strided src = along_n ? B : Strided{a, A.sp, A.si};  // R[p][j] = src(p, j)
  for (int64_t p = 0; p < k; ++p) {
    float* row = R + p * Jp;
    for (int64_t j = 0; j < J; ++j) row[j] = src.data[p * src.si + j * src.sp];
    std::fill(row + J, row + Jp, 0.0f);
  }
  if (along_n)
    tile_kernel(I, J, Jp, k, A, R, alpha, beta, c, ldc, 1);
  else  // L(i, p) = B(p, i): rows of B^T
    tile_kernel(I, J, Jp, k, Strided{b, B.sp, B.si}, R, alpha, beta, c, 1, ldc);
}

}  // namespace torchlet::backend::cpu
