// The CUDA backend's memory: devices and their backends, the caching allocator over cudaMalloc
// (with CUDA-graph pools), copies through pinned staging, synchronisation, and the errors that
// kernels report through host-mapped memory.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>

#include "backends/cuda/check.h"
#include "backends/cuda/cublas_api.h"
#include "backends/cuda/cuda_backend.h"
#include "torchlet/error.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cuda {

namespace {

// The first call's answer, kept: cudaGetDeviceCount initialises the runtime once.
struct Availability {
  int count = 0;
  const char* reason = "";
};

const Availability& availability() {
  static const Availability a = [] {
    Availability r;
    const cudaError_t e = cudaGetDeviceCount(&r.count);
    if (e == cudaSuccess && r.count > 0) return r;
    r.count = 0;
    cudaGetLastError();
    switch (e) {
      case cudaSuccess:
      case cudaErrorNoDevice: r.reason = "no CUDA GPU was found"; break;
      case cudaErrorInsufficientDriver:
        r.reason = "the NVIDIA driver is missing or older than this CUDA runtime";
        break;
      default: r.reason = cudaGetErrorString(e); break;
    }
    return r;
  }();
  return a;
}

// cudaMalloc on the calling thread's current device (the backend activated it).
void* raw_allocate(std::size_t nbytes) {
  void* ptr = nullptr;
  if (cudaMalloc(&ptr, nbytes) != cudaSuccess) {
    cudaGetLastError();  // out of memory is not sticky: clear it
    return nullptr;
  }
  return ptr;
}
void raw_free(void* ptr) { cudaFree(ptr); }

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int device_count() { return availability().count; }
const char* unavailable_reason() { return availability().reason; }

CudaBackend& instance(int index) {
  const int count = device_count();
  TORCHLET_CHECK(
      count > 0, "Expected a device this build of torchlet can use, but got cuda:", index, ": ",
      unavailable_reason(), " (torchlet::cuda::is_available() is false); use Device(\"cpu\")");
  TORCHLET_CHECK(index >= 0 && index < count, "Expected a CUDA device index in [0, ", count,
                 ") (this machine has ", count, count == 1 ? " GPU" : " GPUs",
                 "), but got cuda:", index);
  // One backend per device, made on first use and kept for the process (a deque never moves
  // its elements, so references stay valid).
  static std::mutex mutex;
  static std::deque<std::unique_ptr<CudaBackend>> backends(static_cast<std::size_t>(count));
  std::lock_guard lock(mutex);
  auto& slot = backends[static_cast<std::size_t>(index)];
  if (!slot) slot = std::make_unique<CudaBackend>(index);
  return *slot;
}

CudaBackend::CudaBackend(int index) : index_(index), allocator_(raw_allocate, raw_free) {
  activate();
  TORCHLET_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "init", index_);
  TORCHLET_CUBLAS_CHECK(cublas().create(&cublas_), "init", index_);
  TORCHLET_CUBLAS_CHECK(cublas().set_stream(cublas_, stream_), "init", index_);
  // A workspace of our own: cuBLAS then never allocates while a CUDA graph is captured.
  TORCHLET_CUDA_CHECK(cudaMalloc(&cublas_workspace_, kWorkspaceBytes), "init", index_);
  TORCHLET_CUBLAS_CHECK(cublas().set_workspace(cublas_, cublas_workspace_, kWorkspaceBytes), "init",
                        index_);
  for (int k = 0; k < 2; ++k) {
    TORCHLET_CUDA_CHECK(cudaMallocHost(&staging_[k], kStagingBytes), "init", index_);
    TORCHLET_CUDA_CHECK(cudaEventCreateWithFlags(&staging_free_[k], cudaEventDisableTiming), "init",
                        index_);
  }
  TORCHLET_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&error_words_), 2 * sizeof(int64_t),
                                    cudaHostAllocMapped),
                      "init", index_);
  error_words_[0] = error_words_[1] = kernels::kNoError;
  TORCHLET_CUDA_CHECK(
      cudaHostGetDevicePointer(reinterpret_cast<void**>(&error_words_device_), error_words_, 0),
      "init", index_);
  int optin = 0;
  if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, index_) ==
      cudaSuccess)
    shared_limit_ = static_cast<std::size_t>(optin);
}

// Runs at process exit, when the driver may already be going down: errors are ignored.
CudaBackend::~CudaBackend() {
  cudaStreamSynchronize(stream_);
  for (auto [ones, count] : retired_ones_)
    allocator_.deallocate(ones, static_cast<std::size_t>(count) * sizeof(float));
  allocator_.empty_cache();
  for (int k = 0; k < 2; ++k) {
    cudaEventDestroy(staging_free_[k]);
    cudaFreeHost(staging_[k]);
  }
  cudaFreeHost(error_words_);
  cublas().destroy(cublas_);
  cudaFree(cublas_workspace_);
  cudaStreamDestroy(stream_);
}

