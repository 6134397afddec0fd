// The CUDA kernels' launchers: plain C++20 declarations that both nvcc (the .cu files that
// define them) and the host compiler (the backend's .cpp files, which call them) read, in the
// backend interface's own vocabulary (backend.h: DType, BinaryOp, Loop, Window2d, ParamUpdate,
// SgdOptions, AdamOptions, RmspropOptions, AdagradOptions). Every launcher queues its kernel on
// `stream` and returns at once; none checks its arguments (the ops layer did) and none throws: the
// caller checks cudaGetLastError() after it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "backends/backend.h"

namespace torchlet::backend::cuda::kernels {

inline constexpr int kThreads = 256;

// Errors a kernel can only find on the device (an index out of range): the first bad value is
// written to *flag (host-mapped memory, read by the host after its next synchronisation).
struct ErrorFlag {
  int64_t* flag;  // device view of the mapped word; kNoError when nothing went wrong
};
inline constexpr int64_t kNoError = INT64_MIN;

// --- elementwise (elementwise.cu) -------------------------------------------------------------
void fill(void* out, DType dtype, int64_t n, double value, cudaStream_t stream);
void cast(const void* in, DType in_dtype, void* out, DType out_dtype, int64_t n,
          cudaStream_t stream);
void strided_copy(const void* a, void* out, DType dtype, const Loop& loop, cudaStream_t stream);
// Predicates (is_predicate) write bool; arithmetic takes float32 or int64.
void binary(BinaryOp op, DType dtype, const void* a, const void* b, void* out, const Loop& loop,
            cudaStream_t stream);
void binary_scalar(BinaryOp op, DType dtype, const void* a, double s, bool scalar_first, void* out,
                   int64_t n, cudaStream_t stream);
void unary(UnaryOp op, DType dtype, const void* in, void* out, int64_t n, cudaStream_t stream);
void where(const bool* cond, DType dtype, const void* a, const void* b, void* out, int64_t n,
           cudaStream_t stream);
// Rows with an index outside [0, rows) are zero-filled and reported through `error`.
void gather_rows(const void* in, int64_t rows, const int64_t* index, void* out, int64_t n,
                 std::size_t row_bytes, ErrorFlag error, cudaStream_t stream);
// backend.h's gather_dim and scatter_dim (index.cu). The gather has one thread per element; the
// scatter one thread per line along loop.dim, which walks its line in order (no atomics: the
// CPU's order and sums). Bad indices are reported through `error`: the gather reads 0 for them,
// the scatter skips them.
void gather_dim(DType dtype, const void* src, const int64_t* index, void* dst,
                const IndexLoop& loop, ErrorFlag error, cudaStream_t stream);
void scatter_dim(bool accumulate, DType dtype, const void* src, const int64_t* index, void* dst,
                 const IndexLoop& loop, ErrorFlag error, cudaStream_t stream);
void relu_forward(const float* x, float* y, int64_t n, cudaStream_t stream);
void relu_backward(const float* x, const float* dy, float* dx, int64_t n, cudaStream_t stream);

// --- reductions over [outer, r, inner] (reduce.cu) ---------------------------------------------
void sum_dim(const float* in, float* out, int64_t outer, int64_t r, int64_t inner, float scale,
             cudaStream_t stream);
void sum_dim_int64(const int64_t* in, int64_t* out, int64_t outer, int64_t r, int64_t inner,
                   cudaStream_t stream);
// One thread per output adds its column in order along r, as the CPU (sum_in_order_kernel).
void sum_dim_float64(const double* in, double* out, int64_t outer, int64_t r, int64_t inner,
                     double scale, cudaStream_t stream);
void reduce_dim(ReduceOp op, DType dtype, const void* in, void* out, int64_t outer, int64_t r,
                int64_t inner, cudaStream_t stream);
void cumsum_dim(DType dtype, const void* in, void* out, int64_t outer, int64_t r, int64_t inner,
                cudaStream_t stream);
void argmax_dim(const void* in, DType dtype, int64_t* out, int64_t outer, int64_t r, int64_t inner,
                cudaStream_t stream);
void softmax_forward(const float* x, float* y, int64_t outer, int64_t r, int64_t inner, bool log,
                     cudaStream_t stream);
void softmax_backward(const float* y, const float* dy, float* dx, int64_t outer, int64_t r,
                      int64_t inner, bool log, cudaStream_t stream);

// --- fused softmax + cross-entropy (loss.cu) ----------------------------------------------------
// The forward is two launches (many blocks, then one that adds their sums in a fixed order), the
// backward one. Targets outside [0, c) make the loss NaN and are reported via `error`.
void cross_entropy_forward(const float* logits, const int64_t* target, float* loss, float* probs,
                           int64_t n, int64_t c, ErrorFlag error, cudaStream_t stream);
void cross_entropy_backward(const float* probs, const int64_t* target, const float* dloss,
                            float* dlogits, int64_t n, int64_t c, cudaStream_t stream);

// --- images (image.cu) ---------------------------------------------------------------------------
// col [batch*out_h*out_w, channels*kernel_h*kernel_w] = the windows of image (0 in the padding).
void im2col(const float* image, float* col, const Window2d& w, cudaStream_t stream);
// image (overwritten) = the sum of the col entries that read each pixel: one thread per pixel
// gathers them in the CPU's order, so no atomics and the same float sums.
void col2im(const float* col, float* image, const Window2d& w, cudaStream_t stream);
// One thread per output: the first largest valid input (NaN wins), argmax = iy*width + ix.
void max_pool2d_forward(const float* x, float* y, int64_t* argmax, const Window2d& w,
                        cudaStream_t stream);
// dx (overwritten): one thread per input pixel sums dy over the windows whose argmax it is.
void max_pool2d_backward(const float* dy, const int64_t* argmax, float* dx, const Window2d& w,
                         cudaStream_t stream);
// mask[i] = dropout_mask(seed, i, p) (backends/counter_rng.h); y[i] = x[i] * mask[i].
void dropout_forward(const float* x, float* y, float* mask, int64_t n, float p, uint64_t seed,
                     cudaStream_t stream);

// --- optimizers: every parameter of a step in one launch (optim.cu) ----------------------------
inline constexpr int kMaxUpdates = 48;  // per launch: the arguments stay under 4 KiB
struct Updates {
  int count;
  ParamUpdate u[kMaxUpdates];
};
void sgd_step(const Updates& updates, const SgdOptions& options, cudaStream_t stream);
void adam_step(const Updates& updates, const AdamOptions& options, cudaStream_t stream);
void rmsprop_step(const Updates& updates, const RmspropOptions& options, cudaStream_t stream);
void adagrad_step(const Updates& updates, const AdagradOptions& options, cudaStream_t stream);

// --- a small MLP's whole training step in one thread block (mlp.cu) ----------------------------
inline constexpr int kMlpMaxLayers = 8;
struct Mlp {
  int layers;
  int widths[kMlpMaxLayers + 1];
  float* weight[kMlpMaxLayers];
  float* bias[kMlpMaxLayers];
  float* weight_grad[kMlpMaxLayers];
  float* bias_grad[kMlpMaxLayers];
  const float* x;
  const int64_t* target;
  const int64_t* rows;  // or null: rows 0..n-1
  int n;
  float* loss;  // one float per step: losses[step] (or the single loss of mlp_step)
  int steps;    // training steps to run; 1 with update == false for mlp_step
  bool update;  // apply plain SGD after each step
  float lr, weight_decay;
  ErrorFlag error;  // targets or row indices out of range
  int64_t x_rows;   // rows of x, to check row indices
};
// Shared memory the fused kernel needs for these widths and n rows, in bytes.
std::size_t mlp_shared_bytes(const int* widths, int layers, int n);
// Runs mlp.steps steps in one launch of one block; shared_bytes from mlp_shared_bytes. Above
// 48 KiB the kernel must opt in (cudaFuncSetAttribute, once per device and size: raise_limit
// when shared_bytes is above what this device's kernel was last allowed); the caller checked
// the device's limit.
void mlp_step(const Mlp& mlp, std::size_t shared_bytes, bool raise_limit, cudaStream_t stream);

}  // namespace torchlet::backend::cuda::kernels
