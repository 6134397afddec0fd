// The CUDA backend's kernels, as the Backend interface asks for them: each method makes its
// device current, queues one kernel (kernels.h) on the device's stream and checks the launch.
#include <climits>

#include "backends/cuda/check.h"
#include "backends/cuda/cublas_api.h"
#include "backends/cuda/cuda_backend.h"
#include "torchlet/error.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cuda {

namespace {

kernels::Type type_of(DType dtype) {
  switch (dtype) {
    case DType::Float32: return kernels::Type::Float32;
    case DType::Int64: return kernels::Type::Int64;
    case DType::Bool: return kernels::Type::Bool;
  }
  return kernels::Type::Float32;
}

kernels::Binary binary_of(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return kernels::Binary::Add;
    case BinaryOp::Sub: return kernels::Binary::Sub;
    case BinaryOp::Mul: return kernels::Binary::Mul;
    case BinaryOp::Div: return kernels::Binary::Div;
    case BinaryOp::Eq: return kernels::Binary::Eq;
  }
  return kernels::Binary::Add;
}

kernels::Geometry geometry_of(const Loop& loop) {
  kernels::Geometry g{};
  g.ndim = loop.shape.size();
  g.numel = loop.shape.numel();
  for (int d = 0; d < g.ndim; ++d) {
    g.size[d] = loop.shape[d];
    g.stride_a[d] = loop.stride_a[d];
    g.stride_b[d] = loop.stride_b[d];
  }
  return g;
}

}  // namespace

void CudaBackend::fill(void* out, DType dtype, int64_t n, double value) {
  if (n == 0) return;
  activate();
  kernels::fill(out, type_of(dtype), n, value, stream_);
  check_launch("fill_");
}

void CudaBackend::cast(const void* in, DType in_dtype, void* out, DType out_dtype, int64_t n) {
  if (n == 0) return;
  activate();
  kernels::cast(in, type_of(in_dtype), out, type_of(out_dtype), n, stream_);
  check_launch("to(dtype)");
}

void CudaBackend::strided_copy(const void* a, void* out, DType dtype, const Loop& loop) {
  if (loop.shape.numel() == 0) return;
  activate();
  kernels::strided_copy(a, out, type_of(dtype), geometry_of(loop), stream_);
  check_launch("copy_");
}

void CudaBackend::binary(BinaryOp op, DType dtype, const void* a, const void* b, void* out,
                         const Loop& loop) {
  if (loop.shape.numel() == 0) return;
  activate();
  kernels::binary(binary_of(op), type_of(dtype), a, b, out, geometry_of(loop), stream_);
  check_launch("binary op");
}

void CudaBackend::binary_scalar(BinaryOp op, const float* a, float s, bool scalar_first, float* out,
                                int64_t n) {
  TORCHLET_ASSERT(op != BinaryOp::Eq, "binary_scalar has no float result for ==");
  if (n == 0) return;
  activate();
  kernels::binary_scalar(binary_of(op), a, s, scalar_first, out, n, stream_);
  check_launch("binary op with a scalar");
}

void CudaBackend::gather_rows(const void* in, int64_t rows, const int64_t* index, void* out,
                              int64_t n, std::size_t row_bytes) {
  if (n == 0 || row_bytes == 0) return;
  activate();
  kernels::gather_rows(in, rows, index, out, n, row_bytes, index_error(), stream_);
  check_launch("index_select");
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
      if (ones_) deallocate(ones_, static_cast<std::size_t>(ones_count_) * sizeof(float));
      ones_ = nullptr;
      ones_ = static_cast<float*>(allocate(static_cast<std::size_t>(r) * sizeof(float)));
      ones_count_ = r;
      kernels::fill(ones_, kernels::Type::Float32, r, 1.0, stream_);
      check_launch("sum");
    }
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

void CudaBackend::argmax_dim(const void* in, DType dtype, int64_t* out, int64_t outer, int64_t r,
                             int64_t inner) {
  if (outer * inner == 0) return;
  activate();
  kernels::argmax_dim(in, type_of(dtype), out, outer, r, inner, stream_);
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
}

void CudaBackend::cross_entropy_backward(const float* probs, const int64_t* target,
                                         const float* dloss, float* dlogits, int64_t n, int64_t c) {
  if (n * c == 0) return;
  activate();
  kernels::cross_entropy_backward(probs, target, dloss, dlogits, n, c, stream_);
  check_launch("cross_entropy backward");
}

namespace {

// Calls launch(updates) once per kMaxUpdates parameters (once for any model torchlet trains
// from the CLI).
template <typename Launch>
void for_update_chunks(const ParamUpdate* params, int count, Launch&& launch) {
  kernels::Updates chunk{};
  for (int k = 0; k < count; ++k) {
    const ParamUpdate& p = params[k];
    if (p.n == 0) continue;
    chunk.u[chunk.count++] = {p.param, p.grad, p.state1, p.state2, p.step, p.n};
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
  const kernels::Sgd options{o.lr, o.momentum, o.weight_decay, o.nesterov};
  for_update_chunks(params, count, [&](const kernels::Updates& chunk) {
    kernels::sgd_step(chunk, options, stream_);
    check_launch("SGD.step");
  });
}

void CudaBackend::adam_step(const ParamUpdate* params, int count, const AdamOptions& o) {
  activate();
  const kernels::Adam options{o.lr, o.beta1, o.beta2, o.eps, o.weight_decay};
  for_update_chunks(params, count, [&](const kernels::Updates& chunk) {
    kernels::adam_step(chunk, options, stream_);
    check_launch("Adam.step");
  });
}

}  // namespace torchlet::backend::cuda
