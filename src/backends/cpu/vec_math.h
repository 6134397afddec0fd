// Vectorised float32 maths for the CPU's unary kernels and the activations' gradients: SLEEF
// (Debian's libsleef-dev), its 1.0-ulp functions (3.5-ulp logf, within 2 ulp of the C library's
// on the accuracy tests' values; tanh and erf are torchlet's own, below, and so is exp in 8 and
// 16 lanes), in 16 lanes on CPUs with AVX-512 (vec_math_avx512.cpp), 8 on those with AVX2 and FMA
// (vec_math_avx2.cpp; the only files compiled for them) and 4 SSE2 lanes on the others
// (vec_math.cpp), chosen once at run time. Every function of a vector is inlined into its loop (a
// call would spill the live vectors). A run's last few elements go through the same vector
// function (padded), so each element's result is the same wherever a thread's range starts.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

#include "backends/elementwise.h"

namespace torchlet::backend::cpu::vec_math {

// True for the ops vectorised here: Exp, Log, Log1p, Expm1, Sigmoid, Tanh, Erf, Sin, Cos, Gelu,
// GeluTanh and Silu; of the binary ops, GeluBackward, GeluTanhBackward and SiluBackward.
bool vectorised(UnaryOp op);
bool vectorised(BinaryOp op);

// y[i] = op(x[i]) (out[i] = op(a[i], b[i])) for i in [0, n) with the best vector width of this
// CPU; op must be vectorised.
void unary(UnaryOp op, const float* x, float* y, int64_t n);
void binary(BinaryOp op, const float* a, const float* b, float* out, int64_t n);

// The three widths themselves, for the accuracy tests; the avx512 ones need AVX-512F
// (has_avx512, with FMA), the avx2 ones AVX2 and FMA (has_avx2_fma). They do nothing for an op that
// is not vectorised.
bool has_avx512();
bool has_avx2_fma();
void unary_avx512(UnaryOp op, const float* x, float* y, int64_t n);
void binary_avx512(BinaryOp op, const float* a, const float* b, float* out, int64_t n);
void unary_avx2(UnaryOp op, const float* x, float* y, int64_t n);
void unary_sse2(UnaryOp op, const float* x, float* y, int64_t n);
void binary_avx2(BinaryOp op, const float* a, const float* b, float* out, int64_t n);
void binary_sse2(BinaryOp op, const float* a, const float* b, float* out, int64_t n);

// Inputs are read and outputs claimed this many floats ahead of the vector being computed
// (software prefetch): the functions take 30-60 instructions a vector, so the loads the
// out-of-order window holds are only a few cache lines ahead, and with the hardware's prefetches
// alone the loops waited on memory about as long as they computed (one measurement, 2^24 floats
// on one thread, 16 lanes: gelu 7.9-8.2 ms without, 6.9 with; erf 7.5-8.6 and 6.8; a copy 3.8-5.7).
constexpr int64_t kReadAhead = 1024;

// y = Block(x) over n floats, W at a time (Block maps one vector of W floats); the tail is
// padded with zeros into one more vector.
template <int W, void (*Block)(const float*, float*)>
void each(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    __builtin_prefetch(x + i + kReadAhead);
    __builtin_prefetch(y + i + kReadAhead, 1);
    Block(x + i, y + i);
  }
  if (i == n) return;
  float in[W] = {}, out[W];
  const auto tail = static_cast<std::size_t>(n - i) * sizeof(float);
  std::memcpy(in, x + i, tail);
  Block(in, out);
  std::memcpy(y + i, out, tail);
}

// out = Block(a, b) over n floats of each, W at a time, the tail padded with zeros as in each.
template <int W, void (*Block)(const float*, const float*, float*)>
void each2(const float* a, const float* b, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    __builtin_prefetch(a + i + kReadAhead);
    __builtin_prefetch(b + i + kReadAhead);
    __builtin_prefetch(out + i + kReadAhead, 1);
    Block(a + i, b + i, out + i);
  }
  if (i == n) return;
  float in_a[W] = {}, in_b[W] = {}, res[W];
  const auto tail = static_cast<std::size_t>(n - i) * sizeof(float);
  std::memcpy(in_a, a + i, tail);
  std::memcpy(in_b, b + i, tail);
  Block(in_a, in_b, res);
  std::memcpy(out + i, res, tail);
}

