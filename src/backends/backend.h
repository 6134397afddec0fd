// The backend interface: what a device must provide for torchlet to run on it. One object
// per device (cpu, cuda:0, cuda:1 ...), found through backend::get(). The ops layer (src/ops)
// checks arguments, allocates outputs and records autograd; a backend only runs kernels on
// raw pointers into its own memory. Nothing here knows about Tensor or autograd.
//
// Layout conventions: every pointer is to contiguous, row-major data unless a Loop says
// otherwise; "[outer, r, inner]" means a tensor viewed as three dimensions, reduced over r.
// Kernels may run asynchronously (queued on the device's stream); only copy_to_host and
// synchronize wait.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/elementwise.h"
#include "torchlet/device.h"
#include "torchlet/dtype.h"
#include "torchlet/shape.h"

namespace torchlet::backend {

// The geometry of an elementwise loop: the output is contiguous with sizes `shape`; input a
// is read with strides `stride_a`, b with `stride_b` (0 along a broadcast dimension).
struct Loop {
  Shape shape;
  Shape stride_a;
  Shape stride_b;
};

// The geometry of gather_dim and scatter_dim: the loop runs over `shape` (the index's sizes);
// index is read with stride_index, src with stride_src and dst with stride_dst (0 along a
// broadcast dimension). Along `dim` the indexed side (src for a gather, dst for a scatter) is
// addressed by the index's value instead of the loop's position; values must be in
// [0, dim_size).
struct IndexLoop {
  Shape shape;
  Shape stride_index;
  Shape stride_src;
  Shape stride_dst;
  int dim;
  int64_t dim_size;
};

// The optimizer options are doubles, as PyTorch's hyperparameters: a kernel rounds them to
// the parameters' element type (so float32 steps use the float values they always did) and
// computes the per-step scalars (bias corrections, decay factors) in double.

// SGD without dampening: the momentum buffer starts at zero, so momentum * buf + d on the
// first step is PyTorch's buf = d. maximize: the gradient's negation is used.
struct SgdOptions {
  double lr, momentum, weight_decay;
  bool nesterov;
  bool maximize = false;
};

// Adam; decoupled: AdamW's weight decay (param *= 1 - lr * weight_decay before the update)
// instead of Adam's (weight_decay * param added to the gradient).
struct AdamOptions {
  double lr, beta1, beta2, eps, weight_decay;
  bool decoupled = false;
  bool maximize = false;
};

// RMSprop: state1 square_avg, state2 the momentum buffer (null without momentum), state3
// grad_avg (null unless centered); all start at zero.
struct RmspropOptions {
  double lr, alpha, eps, weight_decay, momentum;
  bool centered, maximize;
};

// Adagrad: state1 the sum of squared gradients (initial_accumulator_value before the first
// step); step as Adam's, for the decayed lr / (1 + (step - 1) * lr_decay).
struct AdagradOptions {
  double lr, lr_decay, weight_decay, eps;
  bool maximize;
};

// One parameter's share of an optimizer update: the update of all parameters is one call
// (one launch on CUDA per element type), not one per parameter. param, grad and the states
// hold `dtype` elements (float32 or float64).
struct ParamUpdate {
  void* param;
  const void* grad;
  void* state1;   // SGD: the momentum buffer (null without momentum); Adam: exp_avg
  void* state2;   // Adam: exp_avg_sq; SGD: unused
  int64_t* step;  // Adam: the steps so far (device memory, one int64): the kernel adds one,
                  // then uses it for the bias corrections (Adagrad: for its lr decay); SGD: unused
  int64_t n;
  void* state3 = nullptr;  // RMSprop: grad_avg; others: unused
  DType dtype = DType::Float32;
};

// One training step's forward, loss and backward of an MLP: Linear layers of widths[0] ->
// widths[1] -> ... -> widths[layers], ReLU between them, mean cross-entropy at the end. All
// pointers are device memory; weight[l] is [widths[l+1], widths[l]] row-major.
struct MlpStep {
  int layers;
  const int64_t* widths;      // layers + 1 entries (host memory)
  float* const* weight;       // per layer (host array of device pointers)
  float* const* bias;         // (updated in place only by mlp_sgd_steps)
  float* const* weight_grad;  // written (not accumulated)
  float* const* bias_grad;
  const float* x;         // [x_rows, widths[0]]
  const int64_t* target;  // [x_rows] class indices
  int64_t x_rows;
  const int64_t* rows;  // the batch's row indices (checked), or null: 0..n-1
  int64_t n;            // rows in the batch
  float* loss;          // one float
};

// The window of a 2-d convolution or pooling over a batch of NCHW images: the input is
// [batch, channels, height, width]; output pixel (oy, ox) covers input rows
// oy*stride_h - pad_h + [0, kernel_h) and columns ox*stride_w - pad_w + [0, kernel_w).
struct Window2d {
  int64_t batch, channels, height, width;
  int64_t kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w;
  int64_t out_h, out_w;
};

// Plain SGD (no momentum): p -= lr * (grad + weight_decay * p).
struct MlpSgd {
  float lr, weight_decay;
};

// An optional capability (Backend::fused_mlp()): a small MLP's whole training step in one
// call, used by nn::FusedMlp and by torchlet::compile when a recorded step is exactly that.
class FusedMlpKernels {
 public:
  virtual ~FusedMlpKernels() = default;
  // The whole MlpStep in one call: no intermediate tensors, no autograd graph.
  virtual void mlp_step(const MlpStep& step) = 0;
  // `steps` full MlpSteps on the same batch, each followed by an SGD update of the weights
  // and biases in place (a training step replayed without returning to the host): losses
  // (device memory, `steps` floats) get each step's loss; step.loss is not used.
  virtual void mlp_sgd_steps(const MlpStep& step, const MlpSgd& sgd, int64_t steps,
                             float* losses) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual Device device() const = 0;

