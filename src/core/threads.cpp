// set_num_threads / get_num_threads: the thread count of the CPU backend's pool
// (backends/cpu/parallel.h). OpenBLAS itself is kept at one thread: the backend gives it one
// block of each large GEMM per thread of its own pool, so that one set of threads, which sleeps
// when idle, runs everything (OpenBLAS's threads would spin between GEMMs, taking a core from
// the kernels in between).
#include "torchlet/threads.h"

#include <cblas.h>

#include <atomic>

#include "torchlet/error.h"

namespace torchlet {

namespace {

std::atomic<int>& thread_count() {
  static std::atomic<int> count = [] {
    const int n = openblas_get_num_threads();  // one per core, or what the environment says
    openblas_set_num_threads(1);
    return n;
  }();
  return count;
}

}  // namespace

void set_num_threads(int n) {
  TORCHLET_CHECK(n >= 1, "set_num_threads: Expected a number of threads >= 1, but got ", n);
  thread_count().store(n, std::memory_order_relaxed);
}

int get_num_threads() { return thread_count().load(std::memory_order_relaxed); }

}  // namespace torchlet
