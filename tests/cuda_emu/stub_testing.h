// Helpers for the tests of the CUDA backend's host code on the stub runtime: the backend of
// "cuda:0" (memory.cpp, ops.cpp ... over stub_runtime.cpp and the emulated kernels) and device
// buffers that go back to its allocator.
#pragma once

#include <vector>

#include "backends/cuda/cuda_backend.h"
#include "cuda_emu/emu_testing.h"
#include "cuda_emu/stub_runtime.h"

namespace torchlet::emu::testing {

inline backend::cuda::CudaBackend& gpu() { return backend::cuda::instance(0); }

// A device buffer of n elements from the backend's allocator (or a graph's pool, when it is
// made during a capture).
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t n) : n_(n), ptr_(static_cast<T*>(gpu().allocate(bytes()))) {}
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    gpu().copy_from_host(ptr_, host.data(), bytes());
  }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return ptr_; }
  std::size_t bytes() const { return n_ * sizeof(T); }
  std::vector<T> read() const {
    std::vector<T> host(n_);
    gpu().copy_to_host(host.data(), ptr_, bytes());
    return host;
  }
  // Frees the buffer now (as a tensor going out of scope would).
  void release() {
    if (ptr_) gpu().deallocate(ptr_, bytes());
    ptr_ = nullptr;
  }

 private:
  std::size_t n_;
  T* ptr_;
};

}  // namespace torchlet::emu::testing
