// The CPU's indexing kernels (backend.h's gather_dim and scatter_dim), the reference the CUDA
// kernels (backends/cuda/index.cu) are tested against. Both walk the loop one line along
// loop.dim at a time, in row-major order; every index is checked before anything is written.
#include <array>

#include "backends/cpu/cpu_backend.h"
#include "torchlet/error.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cpu {

namespace {

// Calls f(index, src, dst), the offsets where each line along g.dim starts, in row-major order.
template <typename F>
void for_each_line(const IndexLoop& g, F&& f) {
  const int nd = g.shape.size();
  if (g.shape.numel() == 0) return;
  std::array<int64_t, Shape::kMaxDims> k{};
  int64_t oi = 0, os = 0, od = 0;
  for (;;) {
    f(oi, os, od);
    int d = nd - 1;
    for (; d >= 0; --d) {  // the next line: an odometer over every dimension but g.dim
      if (d == g.dim) continue;
      if (++k[d] < g.shape[d]) {
        oi += g.stride_index[d], os += g.stride_src[d], od += g.stride_dst[d];
        break;
      }
      oi -= (g.shape[d] - 1) * g.stride_index[d];
      os -= (g.shape[d] - 1) * g.stride_src[d];
      od -= (g.shape[d] - 1) * g.stride_dst[d];
      k[d] = 0;
    }
    if (d < 0) return;
  }
}

void check_indices(const IndexLoop& g, const int64_t* index) {
  const int64_t len = g.shape[g.dim], step = g.stride_index[g.dim];
  for_each_line(g, [&](int64_t oi, int64_t, int64_t) {
    for (int64_t j = 0; j < len; ++j) {
      const int64_t k = index[oi + j * step];
      TORCHLET_CHECK_KIND(Index, k >= 0 && k < g.dim_size, "Expected index in [0, ", g.dim_size,
                          "), but got ", k);
    }
  });
}

}  // namespace

void CpuBackend::gather_dim(DType dtype, const void* src, const int64_t* index, void* dst,
                            const IndexLoop& loop) {
  profile::record_launch();
  check_indices(loop, index);
  const int64_t len = loop.shape[loop.dim], si = loop.stride_index[loop.dim];
  const int64_t ss = loop.stride_src[loop.dim], sd = loop.stride_dst[loop.dim];
  dispatch_dtype(dtype, [&]<typename T>() {
    const T* in = static_cast<const T*>(src);
    T* out = static_cast<T*>(dst);
    for_each_line(loop, [&](int64_t oi, int64_t os, int64_t od) {
      for (int64_t j = 0; j < len; ++j) out[od + j * sd] = in[os + index[oi + j * si] * ss];
    });
  });
}

void CpuBackend::scatter_dim(bool accumulate, DType dtype, const void* src, const int64_t* index,
                             void* dst, const IndexLoop& loop) {
  profile::record_launch();
  check_indices(loop, index);
  const int64_t len = loop.shape[loop.dim], si = loop.stride_index[loop.dim];
  const int64_t ss = loop.stride_src[loop.dim], sd = loop.stride_dst[loop.dim];
  dispatch_dtype(dtype, [&]<typename T>() {
    const T* in = static_cast<const T*>(src);
    T* out = static_cast<T*>(dst);
    for_each_line(loop, [&](int64_t oi, int64_t os, int64_t od) {
      for (int64_t j = 0; j < len; ++j) {
        T& o = out[od + index[oi + j * si] * sd];
        o = accumulate ? static_cast<T>(o + in[os + j * ss]) : in[os + j * ss];
      }
    });
  });
}

}  // namespace torchlet::backend::cpu
