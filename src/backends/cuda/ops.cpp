// The CUDA backend's kernels, as the Backend interface asks for them: each method makes its
// device current, queues one kernel (kernels.h) on the device's stream and checks the launch.
#include <climits>

#include "backends/cuda/check.h"
#include "backends/cuda/cublas_api.h"
#include "backends/cuda/cuda_backend.h"
#include "torchlet/error.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cuda {

void CudaBackend::fill(void* out, DType dtype, int64_t n, double value) {
  if (n == 0) return;
  activate();
  kernels::fill(out, dtype, n, value, stream_);
  check_launch("fill_");
}

void CudaBackend::cast(const void* in, DType in_dtype, void* out, DType out_dtype, int64_t n) {
  if (n == 0) return;
  activate();
  kernels::cast(in, in_dtype, out, out_dtype, n, stream_);
  check_launch("to(dtype)");
}

void CudaBackend::strided_copy(const void* a, void* out, DType dtype, const Loop& loop) {
  if (loop.shape.numel() == 0) return;
  activate();
  kernels::strided_copy(a, out, dtype, loop, stream_);
  check_launch("copy_");
}

void CudaBackend::binary(BinaryOp op, DType dtype, const void* a, const void* b, void* out,
                         const Loop& loop) {
  if (loop.shape.numel() == 0) return;
  activate();
  kernels::binary(op, dtype, a, b, out, loop, stream_);
  check_launch("binary op");
}

void CudaBackend::binary_scalar(BinaryOp op, DType dtype, const void* a, double s,
                                bool scalar_first, void* out, int64_t n) {
  if (n == 0) return;
  activate();
  kernels::binary_scalar(op, dtype, a, s, scalar_first, out, n, stream_);
  check_launch("binary op with a scalar");
}

void CudaBackend::unary(UnaryOp op, DType dtype, const void* in, void* out, int64_t n) {
  if (n == 0) return;
  activate();
  kernels::unary(op, dtype, in, out, n, stream_);
  check_launch("unary op");
}

void CudaBackend::where(const bool* cond, DType dtype, const void* a, const void* b, void* out,
                        int64_t n) {
  if (n == 0) return;
  activate();
  kernels::where(cond, dtype, a, b, out, n, stream_);
  check_launch("where");
}

void CudaBackend::sum_dim_int64(const int64_t* in, int64_t* out, int64_t outer, int64_t r,
                                int64_t inner) {
  if (outer * inner == 0) return;
  activate();
  kernels::sum_dim_int64(in, out, outer, r, inner, stream_);
  check_launch("sum");
}

void CudaBackend::sum_dim_float64(const double* in, double* out, int64_t outer, int64_t r,
                                  int64_t inner, double scale) {
  if (outer * inner == 0) return;
  activate();
  kernels::sum_dim_float64(in, out, outer, r, inner, scale, stream_);
  check_launch("sum");
}

void CudaBackend::gather_rows(const void* in, int64_t rows, const int64_t* index, void* out,
                              int64_t n, std::size_t row_bytes) {
  if (n == 0 || row_bytes == 0) return;
  activate();
  kernels::gather_rows(in, rows, index, out, n, row_bytes, index_error(), stream_);
  check_launch("index_select");
}

void CudaBackend::gather_dim(DType dtype, const void* src, const int64_t* index, void* dst,
                             const IndexLoop& loop) {
  if (loop.shape.numel() == 0) return;
  activate();
  kernels::gather_dim(dtype, src, index, dst, loop, index_error(), stream_);
  check_launch("gather");
}

void CudaBackend::scatter_dim(bool accumulate, DType dtype, const void* src, const int64_t* index,
                              void* dst, const IndexLoop& loop) {
  if (loop.shape.numel() == 0) return;
  activate();
  kernels::scatter_dim(accumulate, dtype, src, index, dst, loop, index_error(), stream_);
  check_launch("scatter");
}

void CudaBackend::relu_forward(const float* x, float* y, int64_t n) {
  if (n == 0) return;
  activate();
  kernels::relu_forward(x, y, n, stream_);
  check_launch("relu");
}

void CudaBackend::relu_backward(const float* x, const float* dy, float* dx, int64_t n) {
  if (n == 0) return;
  activate();
  kernels::relu_backward(x, dy, dx, n, stream_);
  check_launch("relu backward");
}

void CudaBackend::sum_dim(const float* in, float* out, int64_t outer, int64_t r, int64_t inner,
                          float scale) {
  if (outer * inner == 0) return;
  activate();
  // Column sums of a tall matrix (a bias gradient: [rows, features] summed over rows) as
  // cuBLAS's GEMV with a vector of ones: all SMs busy, where one thread per column would leave
  // most idle. Not while a graph is captured, unless the ones already exist (their fill would
  // only run in replays).
  if (outer == 1 && inner >= 32 && r >= 256 && r <= INT_MAX && inner <= INT_MAX &&
      (r <= ones_count_ || !capturing())) {
    if (r > ones_count_) {
      // A graph captured earlier may read the old ones in every replay: then they stay.
      if (ones_ && ones_captured_)
        retired_ones_.emplace_back(ones_, ones_count_);
      else if (ones_)
        deallocate(ones_, static_cast<std::size_t>(ones_count_) * sizeof(float));
      ones_ = nullptr;
      ones_captured_ = false;
      ones_ = static_cast<float*>(allocate(static_cast<std::size_t>(r) * sizeof(float)));
      ones_count_ = r;
      kernels::fill(ones_, DType::Float32, r, 1.0, stream_);
      check_launch("sum");
    }
    ones_captured_ = ones_captured_ || capturing();
    const float beta = 0.0f;
    // in is [r, inner] row-major = [inner, r] column-major; out = scale * in^T-sum.
    TORCHLET_CUBLAS_CHECK(
        cublas().sgemv(cublas_, CUBLAS_OP_N, static_cast<int>(inner), static_cast<int>(r), &scale,
                       in, static_cast<int>(inner), ones_, 1, &beta, out, 1),
        "sum", index_);
    profile::record_launch();
    return;
  }
  kernels::sum_dim(in, out, outer, r, inner, scale, stream_);
  check_launch("sum");
}

