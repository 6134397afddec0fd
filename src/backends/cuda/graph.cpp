// cuda::Graph: capture the work queued on one GPU's stream, instantiate it, replay it with one
// launch. The capture's allocations come from a pool owned by the graph (see GraphPool).
#include "backends/cuda/check.h"
#include "backends/cuda/cuda_backend.h"
#include "torchlet/cuda.h"
#include "torchlet/error.h"
#include "torchlet/profile.h"

namespace torchlet::cuda {

struct Graph::Impl {
  backend::cuda::CudaBackend* backend = nullptr;
  std::shared_ptr<backend::cuda::GraphPool> pool;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;

  ~Impl() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    if (pool) backend->release_pool(*pool);
  }
};

Graph::Graph() : impl_(std::make_unique<Impl>()) {}
Graph::~Graph() = default;
Graph::Graph(Graph&&) noexcept = default;
Graph& Graph::operator=(Graph&&) noexcept = default;

void Graph::capture_begin(const Device& device) {
  TORCHLET_CHECK(device.is_cuda(), "cuda::Graph::capture_begin: Expected a CUDA device, but got ",
                 device);
  TORCHLET_CHECK(impl_ && !impl_->backend,
                 "cuda::Graph::capture_begin: Expected a graph that was not captured yet, but "
                 "this one was");
  auto& b = backend::cuda::instance(device.index() < 0 ? 0 : device.index());
  TORCHLET_CHECK(!b.capturing(), "cuda::Graph::capture_begin: Expected no other capture on ",
                 device, ", but one is running");
  b.synchronize();  // the capture must not depend on work queued before it
  impl_->pool = std::make_shared<backend::cuda::GraphPool>();
  impl_->backend = &b;
  b.begin_capture(impl_->pool);
}

void Graph::capture_end() {
  TORCHLET_CHECK(impl_ && impl_->backend && !impl_->graph,
                 "cuda::Graph::capture_end: Expected a capture_begin() first");
  backend::cuda::CudaBackend& b = *impl_->backend;
  impl_->graph = b.end_capture();
  TORCHLET_CUDA_CHECK(cudaGraphInstantiate(&impl_->exec, impl_->graph, 0),
                      "cuda::Graph::capture_end", b.index());
}

void Graph::replay() {
  TORCHLET_CHECK(captured(),
                 "cuda::Graph::replay: Expected a captured graph, but "
                 "capture_begin()/capture_end() were not called");
  backend::cuda::CudaBackend& b = *impl_->backend;
  b.activate();
  TORCHLET_CUDA_CHECK(cudaGraphLaunch(impl_->exec, b.stream()), "cuda::Graph::replay", b.index());
  profile::record_launch();
}

bool Graph::captured() const noexcept { return impl_ && impl_->exec; }

}  // namespace torchlet::cuda
