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

  // --- elementwise --------------------------------------------------------------------------
  virtual void fill(void* out, DType dtype, int64_t n, double value) = 0;
  virtual void cast(const void* in, DType in_dtype, void* out, DType out_dtype, int64_t n) = 0;
  // Copies a (read with stride_a) into out (written with stride_b) over loop.shape: makes a
  // strided view contiguous, or writes into a strided view.
  virtual void strided_copy(const void* a, void* out, DType dtype, const Loop& loop) = 0;
  // out = a op b (backends/elementwise.h), a and b of `dtype`; out is `dtype`, or bool for the
  // predicates (is_predicate). Arithmetic takes float32, float64 or int64, predicates any dtype.
  // out may alias a or b when that operand is read with the output's own (contiguous) strides.
  virtual void binary(BinaryOp op, DType dtype, const void* a, const void* b, void* out,
                      const Loop& loop) = 0;
  // out[i] = a[i] op s (or s op a[i] when scalar_first), s converted to `dtype` first; the
  // dtypes as for binary. a and out are contiguous.
  virtual void binary_scalar(BinaryOp op, DType dtype, const void* a, double s, bool scalar_first,
                             void* out, int64_t n) = 0;
  // out[i] = f(in[i]) (backends/elementwise.h), contiguous, float32, float64 or
  // (unary_takes_int64) int64.
  virtual void unary(UnaryOp op, DType dtype, const void* in, void* out, int64_t n) = 0;
  // out[i] = cond[i] ? a[i] : b[i], all contiguous, a, b and out of `dtype`.
  virtual void where(const bool* cond, DType dtype, const void* a, const void* b, void* out,
                     int64_t n) = 0;
  // out[i, :] = in[index[i], :] for i < n, rows of row_bytes bytes; `in` has `rows` rows. An
  // index outside [0, rows) throws: at once on the CPU, at the next synchronisation on a GPU
  // (its kernel reports it through memory the host reads after waiting).
  virtual void gather_rows(const void* in, int64_t rows, const int64_t* index, void* out, int64_t n,
                           std::size_t row_bytes) = 0;
  // dst[p] = src[p with p[dim] = index[p]] for every p of loop.shape (gather, index_select).
  virtual void gather_dim(DType dtype, const void* src, const int64_t* index, void* dst,
                          const IndexLoop& loop) = 0;
  // dst[p with p[dim] = index[p]] = src[p], or += when accumulate (float32, float64, int64):
  // scatter, scatter_add, index_add, index_put_. Positions are taken in row-major order of p, so
  // the last of several writes to one element wins and sums add in that order, on every backend. An
  // index outside [0, dim_size) throws for both kernels: on the CPU before anything is
  // written; on a GPU at the next synchronisation (that element is skipped, or reads 0).
  virtual void scatter_dim(bool accumulate, DType dtype, const void* src, const int64_t* index,
                           void* dst, const IndexLoop& loop) = 0;
  virtual void relu_forward(const float* x, float* y, int64_t n) = 0;
  // dx = dy where x > 0, else 0.
  virtual void relu_backward(const float* x, const float* dy, float* dx, int64_t n) = 0;

  // --- reductions over the middle axis of [outer, r, inner] -------------------------------
  // out[o, i] = scale * sum_j in[o, j, i].
  virtual void sum_dim(const float* in, float* out, int64_t outer, int64_t r, int64_t inner,
                       float scale) = 0;
  // The same sum of int64 values (exact; bool tensors are summed as int64, as in PyTorch).
  virtual void sum_dim_int64(const int64_t* in, int64_t* out, int64_t outer, int64_t r,
                             int64_t inner) = 0;
  // The same sum of float64 values (float64 tensors), accumulated in order along j.
  virtual void sum_dim_float64(const double* in, double* out, int64_t outer, int64_t r,
                               int64_t inner, double scale) = 0;
  // out[o, i] = the max, min or product over j of in[o, j, i] (r >= 1 for Max and Min); float32,
  // float64 or int64 in and out.
  virtual void reduce_dim(ReduceOp op, DType dtype, const void* in, void* out, int64_t outer,
                          int64_t r, int64_t inner) = 0;
  // out[o, j, i] = sum_{k <= j} in[o, k, i]; float32 (accumulated in double), float64 or int64.
  virtual void cumsum_dim(DType dtype, const void* in, void* out, int64_t outer, int64_t r,
                          int64_t inner) = 0;
  // out[o, i] = the first j with the largest in[o, j, i]; in is float32, float64 or int64.
  virtual void argmax_dim(const void* in, DType dtype, int64_t* out, int64_t outer, int64_t r,
                          int64_t inner) = 0;
  // (log_)softmax over j, and its backward given the forward's output y.
  virtual void softmax_forward(const float* x, float* y, int64_t outer, int64_t r, int64_t inner,
                               bool log) = 0;
  virtual void softmax_backward(const float* y, const float* dy, float* dx, int64_t outer,
                                int64_t r, int64_t inner, bool log) = 0;

  // --- matrix products ----------------------------------------------------------------------
  // C[m, n] = alpha * op(A) op(B) + beta * C, all row-major; op(A) is [m, k] (A^T when
  // trans_a, so A is then [k, m]), op(B) is [k, n]. lda, ldb, ldc are row strides.
  virtual void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                    const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                    int64_t ldc) = 0;
  // The same product in double (float64 tensors).
  virtual void gemm_float64(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                            double alpha, const double* a, int64_t lda, const double* b,
                            int64_t ldb, double beta, double* c, int64_t ldc) = 0;

  // y[rows, out] = x[rows, in] w[out, in]^T + bias[out] (bias may be null): a Linear layer's
  // forward. This default is a GEMM and a broadcast add; a backend may fold the bias into its
  // GEMM (CUDA: cuBLASLt's epilogue).
  virtual void linear_forward(const float* x, const float* w, const float* bias, float* y,
                              int64_t rows, int64_t in, int64_t out);

  // --- images (NCHW, float32) -----------------------------------------------------------------
  // Unfolds the windows into columns: col is [channels * kernel_h * kernel_w, batch * out_h *
  // out_w], row (c, ky, kx), column (b, oy, ox) = image[b, c, oy*sh - ph + ky, ox*sw - pw + kx],
  // 0 in the padding. A convolution is then one GEMM, weight [out, c*kh*kw] times col.
  virtual void im2col(const float* image, float* col, const Window2d& w) = 0;
  // The adjoint of im2col: image is overwritten with the sum of the col entries that read each
  // pixel (a convolution's input gradient).
  virtual void col2im(const float* col, float* image, const Window2d& w) = 0;
  // y [batch, channels, out_h, out_w] = the largest input in each window (padding never wins);
  // argmax gets its position in the input plane (iy * width + ix), the first on ties.
  virtual void max_pool2d_forward(const float* x, float* y, int64_t* argmax, const Window2d& w) = 0;
  // dx (overwritten) = the sum of dy over the windows whose maximum each input was.
  virtual void max_pool2d_backward(const float* dy, const int64_t* argmax, float* dx,
                                   const Window2d& w) = 0;
  // Inverted dropout: mask[i] = 0 with probability p, else 1 / (1 - p); y = x * mask. The
  // draw for element i is dropout_uniform(seed, i) (backends/counter_rng.h), so every backend
  // drops the same elements for the same seed.
  virtual void dropout_forward(const float* x, float* y, float* mask, int64_t n, float p,
                               uint64_t seed) = 0;

  // --- fused loss ---------------------------------------------------------------------------
  // logits [n, c], target [n] (class indices). loss[0] = mean_i -log softmax(logits_i)[t_i];
  // probs [n, c] receives softmax(logits) for the backward. Targets outside [0, c) throw on
  // backends that can check them synchronously.
  virtual void cross_entropy_forward(const float* logits, const int64_t* target, float* loss,
                                     float* probs, int64_t n, int64_t c) = 0;
  // dlogits = (probs - onehot(target)) * dloss[0] / n. dloss is device memory (one float).
  virtual void cross_entropy_backward(const float* probs, const int64_t* target, const float* dloss,
                                      float* dlogits, int64_t n, int64_t c) = 0;

  // --- optimizer updates, PyTorch's formulas, in place ----------------------------------------
  // Each updates `count` parameters (all on this device) in one call.
  virtual void sgd_step(const ParamUpdate* params, int count, const SgdOptions& options) = 0;
  virtual void adam_step(const ParamUpdate* params, int count, const AdamOptions& options) = 0;
  virtual void rmsprop_step(const ParamUpdate* params, int count,
                            const RmspropOptions& options) = 0;
  virtual void adagrad_step(const ParamUpdate* params, int count,
                            const AdagradOptions& options) = 0;

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