// The functions below work on one vector V of 16, 8 or 4 floats (a GCC vector type: its
// arithmetic, comparisons and ?: are lane by lane, a float operand is broadcast; not __m256
// itself, whose may_alias attribute a template argument drops), with the functions of that width
// (SLEEF's or exp_of's, from the width's file) passed in as Exp, Log1p ... (of V, converted to and
// from __m512, __m256 or __m128).

// x's lanes with the sign bit cleared (|x|, and a NaN stays NaN), and t's with x's sign bit
// (of t >= 0: -t where x has the bit, -0 and NaNs with the bit included).
template <typename V>
[[gnu::always_inline]] inline V magnitude(V x) {
  using I = decltype(x < x);  // integers as wide as V's lanes
  I bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits &= std::numeric_limits<int32_t>::max();
  std::memcpy(&x, &bits, sizeof x);
  return x;
}
template <typename V>
[[gnu::always_inline]] inline V with_sign_of(V x, V t) {
  using I = decltype(x < x);
  I xi, ti;
  std::memcpy(&xi, &x, sizeof xi);
  std::memcpy(&ti, &t, sizeof ti);
  ti |= xi & std::numeric_limits<int32_t>::min();
  std::memcpy(&t, &ti, sizeof t);
  return t;
}

// e^x (within 1 ulp of the C library's expf on the accuracy test's values), for the 8- and
// 16-lane files to inline into the functions built on it (a call to SLEEF's expf spills every
// vector the caller holds, all of them caller-saved): Cephes' expf polynomial after reducing x
// by n ln 2 (n = x log2 e rounded, by adding and taking off 1.5 2^23, ln 2 in two parts), then
// times 2^n. Above: x is clamped to at most 89, where e^x is inf in float; Below: to at least
// -104, where it is 0; with either, 2^n is applied as 2^(n/2) 2^(n - n/2), so that a result
// that overflows gives inf and one below FLT_MIN is rounded once to its denormal; a NaN stays
// NaN. Without them x must be within [-87, 88], where e^x is normal and finite, and 2^n is one
// factor.
template <typename V, bool Above, bool Below>
[[gnu::always_inline]] inline V exp_of(V x) {
  if constexpr (Above) x = x > 89.0f ? V{} + 89.0f : x;
  if constexpr (Below) x = x < -104.0f ? V{} - 104.0f : x;
  constexpr float kShift = 0x1.8p23f;  // its last bit is 1: the sum's low bits are n
  const V shifted = x * 1.44269504088896341f + kShift, n = shifted - kShift;
  const V r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
  V p = r * 1.9875691500e-4f + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const V y = (p * (r * r) + r) + 1.0f;
  using I = decltype(x < x);
  I k;  // n as an integer: the low 22 bits of shifted, sign-extended
  std::memcpy(&k, &shifted, sizeof k);
  k = (k << 10) >> 10;
  auto power = [](I e) {  // 2^e for e in [-126, 127]
    const I bits = (e + 127) << 23;
    V f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  };
  if constexpr (Above || Below) return y * power(k >> 1) * power(k - (k >> 1));
  return y * power(k);
}

// The exps of a width that inlines exp_of (8 and 16 lanes): for all x, for x <= 0 or NaN, and for
// x in [-87, 88] (unary_of's W::exp, exp_nonpositive and exp_normal).
template <typename Vector>
struct InlinedExp {
  using V = Vector;
  [[gnu::always_inline]] static V exp(V x) { return exp_of<V, true, true>(x); }
  [[gnu::always_inline]] static V exp_nonpositive(V x) { return exp_of<V, false, true>(x); }
  [[gnu::always_inline]] static V exp_normal(V x) { return exp_of<V, false, false>(x); }
};

// sigmoid(x) from e = Exp(-|x|) (Exp need only take x <= 0) as unary_value computes it:
// 1 / (1 + e) for x >= 0, else e / (1 + e); exp never sees a large positive argument.
template <typename V, auto Exp>
[[gnu::always_inline]] inline V sigmoid(V x) {
  const V e = Exp(-magnitude(x));
  return (x >= 0.0f ? V{} + 1.0f : e) / (1.0f + e);
}

