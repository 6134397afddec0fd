// torchlet::cuda's functions (include/torchlet/cuda.h) in every build: with the CUDA backend
// they reach the device's backend; in a CPU-only build they throw, saying so.
#include "torchlet/cuda.h"
#include "torchlet/error.h"
#ifdef TORCHLET_WITH_CUDA
#include "backends/cuda/cuda_backend.h"
#endif

namespace torchlet::cuda {

#ifdef TORCHLET_WITH_CUDA

void synchronize(int device) { backend::cuda::instance(device).synchronize(); }

MemoryStats memory_stats(int device) {
  const backend::AllocatorStats s = backend::cuda::instance(device).allocator_stats();
  return {s.bytes_in_use, s.bytes_reserved, s.peak_bytes_in_use, s.raw_allocations};
}

void empty_cache(int device) { backend::cuda::instance(device).empty_cache(); }

#else

namespace {
[[noreturn]] void no_cuda(const char* what) {
  TORCHLET_CHECK(false, what,
                 ": Expected a CUDA device, but torchlet was built without CUDA "
                 "support (torchlet::cuda::is_available() is false)");
  __builtin_unreachable();
}
}  // namespace

void synchronize(int) { no_cuda("cuda::synchronize"); }
MemoryStats memory_stats(int) { no_cuda("cuda::memory_stats"); }
void empty_cache(int) { no_cuda("cuda::empty_cache"); }

struct Graph::Impl {};
Graph::Graph() = default;
Graph::~Graph() = default;
Graph::Graph(Graph&&) noexcept = default;
Graph& Graph::operator=(Graph&&) noexcept = default;
void Graph::capture_begin(const Device&) { no_cuda("cuda::Graph::capture_begin"); }
void Graph::capture_end() { no_cuda("cuda::Graph::capture_end"); }
void Graph::replay() { no_cuda("cuda::Graph::replay"); }
bool Graph::captured() const noexcept { return false; }

#endif

Graph capture_step(const Device& device, const std::function<void()>& step) {
  TORCHLET_CHECK(device.is_cuda(), "cuda::capture_step: Expected a CUDA device, but got ", device);
  step();  // warm-up: makes gradients and optimizer state outside the graph's memory
  Graph graph;
  graph.capture_begin(device);
  try {
    step();
  } catch (...) {
    try {
      graph.capture_end();
    } catch (...) {  // the capture is invalid anyway; report the step's own error
    }
    throw;
  }
  graph.capture_end();
  return graph;
}

}  // namespace torchlet::cuda
