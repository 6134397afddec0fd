// The elementwise maths of torchlet, written once for every backend: the op codes the ops layer
// passes down and one __host__ __device__ function per family that computes an element. The CPU
// backend instantiates them in its (vectorisable) loops, the CUDA backend in one kernel template,
// so both compute the same formula. Read by the C++ and the CUDA compilers: plain C++, no
// torchlet headers beyond this one and the list of unary ops (torchlet/unary_ops.def).
#pragma once

#include <math.h>

#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
#define TORCHLET_HD __host__ __device__ inline
#else
#define TORCHLET_HD inline
#endif

namespace torchlet::backend {

// out = a op b. Eq..Ge and the logical ops give bool; the others a's dtype. Pow, Maximum and
// Minimum follow IEEE (NaN propagates through Maximum/Minimum, as torch.maximum does).
enum class BinaryOp : uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Maximum,
  Minimum,
  Pow,
  LogicalAnd,
  LogicalOr,
  GeluBackward,  // a = x, b = dy: dy * gelu'(x), and so on (the activations' backward passes)
  GeluTanhBackward,
  SiluBackward,
};
inline constexpr int kBinaryOps = static_cast<int>(BinaryOp::SiluBackward) + 1;

// True for the ops whose result is bool whatever the operands' dtype.
TORCHLET_HD constexpr bool is_predicate(BinaryOp op) {
  return op == BinaryOp::Eq || op == BinaryOp::Ne || op == BinaryOp::Lt || op == BinaryOp::Le ||
         op == BinaryOp::Gt || op == BinaryOp::Ge || op == BinaryOp::LogicalAnd ||
         op == BinaryOp::LogicalOr;
}

// out = f(x) of x's dtype: float32, float64, or int64 for Neg, Abs and Sign (unary_takes_int64).
// One code per line of torchlet/unary_ops.def, in its order.
enum class UnaryOp : uint8_t {
#define TORCHLET_UNARY(op, ...) op,
#include "torchlet/unary_ops.def"
#undef TORCHLET_UNARY
};
inline constexpr int kUnaryOps = 0
#define TORCHLET_UNARY(...) +1
#include "torchlet/unary_ops.def"
#undef TORCHLET_UNARY
    ;

// Reductions along one dimension other than sums (backend::reduce_dim). Max and Min propagate NaN.
enum class ReduceOp : uint8_t { Max, Min, Prod };

template <typename T>
TORCHLET_HD T reduce_init(ReduceOp op, T first) {
  return op == ReduceOp::Prod ? T(1) : first;
}

template <typename T>
TORCHLET_HD T reduce_step(ReduceOp op, T acc, T x) {
  if (op == ReduceOp::Prod) return static_cast<T>(acc * x);
  if (x != x) return x;  // NaN wins (only floats compare unequal to themselves)
  if (acc != acc) return acc;
  return op == ReduceOp::Max ? (x > acc ? x : acc) : (x < acc ? x : acc);
}

// The C library's functions by argument type (float: erff ..., double: ::erf ...).
TORCHLET_HD float exp_of(float x) { return expf(x); }
TORCHLET_HD double exp_of(double x) { return ::exp(x); }
TORCHLET_HD float tanh_of(float x) { return tanhf(x); }
TORCHLET_HD double tanh_of(double x) { return ::tanh(x); }
TORCHLET_HD float erf_of(float x) { return erff(x); }
TORCHLET_HD double erf_of(double x) { return ::erf(x); }

// sigmoid(x) = 1 / (1 + e^-x), never exp of a large positive number (no inf / inf).
template <typename T>
TORCHLET_HD T sigmoid_value(T x) {
  if (x >= T(0)) return T(1) / (T(1) + exp_of(-x));
  return exp_of(x) / (T(1) + exp_of(x));
}

// The activations and their derivatives in PyTorch's formulas (ATen's GeluKernel.cpp and
// Activation.cpp), in the order of operations of the composites they replace: x * 0.5 * (1 +
// erf(x / sqrt 2)), the same with tanh(sqrt(2 / pi) * (x + 0.044715 x^3)), x * sigmoid(x).
inline constexpr double kSqrtHalf = 0.70710678118654752440;       // 1 / sqrt(2)
inline constexpr double kSqrtTwoOverPi = 0.79788456080286535588;  // sqrt(2 / pi)
inline constexpr double kInvSqrtTwoPi = 0.39894228040143267794;   // 1 / sqrt(2 pi)
inline constexpr double kGeluCubic = 0.044715;