// log1p(x), with Log(x) where x > 1e30 (SLEEF's log1pf overflows near FLT_MAX; there the 1 is
// far below half an ulp of x), Log computed only for the vectors that have such a lane.
template <typename V, auto Log1p, auto Log>
[[gnu::always_inline]] inline V log1p(V x) {
  const V y = Log1p(x);
  const auto big = x > 1e30f;
  bool any = false;
  for (std::size_t l = 0; l < sizeof x / sizeof x[0]; ++l) any |= big[l] != 0;
  if (!any) return y;
  return big ? V(Log(x)) : y;
}

// tanh and erf within about 1 ulp of the correctly rounded result (the accuracy tests hold them
// to 2 ulp of the C library's tanhf and erff), faster than SLEEF's 1-ulp tanhf and erff; the
// polynomials and their worst errors are scripts/fit_vec_math.py's. tanh (one measurement, in
// L1, at load 12: 1.44 against 2.50 ns a float, 8 lanes; with vec_math_avx2.cpp's inlined exp
// and nothing called, 1.05-1.09 ns, thread CPU time at load 6): x + x^3 P(x^2) for |x| < 1, above
// 1 - 2 / (e^2|x| + 1), which is 1 once e^2|x| overflows (Exp need not take arguments beyond 88:
// tanh clamps them there). Both take x's sign bit (0 and -0 give x, a NaN a NaN).
template <typename V, auto Exp>
[[gnu::always_inline]] inline V tanh(V x) {
  constexpr float c[8] = {-0.333333284f,   0.13333191f,    -0.0539523624f,   0.0217818469f,
                          -0.00858901907f, 0.00307145878f, -0.000836785766f, 0.000120391873f};
  const V a = magnitude(x), a2 = a * a;
  V p = a2 * c[7] + c[6];
  for (int j = 5; j >= 0; --j) p = p * a2 + c[j];
  const V small = a + a * a2 * p;
  const V twice = a + a;
  const V large = 1.0f - 2.0f / (Exp(twice > 88.0f ? V{} + 88.0f : twice) + 1.0f);
  return with_sign_of(x, a < 1.0f ? small : large);
}

// Lane l of the result is table[index[l]], index in [0, 8): vpermps of the table's first 16 or 8
// floats (those past the 8th never chosen), or a shuffle of two 4-float halves. The table is read
// as whole vectors (a narrower copy into a vector goes through the stack).
template <typename V, typename I>
[[gnu::always_inline]] inline V lookup8(const float (&table)[16], I index) {
  if constexpr (sizeof(V) >= 8 * sizeof(float)) {
    V t;
    std::memcpy(&t, table, sizeof t);
    return __builtin_shuffle(t, index);
  } else {
    V low, high;
    std::memcpy(&low, table, sizeof low);
    std::memcpy(&high, table + 4, sizeof high);
    return __builtin_shuffle(low, high, index);
  }
}