void CudaBackend::activate() {
  thread_local int current = -1;
  if (current == index_) return;
  TORCHLET_CUDA_CHECK(cudaSetDevice(index_), "set device", index_);
  current = index_;
}

void CudaBackend::check_launch(const char* op) {
  profile::record_launch();
  TORCHLET_CUDA_CHECK(cudaGetLastError(), op, index_);
}

void* CudaBackend::allocate(std::size_t nbytes) {
  activate();
  std::unique_lock lock(pool_mutex_);
  if (capture_pool_) {  // a graph's capture: its own blocks, kept for its replays
    const std::size_t size = CachingAllocator::rounded(nbytes);
    auto& blocks = capture_pool_->free_blocks[size];
    void* ptr = nullptr;
    const bool reached_system = blocks.empty();
    if (reached_system) {
      ptr = raw_allocate(size);
    } else {
      ptr = blocks.back();
      blocks.pop_back();
    }
    TORCHLET_CHECK_KIND(OutOfMemory, ptr, "Expected ", nbytes, " bytes of memory on cuda:", index_,
                        " for a CUDA graph, but the GPU is out of memory");
    pool_blocks_[ptr] = capture_pool_;
    profile::record_allocation(nbytes, reached_system);
    return ptr;
  }
  lock.unlock();
  bool reached_system = false;
  void* ptr = allocator_.allocate(nbytes, &reached_system);
  if (!ptr) {
    std::size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    cudaGetLastError();
    TORCHLET_CHECK_KIND(OutOfMemory, false, "Expected to allocate ", nbytes,
                        " bytes on cuda:", index_, ", but the GPU is out of memory: ", free_bytes,
                        " bytes free of ", total_bytes, " (", allocator_.stats().bytes_in_use,
                        " bytes held by torchlet's tensors)");
  }
  profile::record_allocation(nbytes, reached_system);
  return ptr;
}

void CudaBackend::deallocate(void* ptr, std::size_t nbytes) noexcept {
  std::lock_guard lock(pool_mutex_);
  auto it = pool_blocks_.find(ptr);
  if (it != pool_blocks_.end()) {
    std::shared_ptr<GraphPool> pool = std::move(it->second);
    pool_blocks_.erase(it);
    if (pool->graph_alive) {
      try {
        pool->free_blocks[CachingAllocator::rounded(nbytes)].push_back(ptr);
        return;
      } catch (...) {
      }
    }
    free_or_defer(ptr);  // the graph is gone (or no memory for the list): give it back
    return;
  }
  if (capture_pool_) {
    // Allocated before the capture, freed during it: the captured kernels may still read or
    // write it, so no other tensor may get it while the graph lives.
    try {
      capture_pool_->kept.emplace_back(ptr, nbytes);
    } catch (...) {  // no memory for the list: losing the block is safe, reusing it is not
    }
    return;
  }
  allocator_.deallocate(ptr, nbytes);
}

void CudaBackend::free_or_defer(void* ptr) noexcept {
  if (capture_pool_) {
    try {
      deferred_frees_.push_back(ptr);
    } catch (...) {  // kept, not freed: the capture would not survive the cudaFree
    }
    return;
  }
  cudaFree(ptr);
}

void CudaBackend::release_pool(GraphPool& pool) noexcept {
  std::lock_guard lock(pool_mutex_);
  pool.graph_alive = false;  // blocks still held by tensors are freed when those tensors go
  for (auto& [size, blocks] : pool.free_blocks)
    for (void* block : blocks) free_or_defer(block);
  pool.free_blocks.clear();
  for (auto [block, nbytes] : pool.kept) allocator_.deallocate(block, nbytes);
  pool.kept.clear();
}

void CudaBackend::begin_capture(std::shared_ptr<GraphPool> pool) {
  activate();
  // Under the pool mutex from before the capture starts: another thread's free then either
  // runs before it (a cudaFree is still allowed) or sees capture_pool_ and defers its cudaFree,
  // which would invalidate the capture (found by tests/cuda_emu/test_cuda_emu_threads.cpp).
  std::lock_guard lock(pool_mutex_);
  // Relaxed: cudaMalloc (a new pool block) is allowed while this stream is captured.
  TORCHLET_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed),
                      "cuda::Graph::capture_begin", index_);
  capture_pool_ = std::move(pool);
}

cudaGraph_t CudaBackend::end_capture() {
  cudaGraph_t graph = nullptr;
  const cudaError_t e = cudaStreamEndCapture(stream_, &graph);
  {
    std::lock_guard lock(pool_mutex_);
    capture_pool_.reset();
    for (void* block : deferred_frees_) cudaFree(block);
    deferred_frees_.clear();
  }
  TORCHLET_CUDA_CHECK(e, "cuda::Graph::capture_end", index_);
  return graph;
}