template <typename T>
TORCHLET_HD T gelu_value(T x) {
  return x * T(0.5) * (erf_of(x * T(kSqrtHalf)) + T(1));
}
template <typename T>
TORCHLET_HD T gelu_tanh_value(T x) {
  return x * T(0.5) * (tanh_of((x + x * x * x * T(kGeluCubic)) * T(kSqrtTwoOverPi)) + T(1));
}
template <typename T>
TORCHLET_HD T gelu_grad(T x, T dy) {
  const T cdf = T(0.5) * (T(1) + erf_of(x * T(kSqrtHalf)));
  const T pdf = T(kInvSqrtTwoPi) * exp_of(x * x * T(-0.5));
  return dy * (cdf + x * pdf);
}
template <typename T>
TORCHLET_HD T gelu_tanh_grad(T x, T dy) {
  const T x2 = x * x;
  const T t = tanh_of(T(kSqrtTwoOverPi) * (x + T(kGeluCubic) * x2 * x));
  const T inner = T(kSqrtTwoOverPi) * (T(1) + T(3 * kGeluCubic) * x2);
  return dy * (T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * inner);
}
template <typename T>
TORCHLET_HD T silu_grad(T x, T dy) {
  const T s = sigmoid_value(x);
  return dy * s * (T(1) + x * (T(1) - s));
}

template <typename T>
TORCHLET_HD T binary_value(BinaryOp op, T x, T y) {
  switch (op) {
    case BinaryOp::Add: return static_cast<T>(x + y);
    case BinaryOp::Sub: return static_cast<T>(x - y);
    case BinaryOp::Mul: return static_cast<T>(x * y);
    case BinaryOp::Div: return static_cast<T>(x / y);
    case BinaryOp::Maximum:
      if constexpr (std::is_floating_point_v<T>) {  // NaN wins, as torch.maximum
        if (x != x || y != y) return x + y;
      }
      return x > y ? x : y;
    case BinaryOp::Minimum:
      if constexpr (std::is_floating_point_v<T>) {
        if (x != x || y != y) return x + y;
      }
      return x < y ? x : y;
    case BinaryOp::Pow:
      if constexpr (std::is_same_v<T, float>) {
        return powf(x, y);
      } else if constexpr (std::is_same_v<T, double>) {
        return ::pow(x, y);
      } else {  // integer powers by squaring; negative exponents give 0 except for |x| == 1
        if (y < 0) return x == 1 ? T(1) : x == -1 ? (y % 2 ? T(-1) : T(1)) : T(0);
        T result = 1, base = x;
        for (T e = y; e > 0; e >>= 1) {
          if (e & 1) result *= base;
          base *= base;
        }
        return result;
      }
    case BinaryOp::GeluBackward:
    case BinaryOp::GeluTanhBackward:
    case BinaryOp::SiluBackward:
      if constexpr (std::is_floating_point_v<T>) {
        if (op == BinaryOp::GeluBackward) return gelu_grad(x, y);
        if (op == BinaryOp::GeluTanhBackward) return gelu_tanh_grad(x, y);
        return silu_grad(x, y);
      }
      return T{};  // floating point only (the ops layer never asks for integers)
    default: return T{};
  }
}

template <typename T>
TORCHLET_HD bool binary_predicate(BinaryOp op, T x, T y) {
  switch (op) {
    case BinaryOp::Eq: return x == y;
    case BinaryOp::Ne: return x != y;
    case BinaryOp::Lt: return x < y;
    case BinaryOp::Le: return x <= y;
    case BinaryOp::Gt: return x > y;
    case BinaryOp::Ge: return x >= y;
    case BinaryOp::LogicalAnd: return x != T(0) && y != T(0);
    case BinaryOp::LogicalOr: return x != T(0) || y != T(0);
    default: return false;
  }
}

// The formulas of torchlet/unary_ops.def, in float and in double (float64 tensors).
TORCHLET_HD float unary_value(UnaryOp op, float x) {
  switch (op) {
#define TORCHLET_UNARY(op, name, api, backward, reads, f32, f64, grad) \
  case UnaryOp::op:                                                    \
    return f32;
#include "torchlet/unary_ops.def"
#undef TORCHLET_UNARY
  }
  return x;
}

TORCHLET_HD double unary_value(UnaryOp op, double x) {
  switch (op) {
#define TORCHLET_UNARY(op, name, api, backward, reads, f32, f64, grad) \
  case UnaryOp::op:                                                    \
    return f64;
#include "torchlet/unary_ops.def"
#undef TORCHLET_UNARY
  }
  return x;
}

TORCHLET_HD int64_t unary_value(UnaryOp op, int64_t x) {
  switch (op) {
    case UnaryOp::Neg: return -x;
    case UnaryOp::Abs: return x < 0 ? -x : x;
    case UnaryOp::Sign: return x > 0 ? 1 : x < 0 ? -1 : 0;
    default: return x;
  }
}

// The ops unary_value computes for int64 (the others need float32 or float64).
TORCHLET_HD constexpr bool unary_takes_int64(UnaryOp op) {
  return op == UnaryOp::Neg || op == UnaryOp::Abs || op == UnaryOp::Sign;
}

}  // namespace torchlet::backend