// erf, piecewise over a = |x| clamped to 4 (erf is 1 in float from 3.92 on): 8 intervals of
// width 0.5, k = floor(2a), u = 2a - k - 0.5 in [-0.5, 0.5]; erf(a) = a + a P_0(u) on the first,
// b_k + u P_k(u) on the others (b_k = erf at the middle, rounded to float, so the sum's last
// rounding is the only large one), each P of degree 6 with its coefficients looked up per lane:
// no exp and no division. A NaN goes to the last interval and stays NaN through u.
template <typename V>
[[gnu::always_inline]] inline V erf(V x) {
  using I = decltype(x < x);
  static constexpr float b[16] = {0.0f,         0.711155653f, 0.92290014f,  0.986671686f,
                                  0.998537302f, 0.999899387f, 0.999995708f, 0.999999881f};
  static constexpr float p[7][16] = {
      {0.10530556f, 0.321465552f, 0.118260562f, 0.0263874978f, 0.00357115967f, 0.000293138641f,
       1.45945132e-05f, 4.40716093e-07f},
      {-0.0905827433f, -0.120550901f, -0.0739137605f, -0.0230901092f, -0.00401885947f,
       -0.000403723505f, -2.45129631e-05f, -4.38446989e-07f},
      {-0.0838377103f, 0.00334795658f, 0.0209418684f, 0.0112696365f, 0.00271556224f,
       0.000345047971f, 2.44763469e-05f, 9.96237645e-07f},
      {0.0130864792f, 0.00943154655f, -0.000374387804f, -0.00299536856f, -0.00117901736f,
       -0.000196628243f, -9.43018313e-06f, -4.98443023e-06f},
      {0.00556332944f, -0.00165667455f, -0.0014733423f, 0.000207195553f, 0.000333159231f,
       8.61318913e-05f, 9.80260666e-06f, 5.73192722e-07f},
      {-0.00109282846f, -0.000453244604f, 0.000298056897f, 0.000111557296f, -8.06483949e-05f,
       -4.46391969e-05f, -2.67875439e-05f, 1.06504522e-05f},
      {-0.000280198175f, 0.00012264213f, 2.5987054e-05f, -4.73035434e-05f, -5.73985153e-06f,
       4.97003884e-06f, 1.35270477e-06f, 1.33188806e-07f}};
  const V m = magnitude(x), a = m > 4.0f ? V{} + 4.0f : m, t = a + a;
  const I k = __builtin_convertvector(t < 7.0f ? t : V{} + 7.0f, I);
  const V u = (t - 0.5f) - __builtin_convertvector(k, V);
  V q = lookup8<V>(p[6], k);
#pragma GCC unroll 6
  for (int j = 5; j >= 0; --j) q = q * u + lookup8<V>(p[j], k);
  const auto first = t < 1.0f;
  const V y = (first ? a : u) * q + (first ? a : lookup8<V>(b, k));
  return with_sign_of(x, y);
}

// Phi(x), the standard normal's cdf, given e = e^(-x^2 / 2) (which gelu's gradient shares with
// the pdf): with m = |x| clamped to 4 sqrt 2 and S(m) ~ 0.5 erfcx(m / sqrt 2) (erfcx(t) = e^(t^2)
// erfc(t)), h = e S(m) is Phi(-|x|), and Phi(x) is 1 - h for x >= 0, h below (a NaN gives h's
// NaN). One polynomial and e, no division and no second range: S's error times e^(-m^2 / 2) is
// within 0.7 ulp of 1 over [0, 4 sqrt 2] (scripts/fit_vec_math.py), and beyond, e S is below
// 2^-26, where Phi(-|x|) is as well.
template <typename V>
[[gnu::always_inline]] inline V normal_cdf(V x, V e) {
  constexpr float s[13] = {0.5f,           -0.398941785f,    0.249991104f,    -0.132916898f,
                           0.0622623861f,  -0.0260691755f,   0.00965980627f,  -0.00305535831f,
                           0.00077967922f, -0.000149792992f, 1.98934285e-05f, -1.60371201e-06f,
                           5.85357292e-08f};
  const V m = magnitude(x), t = m < 5.65685425f ? m : V{} + 5.65685425f;
  V p = t * s[12] + s[11];
  for (int j = 10; j >= 0; --j) p = p * t + s[j];
  const V h = e * p;
  return x >= 0.0f ? 1.0f - h : h;
}

// The activations and their gradients: elementwise.h's gelu_value, gelu_grad ... in value. gelu is
// x (0.5 + 0.5 erf(x / sqrt 2)), as PyTorch's, through the piecewise erf (no exp: 2^24 floats, 16
// lanes on two threads, 8.8 ms of CPU against 13.6-14.5 through normal_cdf and an exp); its
// gradient needs e^(-x^2 / 2) for the pdf anyway and takes Phi from normal_cdf and that e (23-24
// ms for gelu's forward and backward against 25-27 with erf's Phi). The tanh form's
// 0.5 (1 + tanh(u)) is sigmoid(2u), the same function without tanh's two branches, and its
// 1 - tanh(u)^2 is 4 s (1 - s) of s = sigmoid(2u).
template <typename V>
[[gnu::always_inline]] inline V gelu(V x) {
  return x * (erf(x * float(kSqrtHalf)) * 0.5f + 0.5f);
}
template <typename V, auto Sigmoid>
[[gnu::always_inline]] inline V gelu_tanh(V x) {
  return x * Sigmoid((x + x * x * x * float(kGeluCubic)) * float(2 * kSqrtTwoOverPi));
}
template <typename V, auto Sigmoid>
[[gnu::always_inline]] inline V silu(V x) {
  return x * Sigmoid(x);
}
template <typename V, auto Exp>
[[gnu::always_inline]] inline V gelu_grad(V x, V dy) {
  const V e = Exp(x * x * -0.5f);
  return dy * (normal_cdf(x, e) + x * (float(kInvSqrtTwoPi) * e));
}
template <typename V, auto Sigmoid>
[[gnu::always_inline]] inline V gelu_tanh_grad(V x, V dy) {
  const V x2 = x * x;
  const V s = Sigmoid(float(2 * kSqrtTwoOverPi) * (x + float(kGeluCubic) * x2 * x));
  const V inner = float(kSqrtTwoOverPi) * (1.0f + float(3 * kGeluCubic) * x2);
  return dy * (s + 2.0f * x * s * (1.0f - s) * inner);
}
template <typename V, auto Sigmoid>
[[gnu::always_inline]] inline V silu_grad(V x, V dy) {
  const V s = Sigmoid(x);
  return dy * s * (1.0f + x * (1.0f - s));
}

