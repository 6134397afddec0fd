// vec_math's 8-lane functions: SLEEF's AVX2 versions and vec_math.h's inlined exp. This file is
// compiled with -mavx2 -mfma (src/CMakeLists.txt) and is only called on CPUs that have both
// (vec_math::unary), so it includes nothing whose inline functions other files share (vec_math.h's
// templates are instantiated here for 8 lanes only).
#include <sleef.h>

#include "backends/cpu/vec_math.h"

namespace torchlet::backend::cpu::vec_math {

namespace {

// unary_of's W of 8 lanes: the inlined exps and SLEEF's AVX2 functions.
struct Avx2 : InlinedExp<float __attribute__((vector_size(32)))> {
  static V log(V x) { return Sleef_logf8_u35avx2(x); }
  static V log1p(V x) { return vec_math::log1p<V, Sleef_log1pf8_u10avx2, Sleef_logf8_u10avx2>(x); }
  static V expm1(V x) { return Sleef_expm1f8_u10avx2(x); }
  static V sin(V x) { return Sleef_sinf8_u10avx2(x); }
  static V cos(V x) { return Sleef_cosf8_u10avx2(x); }
};

}  // namespace

void unary_avx2(UnaryOp op, const float* x, float* y, int64_t n) { unary_of<Avx2>(op, x, y, n); }

void binary_avx2(BinaryOp op, const float* a, const float* b, float* out, int64_t n) {
  binary_of<Avx2>(op, a, b, out, n);
}

}  // namespace torchlet::backend::cpu::vec_math