void CudaBackend::reduce_dim(ReduceOp op, DType dtype, const void* in, void* out, int64_t outer,
                             int64_t r, int64_t inner) {
  if (outer * inner == 0) return;
  activate();
  kernels::reduce_dim(op, dtype, in, out, outer, r, inner, stream_);
  check_launch("reduction");
}

void CudaBackend::cumsum_dim(DType dtype, const void* in, void* out, int64_t outer, int64_t r,
                             int64_t inner) {
  if (outer * r * inner == 0) return;
  activate();
  kernels::cumsum_dim(dtype, in, out, outer, r, inner, stream_);
  check_launch("cumsum");
}

void CudaBackend::argmax_dim(const void* in, DType dtype, int64_t* out, int64_t outer, int64_t r,
                             int64_t inner) {
  if (outer * inner == 0) return;
  activate();
  kernels::argmax_dim(in, dtype, out, outer, r, inner, stream_);
  check_launch("argmax");
}

void CudaBackend::softmax_forward(const float* x, float* y, int64_t outer, int64_t r, int64_t inner,
                                  bool log) {
  if (outer * r * inner == 0) return;
  activate();
  kernels::softmax_forward(x, y, outer, r, inner, log, stream_);
  check_launch(log ? "log_softmax" : "softmax");
}

void CudaBackend::softmax_backward(const float* y, const float* dy, float* dx, int64_t outer,
                                   int64_t r, int64_t inner, bool log) {
  if (outer * r * inner == 0) return;
  activate();
  kernels::softmax_backward(y, dy, dx, outer, r, inner, log, stream_);
  check_launch(log ? "log_softmax backward" : "softmax backward");
}

void CudaBackend::cross_entropy_forward(const float* logits, const int64_t* target, float* loss,
                                        float* probs, int64_t n, int64_t c) {
  activate();
  kernels::cross_entropy_forward(logits, target, loss, probs, n, c, target_error(), stream_);
  check_launch("cross_entropy");
  profile::record_launch();  // its second kernel, the fixed-order mean of the blocks' sums
}

void CudaBackend::cross_entropy_backward(const float* probs, const int64_t* target,
                                         const float* dloss, float* dlogits, int64_t n, int64_t c) {
  if (n * c == 0) return;
  activate();
  kernels::cross_entropy_backward(probs, target, dloss, dlogits, n, c, stream_);
  check_launch("cross_entropy backward");
}

namespace {

// Calls launch(updates) once per kMaxUpdates parameters of one dtype (once for any model
// torchlet trains from the CLI).
template <typename Launch>
void for_update_chunks(const ParamUpdate* params, int count, Launch&& launch) {
  kernels::Updates chunk{};
  for (int k = 0; k < count; ++k) {
    const ParamUpdate& p = params[k];
    if (p.n == 0) continue;
    if (chunk.count && chunk.u[0].dtype != p.dtype) {
      launch(chunk);
      chunk.count = 0;
    }
    chunk.u[chunk.count++] = p;
    if (chunk.count == kernels::kMaxUpdates) {
      launch(chunk);
      chunk.count = 0;
    }
  }
  if (chunk.count) launch(chunk);
}

}  // namespace

void CudaBackend::sgd_step(const ParamUpdate* params, int count, const SgdOptions& o) {
  activate();
  for_update_chunks(params, count, [&](const kernels::Updates& chunk) {
    kernels::sgd_step(chunk, o, stream_);
    check_launch("SGD.step");
  });
}

void CudaBackend::adam_step(const ParamUpdate* params, int count, const AdamOptions& o) {
  activate();
  for_update_chunks(params, count, [&](const kernels::Updates& chunk) {
    kernels::adam_step(chunk, o, stream_);
    check_launch("Adam.step");
  });
}

void CudaBackend::rmsprop_step(const ParamUpdate* params, int count, const RmspropOptions& o) {
  activate();
  for_update_chunks(params, count, [&](const kernels::Updates& chunk) {
    kernels::rmsprop_step(chunk, o, stream_);
    check_launch("RMSprop.step");
  });
}

void CudaBackend::adagrad_step(const ParamUpdate* params, int count, const AdagradOptions& o) {
  activate();
  for_update_chunks(params, count, [&](const kernels::Updates& chunk) {
    kernels::adagrad_step(chunk, o, stream_);
    check_launch("Adagrad.step");
  });
}

}  // namespace torchlet::backend::cuda
