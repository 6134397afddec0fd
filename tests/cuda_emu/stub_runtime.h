// The stub CUDA runtime's controls and counters, for tests of the CUDA backend's host code
// (allocator, staging copies, streams, events, graph capture and replay) on the CPU.
#pragma once

#include <cublas_v2.h>

#include <cstdint>
#include <vector>

namespace torchlet::emu::stub {

struct Stats {
  int64_t mallocs = 0;
  int64_t frees = 0;
  int64_t refused_in_capture = 0;    // cudaFree or a stream synchronisation during a capture
  bool capture_invalidated = false;  // by one of those, since the capture began
  std::vector<const void*> host_to_device_sources;  // each H2D copy's source, in order
};
Stats& stats();
// The status cublasLtMatmul returns (and, unless success, computes nothing): e.g.
// CUBLAS_STATUS_NOT_SUPPORTED, as cuBLASLt's bias epilogue does for some shapes.
void set_lt_status(cublasStatus_t status);

}  // namespace torchlet::emu::stub
