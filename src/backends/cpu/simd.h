// Portable 8-float vectors (GCC vector extensions) for the CPU kernels that need more than
// the auto-vectoriser gives: loads, stores, horizontal sums, bit casts and a vectorised expf.
// Functions that use them are compiled twice ([[gnu::target_clones]]: AVX2+FMA and baseline
// x86-64), so these helpers are always inlined into each clone.
#pragma once

#include <cstdint>
#include <cstring>

// Passing v8 by value would change the ABI of a baseline function, but every helper here is
// always inlined, so GCC's note about it does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace torchlet::backend::cpu::simd {

using v8 = float __attribute__((vector_size(32)));
using v8i = int32_t __attribute__((vector_size(32)));

#define TORCHLET_SIMD_INLINE [[gnu::always_inline]] inline
#define TORCHLET_SIMD_CLONES [[gnu::target_clones("arch=x86-64-v3", "default")]]

TORCHLET_SIMD_INLINE v8 load(const float* p) {
  v8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
TORCHLET_SIMD_INLINE void store(float* p, v8 v) { std::memcpy(p, &v, sizeof v); }
TORCHLET_SIMD_INLINE v8 splat(float x) { return v8{} + x; }
TORCHLET_SIMD_INLINE v8 max(v8 a, v8 b) { return a > b ? a : b; }
TORCHLET_SIMD_INLINE float sum(v8 v) {
  float lanes[8];
  std::memcpy(lanes, &v, sizeof lanes);
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
         ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

// The bits of a float vector as int32 lanes, and back.
TORCHLET_SIMD_INLINE v8i bits(v8 v) {
  v8i b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
TORCHLET_SIMD_INLINE v8 from_bits(v8i b) {
  v8 v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// {sum(p[0]), ..., sum(p[7])}: eight horizontal sums at once, by adding pairs of lanes of
// pairs of vectors (three rounds of two shuffles and an add), instead of eight sum() calls.
TORCHLET_SIMD_INLINE v8 sums(const v8* p) {
  v8 pairs[4], quads[2];
  for (int i = 0; i < 4; ++i)
    pairs[i] = __builtin_shufflevector(p[2 * i], p[2 * i + 1], 0, 8, 2, 10, 4, 12, 6, 14) +
               __builtin_shufflevector(p[2 * i], p[2 * i + 1], 1, 9, 3, 11, 5, 13, 7, 15);
  for (int i = 0; i < 2; ++i)
    quads[i] = __builtin_shufflevector(pairs[2 * i], pairs[2 * i + 1], 0, 1, 8, 9, 4, 5, 12, 13) +
               __builtin_shufflevector(pairs[2 * i], pairs[2 * i + 1], 2, 3, 10, 11, 6, 7, 14, 15);
  return __builtin_shufflevector(quads[0], quads[1], 0, 1, 2, 3, 8, 9, 10, 11) +
         __builtin_shufflevector(quads[0], quads[1], 4, 5, 6, 7, 12, 13, 14, 15);
}

// e^x to about 2 ulp (Cephes' expf polynomial after reduction by ln 2); inputs are clamped
// to [-87.3, 88.7], so the result is finite and normal, except that a NaN stays NaN.
TORCHLET_SIMD_INLINE v8 exp(v8 x) {
  x = x > splat(88.7f) ? splat(88.7f) : x;
  x = x < splat(-87.3f) ? splat(-87.3f) : x;
  const v8 fx = x * 1.44269504088896341f + 0.5f;
  v8 n = __builtin_convertvector(__builtin_convertvector(fx, v8i), v8);
  n = n > fx ? n - 1.0f : n;  // floor
  const v8 r = x - n * 0.693359375f + n * 2.12194440e-4f;
  v8 p = splat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const v8 y = p * r * r + r + 1.0f;
  const v8i bits = (__builtin_convertvector(n, v8i) + 127) << 23;
  v8 scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return y * scale;
}

}  // namespace torchlet::backend::cpu::simd
