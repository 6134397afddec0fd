// CUDA devices: questions every build can answer (false / 0 without CUDA), the caching
// allocator's counters, and CUDA graphs, torch.cuda's names where it has them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "torchlet/device.h"

namespace torchlet::cuda {

// True when torchlet was built with CUDA and at least one usable GPU is present.
bool is_available();
// The number of CUDA devices torchlet can use (0 in a CPU-only build or without a GPU).
int device_count();
// Waits until every op queued on the GPU has finished (torch.cuda.synchronize).
void synchronize(int device = 0);

// The caching allocator of one GPU (torch.cuda.memory_allocated, memory_reserved,
// max_memory_allocated). Tensors' memory goes back to this cache, not to the driver, so a
// training loop stops calling cudaMalloc after its first step.
struct MemoryStats {
  std::size_t allocated = 0;        // bytes held by live tensors
  std::size_t reserved = 0;         // allocated plus cached
  std::size_t peak_allocated = 0;   // the most `allocated` has been
  uint64_t driver_allocations = 0;  // cudaMalloc calls so far
};
MemoryStats memory_stats(int device = 0);
// Gives the cached (unused) blocks back to the driver (torch.cuda.empty_cache).
void empty_cache(int device = 0);

// A CUDA graph: the kernels one piece of code queues, recorded once and replayed with one
// launch (torch.cuda.CUDAGraph). What is captured must only queue GPU work: no item(),
// to_vector() or copies from the host (they throw). Memory the capture allocates belongs to
// the graph, so the tensors it made (the loss, new gradients) hold each replay's results.
//
//   step();                               // warm up eagerly: gradients and state exist
//   cuda::Graph graph;
//   graph.capture_begin(Device("cuda:0"));
//   step();                               // forward, loss, backward, optimizer step
//   graph.capture_end();
//   for (...) graph.replay();             // the same step, one launch each
class Graph {
 public:
  Graph();
  ~Graph();
  Graph(Graph&&) noexcept;
  Graph& operator=(Graph&&) noexcept;

  void capture_begin(const Device& device);
  void capture_end();
  // Queues the captured work again (asynchronously, like any op).
  void replay();
  bool captured() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Runs step() once eagerly on `device` (so gradients and optimizer state exist), then
// captures one more call of it and returns the graph. Each replay() is one more step.
Graph capture_step(const Device& device, const std::function<void()>& step);

}  // namespace torchlet::cuda
