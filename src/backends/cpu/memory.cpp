// CPU memory: the caching allocator over aligned malloc, copies, fill, cast, strided copy.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "backends/cpu/cpu_backend.h"
#include "torchlet/error.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cpu {

namespace {

void* raw_allocate(std::size_t nbytes) {
  return std::aligned_alloc(CachingAllocator::kAlignment, nbytes);
}
void raw_free(void* ptr) { std::free(ptr); }

}  // namespace

CpuBackend::CpuBackend() : allocator_(raw_allocate, raw_free) {}

CpuBackend& instance() {
  static CpuBackend backend;
  return backend;
}

void* CpuBackend::allocate(std::size_t nbytes) {
  bool reached_system = false;
  void* ptr = allocator_.allocate(nbytes, &reached_system);
  TORCHLET_CHECK_KIND(OutOfMemory, ptr, "Expected to allocate ", nbytes,
                      " bytes of CPU memory, but the system "
                      "has no memory left (",
                      allocator_.stats().bytes_in_use, " bytes in use)");
  profile::record_allocation(nbytes, reached_system);
  return ptr;
}

void CpuBackend::deallocate(void* ptr, std::size_t nbytes) noexcept {
  allocator_.deallocate(ptr, nbytes);
}

void CpuBackend::copy_from_host(void* dst, const void* src, std::size_t nbytes) {
  profile::record_copy(profile::CopyKind::HostToDevice, nbytes, 0.0);
  if (nbytes) std::memcpy(dst, src, nbytes);
}
void CpuBackend::copy_to_host(void* dst, const void* src, std::size_t nbytes) {
  profile::record_sync(0.0);  // the host waits for a device result (see profile.h)
  profile::record_copy(profile::CopyKind::DeviceToHost, nbytes, 0.0);
  if (nbytes) std::memcpy(dst, src, nbytes);
}
// Nothing to wait for on the CPU; counted so that a program's syncs agree across devices.
void CpuBackend::synchronize() { profile::record_sync(0.0); }

void CpuBackend::fill(void* out, DType dtype, int64_t n, double value) {
  profile::record_launch();
  dispatch_dtype(dtype, [&]<typename T>() {
    T* o = static_cast<T*>(out);
    const T v = static_cast<T>(value);
    parallel_for(n, kParallelGrain,
                 [&](int64_t begin, int64_t end) { std::fill(o + begin, o + end, v); });
  });
}

void CpuBackend::cast(const void* in, DType in_dtype, void* out, DType out_dtype, int64_t n) {
  profile::record_launch();
  dispatch_dtype(in_dtype, [&]<typename In>() {
    dispatch_dtype(out_dtype, [&]<typename Out>() {
      const In* i = static_cast<const In*>(in);
      Out* o = static_cast<Out*>(out);
      parallel_for(n, kParallelGrain, [&](int64_t begin, int64_t end) {
        for (int64_t k = begin; k < end; ++k) o[k] = static_cast<Out>(i[k]);
      });
    });
  });
}

void CpuBackend::strided_copy(const void* a, void* out, DType dtype, const Loop& loop) {
  profile::record_launch();
  dispatch_dtype(dtype, [&]<typename T>() {
    const T* src = static_cast<const T*>(a);
    T* dst = static_cast<T*>(out);
    parallel_for_each_run(loop,
                          [&](int64_t, int64_t oa, int64_t ob, int64_t n, int64_t sa, int64_t sb) {
                            for (int64_t i = 0; i < n; ++i) dst[ob + i * sb] = src[oa + i * sa];
                          });
  });
}

void CpuBackend::gather_rows(const void* in, int64_t rows, const int64_t* index, void* out,
                             int64_t n, std::size_t row_bytes) {
  profile::record_launch();
  const char* src = static_cast<const char*>(in);
  char* dst = static_cast<char*>(out);
  for (int64_t i = 0; i < n; ++i)
    TORCHLET_CHECK_KIND(Index, index[i] >= 0 && index[i] < rows,
                        "index_select: Expected index in [0, ", rows, "), but got ", index[i]);
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(dst + i * row_bytes, src + index[i] * row_bytes, row_bytes);
}

}  // namespace torchlet::backend::cpu
