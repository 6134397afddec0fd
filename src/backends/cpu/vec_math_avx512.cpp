// vec_math's 16-lane functions: SLEEF's AVX-512F versions and vec_math.h's inlined exp. The 8-lane
// loops are bound by the FMA units, not by memory (gelu and erf on two threads stayed below 70% of
// a plain copy's rate); 16 lanes do twice the floats an instruction, in the same cycles (one
// measurement, in L1, TSC cycles for 8 floats: gelu 8.1 against 15.7, erf 7.9 against 15.0, exp
// 4.4 against 8.9), and give the same bits as 8 (vec_math.h's templates and SLEEF's; NaNs' payloads
// aside). Compiled with -mavx512f -mfma (src/CMakeLists.txt) and only called on CPUs that have
// both (vec_math::unary), so, as vec_math_avx2.cpp, it includes nothing whose inline functions
// other files share.
#include <sleef.h>

#include "backends/cpu/vec_math.h"

namespace torchlet::backend::cpu::vec_math {

namespace {

// unary_of's W of 16 lanes: the inlined exps and SLEEF's AVX-512F functions.
struct Avx512 : InlinedExp<float __attribute__((vector_size(64)))> {
  static V log(V x) { return Sleef_logf16_u35avx512f(x); }
  static V log1p(V x) {
    return vec_math::log1p<V, Sleef_log1pf16_u10avx512f, Sleef_logf16_u10avx512f>(x);
  }
  static V expm1(V x) { return Sleef_expm1f16_u10avx512f(x); }
  static V sin(V x) { return Sleef_sinf16_u10avx512f(x); }
  static V cos(V x) { return Sleef_cosf16_u10avx512f(x); }
};

}  // namespace

void unary_avx512(UnaryOp op, const float* x, float* y, int64_t n) {
  unary_of<Avx512>(op, x, y, n);
}

void binary_avx512(BinaryOp op, const float* a, const float* b, float* out, int64_t n) {
  binary_of<Avx512>(op, a, b, out, n);
}

}  // namespace torchlet::backend::cpu::vec_math
