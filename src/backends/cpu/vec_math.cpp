// vec_math's dispatch and its 4-lane functions: SLEEF's SSE2 versions (SSE2 is in every x86-64
// CPU). The 8- and 16-lane ones are in vec_math_avx2.cpp and vec_math_avx512.cpp.
#include "backends/cpu/vec_math.h"

#include <sleef.h>

#include "torchlet/error.h"

namespace torchlet::backend::cpu::vec_math {

namespace {

// SLEEF's expf serves for every range of x (it is called, not inlined, in 4 lanes).
struct Sse2 {
  using V = float __attribute__((vector_size(16)));  // vec_math.h's V of 4 lanes
  static V exp(V x) { return Sleef_expf4_u10sse2(x); }
  static V exp_nonpositive(V x) { return exp(x); }
  static V exp_normal(V x) { return exp(x); }
  static V log(V x) { return Sleef_logf4_u35sse2(x); }
  static V log1p(V x) { return vec_math::log1p<V, Sleef_log1pf4_u10sse2, Sleef_logf4_u10sse2>(x); }
  static V expm1(V x) { return Sleef_expm1f4_u10sse2(x); }
  static V sin(V x) { return Sleef_sinf4_u10sse2(x); }
  static V cos(V x) { return Sleef_cosf4_u10sse2(x); }
};

}  // namespace

bool vectorised(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp:
    case UnaryOp::Log:
    case UnaryOp::Log1p:
    case UnaryOp::Expm1:
    case UnaryOp::Sigmoid:
    case UnaryOp::Tanh:
    case UnaryOp::Erf:
    case UnaryOp::Sin:
    case UnaryOp::Cos:
    case UnaryOp::Gelu:
    case UnaryOp::GeluTanh:
    case UnaryOp::Silu: return true;
    default: return false;
  }
}

bool vectorised(BinaryOp op) {
  return op == BinaryOp::GeluBackward || op == BinaryOp::GeluTanhBackward ||
         op == BinaryOp::SiluBackward;
}

bool has_avx512() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  return yes;
}

bool has_avx2_fma() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
}

void unary_sse2(UnaryOp op, const float* x, float* y, int64_t n) { unary_of<Sse2>(op, x, y, n); }

void binary_sse2(BinaryOp op, const float* a, const float* b, float* out, int64_t n) {
  binary_of<Sse2>(op, a, b, out, n);
}

void unary(UnaryOp op, const float* x, float* y, int64_t n) {
  TORCHLET_ASSERT(vectorised(op), "vec_math::unary: op ", static_cast<int>(op), " is scalar");
  if (has_avx512())
    unary_avx512(op, x, y, n);
  else if (has_avx2_fma())
    unary_avx2(op, x, y, n);
  else
    unary_sse2(op, x, y, n);
}

void binary(BinaryOp op, const float* a, const float* b, float* out, int64_t n) {
  TORCHLET_ASSERT(vectorised(op), "vec_math::binary: op ", static_cast<int>(op), " is scalar");
  if (has_avx512())
    binary_avx512(op, a, b, out, n);
  else if (has_avx2_fma())
    binary_avx2(op, a, b, out, n);
  else
    binary_sse2(op, a, b, out, n);
}

}  // namespace torchlet::backend::cpu::vec_math