  // --- memory -----------------------------------------------------------------------------
  // Returns at least nbytes of device memory (never null; nbytes may be 0). Throws
  // torchlet::Error when the device is out of memory, naming the bytes asked for.
  virtual void* allocate(std::size_t nbytes) = 0;
  virtual void deallocate(void* ptr, std::size_t nbytes) noexcept = 0;
  // Copies between this device and host memory. copy_to_host waits for the data;
  // copy_from_host may return before the copy is done.
  virtual void copy_from_host(void* dst, const void* src, std::size_t nbytes) = 0;
  virtual void copy_to_host(void* dst, const void* src, std::size_t nbytes) = 0;
  // Waits until every queued kernel and copy on this device has finished.
  virtual void synchronize() = 0;
  // True while this device's work is being recorded into a graph instead of run (CUDA graphs):
  // values the host passes to kernels then are frozen into every replay.
  virtual bool capturing() const { return false; }

  // --- kernels: the entries of backends/entries.def ---------------------------------------
#define TORCHLET_KERNEL(name, recording, params, args) virtual void name params = 0;
#include "backends/entries.def"
#undef TORCHLET_KERNEL

  // y[rows, out] = x[rows, in] w[out, in]^T + bias[out] (bias may be null): a Linear layer's
  // forward. This default is a GEMM and a broadcast add; a backend may fold the bias into its
  // GEMM (CUDA: cuBLASLt's epilogue).
  virtual void linear_forward(const float* x, const float* w, const float* bias, float* y,
                              int64_t rows, int64_t in, int64_t out);

  // --- optional capabilities (null when the backend has none) -------------------------------
  virtual FusedMlpKernels* fused_mlp() { return nullptr; }
};

// The backend of `device`. Throws torchlet::Error when that device does not exist or torchlet
// was built without support for its type.
Backend& get(const Device& device);

// --- recording (torchlet::compile) ----------------------------------------------------------
namespace detail {
struct Routing {
  Backend* target = nullptr;    // the backend whose calls are being recorded on this thread
  Backend* recorder = nullptr;  // the Recorder that records them (backends/recorder.h)
};
inline thread_local Routing routing;
}  // namespace detail

// The backend a kernel for `b` must be called on: b, or the recorder while this thread records
// b's kernels. Every kernel call goes through here (backend_of in core/tensor_impl.h).
inline Backend& routed(Backend& b) noexcept {
  const detail::Routing& r = detail::routing;
  return r.target == &b ? *r.recorder : b;
}

// How many devices of this type the registry can serve (1 for the CPU).
int device_count(DeviceType type);

}  // namespace torchlet::backend