void CudaBackend::copy_from_host(void* dst, const void* src, std::size_t nbytes) {
  if (nbytes == 0) return;
  activate();
  TORCHLET_CHECK(!capturing(),
                 "to: Expected no host-to-device copy while a CUDA graph is "
                 "captured, but got one of ",
                 nbytes, " bytes");
  const auto start = std::chrono::steady_clock::now();
  std::lock_guard lock(staging_mutex_);
  // Chunks alternate between the two pinned buffers, across calls too: the host fills one
  // while the GPU reads the other. A buffer is refilled only after its previous copy finished
  // (its event), so a small copy each step waits for the one two copies back, not the last.
  const char* from = static_cast<const char*>(src);
  char* to = static_cast<char*>(dst);
  for (std::size_t done = 0; done < nbytes; done += kStagingBytes) {
    const int k = next_staging_;
    next_staging_ ^= 1;
    const std::size_t chunk = std::min(kStagingBytes, nbytes - done);
    TORCHLET_CUDA_CHECK(cudaEventSynchronize(staging_free_[k]), "to", index_);
    std::memcpy(staging_[k], from + done, chunk);
    TORCHLET_CUDA_CHECK(
        cudaMemcpyAsync(to + done, staging_[k], chunk, cudaMemcpyHostToDevice, stream_), "to",
        index_);
    TORCHLET_CUDA_CHECK(cudaEventRecord(staging_free_[k], stream_), "to", index_);
  }
  profile::record_copy(profile::CopyKind::HostToDevice, nbytes, seconds_since(start));
}

void CudaBackend::copy_to_host(void* dst, const void* src, std::size_t nbytes) {
  activate();
  TORCHLET_CHECK(!capturing(),
                 "to: Expected no device-to-host copy (item(), to_vector(), "
                 "to(\"cpu\")) while a CUDA graph is captured, but got one of ",
                 nbytes, " bytes");
  const auto start = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(staging_mutex_);
    const char* from = static_cast<const char*>(src);
    char* to = static_cast<char*>(dst);
    // Queue chunk k + 1 before unpacking chunk k, so the GPU copies while the host does.
    std::size_t queued = 0;
    auto queue = [&](int k) {
      const std::size_t chunk = std::min(kStagingBytes, nbytes - queued);
      TORCHLET_CUDA_CHECK(
          cudaMemcpyAsync(staging_[k], from + queued, chunk, cudaMemcpyDeviceToHost, stream_), "to",
          index_);
      TORCHLET_CUDA_CHECK(cudaEventRecord(staging_free_[k], stream_), "to", index_);
      queued += chunk;
    };
    if (nbytes == 0) {
      TORCHLET_CUDA_CHECK(cudaStreamSynchronize(stream_), "to", index_);
    } else {
      queue(0);
    }
    for (std::size_t done = 0, k = 0; done < nbytes; k ^= 1) {
      if (queued < nbytes) queue(static_cast<int>(k ^ 1));
      TORCHLET_CUDA_CHECK(cudaEventSynchronize(staging_free_[k]), "to", index_);
      const std::size_t chunk = std::min(kStagingBytes, nbytes - done);
      std::memcpy(to + done, staging_[k], chunk);
      done += chunk;
    }
  }
  const double seconds = seconds_since(start);
  profile::record_sync(seconds);
  profile::record_copy(profile::CopyKind::DeviceToHost, nbytes, seconds);
  raise_device_errors();
}

void CudaBackend::synchronize() {
  TORCHLET_CHECK(!capturing(), "cuda::synchronize: Expected no CUDA graph capture on cuda:", index_,
                 ", but one is running (a synchronisation would invalidate it)");
  activate();
  const auto start = std::chrono::steady_clock::now();
  TORCHLET_CUDA_CHECK(cudaStreamSynchronize(stream_), "synchronize", index_);
  profile::record_sync(seconds_since(start));
  raise_device_errors();
}

void CudaBackend::empty_cache() {
  TORCHLET_CHECK(!capturing(), "cuda::empty_cache: Expected no CUDA graph capture on cuda:", index_,
                 ", but one is running (cudaFree would invalidate it)");
  allocator_.empty_cache();
}

void CudaBackend::raise_device_errors() {
  const int64_t bad_index = error_words_[0], bad_target = error_words_[1];
  if (bad_index == kernels::kNoError && bad_target == kernels::kNoError) return;
  error_words_[0] = error_words_[1] = kernels::kNoError;
  TORCHLET_CHECK(bad_index == kernels::kNoError,
                 "index_select, gather, scatter or index_add: Expected every index in range, but "
                 "a kernel queued earlier on cuda:",
                 index_, " found ", bad_index,
                 " (what it gathered there is zeros, what it scattered there was skipped)");
  TORCHLET_CHECK(false,
                 "cross_entropy: Expected every target to be a class index, but a kernel "
                 "queued earlier on cuda:",
                 index_, " found ", bad_target, " (the loss is NaN)");
}

}  // namespace torchlet::backend::cuda
