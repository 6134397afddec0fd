// The CPU backend: plain, readable kernels that are also the reference every other backend
// is tested against. Each kernel family lives in its own file under backends/cpu/.
#pragma once

#include <algorithm>
#include <utility>

#include "backends/backend.h"
#include "backends/caching_allocator.h"
#include "backends/cpu/parallel.h"
#include "torchlet/error.h"

namespace torchlet::backend::cpu {

class CpuBackend final : public Backend, public FusedMlpKernels {
 public:
  CpuBackend();
  Device device() const override { return kCPU; }

  void* allocate(std::size_t nbytes) override;
  void deallocate(void* ptr, std::size_t nbytes) noexcept override;
  void copy_from_host(void* dst, const void* src, std::size_t nbytes) override;
  void copy_to_host(void* dst, const void* src, std::size_t nbytes) override;
  void synchronize() override;
  AllocatorStats allocator_stats() const { return allocator_.stats(); }

  // The kernels of backends/entries.def, one file of backends/cpu/ per family.
#define TORCHLET_KERNEL(name, recording, params, args) void name params override;
#include "backends/entries.def"
#undef TORCHLET_KERNEL

  void linear_forward(const float* x, const float* w, const float* bias, float* y, int64_t rows,
                      int64_t in, int64_t out) override;

  FusedMlpKernels* fused_mlp() override { return this; }
  void mlp_step(const MlpStep& step) override;
  void mlp_sgd_steps(const MlpStep& step, const MlpSgd& sgd, int64_t steps, float* losses) override;

 private:
  CachingAllocator allocator_;
};

// The process's CPU backend.
CpuBackend& instance();

// Calls f.template operator()<T>() with T the C++ type of dtype.
template <typename F>
void dispatch_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::Float32: f.template operator()<float>(); return;
    case DType::Int64: f.template operator()<int64_t>(); return;
    case DType::Bool: f.template operator()<bool>(); return;
    case DType::Float64: f.template operator()<double>(); return;
  }
}

// dispatch_dtype for the kernels that exist for floating-point tensors only (float32, float64).
template <typename F>
void dispatch_floating(DType dtype, F&& f) {
  TORCHLET_ASSERT(dtype == DType::Float32 || dtype == DType::Float64,
                  "a floating-point kernel called on a non-floating dtype");
  if (dtype == DType::Float64)
    f.template operator()<double>();
  else
    f.template operator()<float>();
}

// Calls f.template operator()<V>() with V the compile-time form of `value`, an enum whose values
// are 0 .. count-1: a kernel instantiated per op code, with the op's formula known at compile time.
template <int count, typename E, typename F>
void dispatch_enum(E value, F&& f) {
  [&]<int... I>(std::integer_sequence<int, I...>) {
    ((static_cast<int>(value) == I && (f.template operator()<static_cast<E>(I)>(), true)) || ...);
  }
  (std::make_integer_sequence<int, count>{});
}

// The number of innermost runs of an n-d loop (1 for a 0-d loop, 0 for an empty one).
inline int64_t loop_runs(const Loop& loop) {
  const int nd = loop.shape.size();
  if (nd == 0) return 1;
  const int64_t inner = loop.shape[nd - 1];
  return inner == 0 ? 0 : loop.shape.numel() / inner;
}

// Visits runs [first, last) of an n-d loop: body(offset_out, offset_a, offset_b, inner_count,
// inner_stride_a, inner_stride_b) once per run of the innermost dimension.
template <typename Body>
void for_each_run(const Loop& loop, int64_t first, int64_t last, Body&& body) {
  const int nd = loop.shape.size();
  if (first >= last) return;
  if (nd == 0) {
    body(int64_t{0}, int64_t{0}, int64_t{0}, int64_t{1}, int64_t{0}, int64_t{0});
    return;
  }
  const int64_t inner = loop.shape[nd - 1];
  int64_t index[Shape::kMaxDims] = {};
  int64_t off_a = 0, off_b = 0;
  for (int64_t d = nd - 2, rest = first; d >= 0; --d) {  // the odometer's reading at `first`
    index[d] = rest % loop.shape[d];
    rest /= loop.shape[d];
    off_a += index[d] * loop.stride_a[d];
    off_b += index[d] * loop.stride_b[d];
  }
  for (int64_t run = first; run < last; ++run) {
    body(run * inner, off_a, off_b, inner, loop.stride_a[nd - 1], loop.stride_b[nd - 1]);
    for (int d = nd - 2; d >= 0; --d) {  // advance the outer index like an odometer
      off_a += loop.stride_a[d];
      off_b += loop.stride_b[d];
      if (++index[d] < loop.shape[d]) break;
      off_a -= loop.stride_a[d] * loop.shape[d];
      off_b -= loop.stride_b[d] * loop.shape[d];
      index[d] = 0;
    }
  }
}

// Visits every run of an n-d loop, split over threads when it is large (see parallel.h). A
// 1-d loop (one run: contiguous or broadcast operands) is split within its run.
template <typename Body>
void parallel_for_each_run(const Loop& loop, Body&& body) {
  const int64_t runs = loop_runs(loop);
  if (runs == 0) return;
  const int nd = loop.shape.size();
  if (nd == 1) {
    const int64_t sa = loop.stride_a[0], sb = loop.stride_b[0];
    parallel_for(loop.shape[0], kParallelGrain, [&](int64_t begin, int64_t end) {
      body(begin, begin * sa, begin * sb, end - begin, sa, sb);
    });
    return;
  }
  const int64_t inner = nd ? loop.shape[nd - 1] : 1;
  parallel_for(runs, std::max<int64_t>(kParallelGrain / inner, 1),
               [&](int64_t first, int64_t last) { for_each_run(loop, first, last, body); });
}

}  // namespace torchlet::backend::cpu
