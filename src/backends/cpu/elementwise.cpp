// CPU elementwise kernels: broadcasting binary arithmetic and comparison, scalar arithmetic,
// ReLU. Runs whose operands are contiguous or broadcast get loops the compiler vectorises.
#include "backends/cpu/cpu_backend.h"
#include "torchlet/error.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cpu {

namespace {

template <BinaryOp Op, typename T>
inline auto apply(T x, T y) {
  if constexpr (Op == BinaryOp::Add) return static_cast<T>(x + y);
  if constexpr (Op == BinaryOp::Sub) return static_cast<T>(x - y);
  if constexpr (Op == BinaryOp::Mul) return static_cast<T>(x * y);
  if constexpr (Op == BinaryOp::Div) return static_cast<T>(x / y);
  if constexpr (Op == BinaryOp::Eq) return x == y;
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

template <BinaryOp Op, typename T>
void binary_loop(const T* a, const T* b, void* out, const Loop& loop) {
  using Out = decltype(apply<Op>(T{}, T{}));
  Out* o = static_cast<Out*>(out);
  parallel_for_each_run(loop, [&](int64_t oo, int64_t oa, int64_t ob, int64_t n, int64_t sa,
                                  int64_t sb) { run<Op>(a + oa, sa, b + ob, sb, o + oo, n); });
}

}  // namespace

void CpuBackend::binary(BinaryOp op, DType dtype, const void* a, const void* b, void* out,
                        const Loop& loop) {
  profile::record_launch();
  dispatch_dtype(dtype, [&]<typename T>() {
    const T* x = static_cast<const T*>(a);
    const T* y = static_cast<const T*>(b);
    switch (op) {
      case BinaryOp::Add: return binary_loop<BinaryOp::Add>(x, y, out, loop);
      case BinaryOp::Sub: return binary_loop<BinaryOp::Sub>(x, y, out, loop);
      case BinaryOp::Mul: return binary_loop<BinaryOp::Mul>(x, y, out, loop);
      case BinaryOp::Div: return binary_loop<BinaryOp::Div>(x, y, out, loop);
      case BinaryOp::Eq: return binary_loop<BinaryOp::Eq>(x, y, out, loop);
    }
  });
}

void CpuBackend::binary_scalar(BinaryOp op, const float* a, float s, bool scalar_first, float* out,
                               int64_t n) {
  profile::record_launch();
  auto go = [&]<BinaryOp Op>() {
    parallel_for(n, kParallelGrain, [&](int64_t begin, int64_t end) {
      if (scalar_first)
        run<Op>(&s, 0, a + begin, 1, out + begin, end - begin);
      else
        run<Op>(a + begin, 1, &s, 0, out + begin, end - begin);
    });
  };
  switch (op) {
    case BinaryOp::Add: return go.template operator()<BinaryOp::Add>();
    case BinaryOp::Sub: return go.template operator()<BinaryOp::Sub>();
    case BinaryOp::Mul: return go.template operator()<BinaryOp::Mul>();
    case BinaryOp::Div: return go.template operator()<BinaryOp::Div>();
    case BinaryOp::Eq: TORCHLET_ASSERT(false, "binary_scalar has no float result for ==");
  }
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
