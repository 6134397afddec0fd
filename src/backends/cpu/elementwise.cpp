// CPU elementwise kernels: broadcasting binary arithmetic and comparison, the same with a scalar,
// the unary maths, where, and ReLU. Each op's formula is backends/elementwise.h's, instantiated
// here with the op as a compile-time constant, so runs whose operands are contiguous or broadcast
// get loops the compiler vectorises. The float32 exp, log, tanh, erf, gelu ... of `unary` and the
// activations' gradients of `binary` are SLEEF's vector functions instead (vec_math.h), within
// 2 ulp of the formula's C library calls (a few more for the activations, vec_math's tests).
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/vec_math.h"
#include "torchlet/error.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cpu {

namespace {

template <BinaryOp Op, typename T>
inline auto apply(T x, T y) {
  if constexpr (is_predicate(Op))
    return binary_predicate(Op, x, y);
  else
    return binary_value(Op, x, y);
}

// One run of n elements; the common stride patterns get their own loops.
template <BinaryOp Op, typename T, typename Out>
inline void run(const T* a, int64_t sa, const T* b, int64_t sb, Out* out, int64_t n) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = apply<Op>(a[i], b[i]);
  } else if (sa == 1 && sb == 0) {
    const T y = b[0];
    for (int64_t i = 0; i < n; ++i) out[i] = apply<Op>(a[i], y);
  } else if (sa == 0 && sb == 1) {
    const T x = a[0];
    for (int64_t i = 0; i < n; ++i) out[i] = apply<Op>(x, b[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = apply<Op>(a[i * sa], b[i * sb]);
  }
}

// Calls f.template operator()<Op, T>() with Op and T the compile-time forms of op and dtype, for
// the combinations the Backend interface allows (no arithmetic on bool).
template <typename F>
void dispatch_binary(BinaryOp op, DType dtype, F&& f) {
  dispatch_dtype(dtype, [&]<typename T>() {
    dispatch_enum<kBinaryOps>(op, [&]<BinaryOp Op>() {
      if constexpr (std::is_same_v<T, bool> && !is_predicate(Op))
        TORCHLET_ASSERT(false, "binary arithmetic on bool");
      else
        f.template operator()<Op, T>();
    });
  });
}

template <BinaryOp Op, typename T>
using BinaryOut = decltype(apply<Op>(T{}, T{}));

}  // namespace

void CpuBackend::binary(BinaryOp op, DType dtype, const void* a, const void* b, void* out,
                        const Loop& loop) {
  profile::record_launch();
  if (dtype == DType::Float32 && vec_math::vectorised(op)) {  // SLEEF's, on contiguous runs
    const float* x = static_cast<const float*>(a);
    const float* y = static_cast<const float*>(b);
    float* o = static_cast<float*>(out);
    parallel_for_each_run(
        loop, [&](int64_t oo, int64_t oa, int64_t ob, int64_t n, int64_t sa, int64_t sb) {
          if (sa == 1 && sb == 1) return vec_math::binary(op, x + oa, y + ob, o + oo, n);
          for (int64_t i = 0; i < n; ++i)
            o[oo + i] = binary_value(op, x[oa + i * sa], y[ob + i * sb]);
        });
    return;
  }
  dispatch_binary(op, dtype, [&]<BinaryOp Op, typename T>() {
    const T* x = static_cast<const T*>(a);
    const T* y = static_cast<const T*>(b);
    auto* o = static_cast<BinaryOut<Op, T>*>(out);
    parallel_for_each_run(loop, [&](int64_t oo, int64_t oa, int64_t ob, int64_t n, int64_t sa,
                                    int64_t sb) { run<Op>(x + oa, sa, y + ob, sb, o + oo, n); });
  });
}

void CpuBackend::binary_scalar(BinaryOp op, DType dtype, const void* a, double s, bool scalar_first,
                               void* out, int64_t n) {
  profile::record_launch();
  dispatch_binary(op, dtype, [&]<BinaryOp Op, typename T>() {
    const T* x = static_cast<const T*>(a);
    const T scalar = static_cast<T>(s);
    auto* o = static_cast<BinaryOut<Op, T>*>(out);
    parallel_for(n, kParallelGrain, [&](int64_t begin, int64_t end) {
      if (scalar_first)
        run<Op>(&scalar, 0, x + begin, 1, o + begin, end - begin);
      else
        run<Op>(x + begin, 1, &scalar, 0, o + begin, end - begin);
    });
  });
}

void CpuBackend::unary(UnaryOp op, DType dtype, const void* in, void* out, int64_t n) {
  profile::record_launch();
  auto go = [&]<typename T>() {
    const T* x = static_cast<const T*>(in);
    T* y = static_cast<T*>(out);
    auto loop = [&]<UnaryOp Op>() {
      parallel_for(n, kParallelGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) y[i] = unary_value(Op, x[i]);
      });
    };
    dispatch_enum<kUnaryOps>(op, loop);
  };
  if (dtype == DType::Float32 && vec_math::vectorised(op)) {  // SLEEF's vector functions
    const float* x = static_cast<const float*>(in);
    float* y = static_cast<float*>(out);
    parallel_for(n, kParallelGrain, [&](int64_t begin, int64_t end) {
      vec_math::unary(op, x + begin, y + begin, end - begin);
    });
    return;
  }
  if (dtype == DType::Float32) return go.template operator()<float>();
  if (dtype == DType::Float64) return go.template operator()<double>();
  TORCHLET_ASSERT(dtype == DType::Int64 && unary_takes_int64(op), "unary op on ", dtype);
  go.template operator()<int64_t>();
}

void CpuBackend::where(const bool* cond, DType dtype, const void* a, const void* b, void* out,
                       int64_t n) {
  profile::record_launch();
  dispatch_dtype(dtype, [&]<typename T>() {
    const T* x = static_cast<const T*>(a);
    const T* y = static_cast<const T*>(b);
    T* o = static_cast<T*>(out);
    parallel_for(n, kParallelGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) o[i] = cond[i] ? x[i] : y[i];
    });
  });
}

void CpuBackend::relu_forward(const float* x, float* y, int64_t n) {
  profile::record_launch();
  parallel_for(n, kParallelGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
  });
}

void CpuBackend::relu_backward(const float* x, const float* dy, float* dx, int64_t n) {
  profile::record_launch();
  // dy is loaded whatever x says: a select of two loaded values vectorises, a load that
  // depends on x (x[i] > 0 ? dy[i] : 0) does not.
  parallel_for(n, kParallelGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const float g = dy[i];
      dx[i] = x[i] > 0.0f ? g : 0.0f;
    }
  });
}

}  // namespace torchlet::backend::cpu