// One vector of V from in, F of it to out (F of V, or SLEEF's of __m512, __m256, __m128).
template <typename V, auto F>
[[gnu::always_inline]] inline void block(const float* in, float* out) {
  V x;
  std::memcpy(&x, in, sizeof x);
  const V y = F(x);
  std::memcpy(out, &y, sizeof y);
}
template <typename V, auto F>
[[gnu::always_inline]] inline void block2(const float* a, const float* b, float* out) {
  V x, dy;
  std::memcpy(&x, a, sizeof x);
  std::memcpy(&dy, b, sizeof dy);
  const V y = F(x, dy);
  std::memcpy(out, &y, sizeof y);
}

// unary_avx512 ... for one width: W has its vector type V and its functions of one V, exp (all
// x), exp_nonpositive (x <= 0 or NaN), exp_normal (x in [-87, 88]), log, log1p, expm1, sin and
// cos. Each width's file instantiates it for its own W.
template <typename W>
void unary_of(UnaryOp op, const float* x, float* y, int64_t n) {
  using V = typename W::V;
  constexpr int L = sizeof(V) / sizeof(float);
  constexpr auto sig = sigmoid<V, W::exp_nonpositive>;
  switch (op) {
    case UnaryOp::Exp: return each<L, block<V, W::exp>>(x, y, n);
    case UnaryOp::Log: return each<L, block<V, W::log>>(x, y, n);
    case UnaryOp::Log1p: return each<L, block<V, W::log1p>>(x, y, n);
    case UnaryOp::Expm1: return each<L, block<V, W::expm1>>(x, y, n);
    case UnaryOp::Sigmoid: return each<L, block<V, sig>>(x, y, n);
    case UnaryOp::Tanh: return each<L, block<V, tanh<V, W::exp_normal>>>(x, y, n);
    case UnaryOp::Erf: return each<L, block<V, erf<V>>>(x, y, n);
    case UnaryOp::Sin: return each<L, block<V, W::sin>>(x, y, n);
    case UnaryOp::Cos: return each<L, block<V, W::cos>>(x, y, n);
    case UnaryOp::Gelu: return each<L, block<V, gelu<V>>>(x, y, n);
    case UnaryOp::GeluTanh: return each<L, block<V, gelu_tanh<V, sig>>>(x, y, n);
    case UnaryOp::Silu: return each<L, block<V, silu<V, sig>>>(x, y, n);
    default: return;
  }
}
template <typename W>
void binary_of(BinaryOp op, const float* a, const float* b, float* out, int64_t n) {
  using V = typename W::V;
  constexpr int L = sizeof(V) / sizeof(float);
  constexpr auto sig = sigmoid<V, W::exp_nonpositive>;
  switch (op) {
    case BinaryOp::GeluBackward:
      return each2<L, block2<V, gelu_grad<V, W::exp_nonpositive>>>(a, b, out, n);
    case BinaryOp::GeluTanhBackward:
      return each2<L, block2<V, gelu_tanh_grad<V, sig>>>(a, b, out, n);
    case BinaryOp::SiluBackward: return each2<L, block2<V, silu_grad<V, sig>>>(a, b, out, n);
    default: return;
  }
}

}  // namespace torchlet::backend::cpu::vec_math
