// MlpStep on CUDA for models or batches too large for one block's shared memory: the step is
// composed of library calls on the device's stream. Each layer's forward is ONE cuBLASLt
// matmul with the bias add and the ReLU folded into its epilogue; the loss is the fused
// softmax-cross-entropy kernel; the backward is two cuBLAS GEMMs, a bias-gradient reduction
// and a ReLU mask per layer; SGD updates every parameter in one launch.
#include <cublasLt.h>

#include <algorithm>
#include <vector>

#include "backends/cuda/check.h"
#include "backends/cuda/cublas_api.h"
#include "backends/cuda/cuda_backend.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cuda {

namespace {

// Device memory for the step's intermediates, returned to the cache at the end of the step
// (kernels using it were queued on the same stream, so the next user runs after them).
class Scratch {
 public:
  explicit Scratch(CudaBackend& backend) : backend_(backend) {}
  ~Scratch() {
    for (auto [ptr, bytes] : blocks_) backend_.deallocate(ptr, bytes);
  }
  template <typename T>
  T* get(int64_t count) {
    const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(T);
    void* ptr = backend_.allocate(bytes);
    blocks_.emplace_back(ptr, bytes);
    return static_cast<T*>(ptr);
  }

 private:
  CudaBackend& backend_;
  std::vector<std::pair<void*, std::size_t>> blocks_;
};

// RAII for cuBLASLt's descriptors.
struct LtMatmul {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t w = nullptr, x = nullptr, y = nullptr;
  ~LtMatmul() {
    if (y) cublas().lt_layout_destroy(y);
    if (x) cublas().lt_layout_destroy(x);
    if (w) cublas().lt_layout_destroy(w);
    if (op) cublas().lt_desc_destroy(op);
  }
};

// Shapes cuBLASLt's bias epilogue is trusted with: PyTorch stopped using it for one-row or
// one-column operands and for dimensions of 65,535 and more after INVALID_VALUE and
// NOT_SUPPORTED failures (aten/src/ATen/native/cuda/Blas.cpp).
bool lt_epilogue_fits(int64_t rows, int64_t in, int64_t out) {
  return rows > 1 && in > 1 && out > 1 && rows < 65535 && in < 65535 && out < 65535;
}

}  // namespace

void CudaBackend::linear_forward(const float* x, const float* w, const float* bias, float* y,
                                 int64_t rows, int64_t in, int64_t out) {
  if (!bias || rows == 0 || out == 0 || in == 0)
    return Backend::linear_forward(x, w, bias, y, rows, in, out);
  linear_fused(x, w, bias, y, rows, in, out, false);
}

void CudaBackend::linear_fused(const float* x, const float* w, const float* bias, float* y,
                               int64_t n, int64_t in, int64_t out, bool relu) {
  if (lt_epilogue_fits(n, in, out) && linear_lt(x, w, bias, y, n, in, out, relu)) return;
  Backend::linear_forward(x, w, bias, y, n, in, out);  // a GEMM and a broadcast add
  if (relu) relu_forward(y, y, n * out);
}

// y[n, out] = x[n, in] w[out, in]^T + bias, then ReLU when `relu`: in column-major terms
// y^T = w (the row-major w read column-major, transposed back) times x^T, and the bias runs
// down y^T's columns, which is what cuBLASLt's BIAS epilogue adds.
bool CudaBackend::linear_lt(const float* x, const float* w, const float* bias, float* y, int64_t n,
                            int64_t in, int64_t out, bool relu) {
  const char* op_name = "Linear (cuBLASLt)";
  const int device = index_;
  activate();
  // A cublasHandle_t is a valid cublasLtHandle_t (cuBLAS documents the cast).
  cublasLtHandle_t lt = reinterpret_cast<cublasLtHandle_t>(cublas_);
  LtMatmul d;
  TORCHLET_CUBLAS_CHECK(cublas().lt_desc_create(&d.op, CUBLAS_COMPUTE_32F, CUDA_R_32F), op_name,
                        device);
  const cublasOperation_t trans = CUBLAS_OP_T, no_trans = CUBLAS_OP_N;
  const cublasLtEpilogue_t epilogue = relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
  TORCHLET_CUBLAS_CHECK(
      cublas().lt_desc_set(d.op, CUBLASLT_MATMUL_DESC_TRANSA, &trans, sizeof(trans)), op_name,
      device);
  TORCHLET_CUBLAS_CHECK(
      cublas().lt_desc_set(d.op, CUBLASLT_MATMUL_DESC_TRANSB, &no_trans, sizeof(no_trans)), op_name,
      device);
  TORCHLET_CUBLAS_CHECK(
      cublas().lt_desc_set(d.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)),
      op_name, device);
  TORCHLET_CUBLAS_CHECK(
      cublas().lt_desc_set(d.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)), op_name,
      device);
  TORCHLET_CUBLAS_CHECK(cublas().lt_layout_create(&d.w, CUDA_R_32F, in, out, in), op_name, device);
  TORCHLET_CUBLAS_CHECK(cublas().lt_layout_create(&d.x, CUDA_R_32F, in, n, in), op_name, device);
  TORCHLET_CUBLAS_CHECK(cublas().lt_layout_create(&d.y, CUDA_R_32F, out, n, out), op_name, device);
  const float alpha = 1.0f, beta = 0.0f;
  const cublasStatus_t status =
      cublas().lt_matmul(lt, d.op, &alpha, w, d.w, x, d.x, &beta, y, d.y, y, d.y, nullptr,
                         cublas_workspace_, kWorkspaceBytes, stream_);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_INVALID_VALUE) return false;
  TORCHLET_CUBLAS_CHECK(status, op_name, device);
  profile::record_launch();
  return true;
}

void CudaBackend::mlp_composed(const MlpStep& s, const MlpSgd* sgd, int64_t steps, float* losses) {
  const int L = s.layers;
  const int64_t* w = s.widths;
  const int64_t n = s.n, c = w[L];
  Scratch scratch(*this);
  // The batch: x rows and targets gathered (checked on the device) unless it is all of x.
  const float* x = s.x;
  const int64_t* target = s.target;
  if (s.rows) {
    float* xb = scratch.get<float>(n * w[0]);
    int64_t* tb = scratch.get<int64_t>(n);
    gather_rows(s.x, s.x_rows, s.rows, xb, n, static_cast<std::size_t>(w[0]) * sizeof(float));
    gather_rows(s.target, s.x_rows, s.rows, tb, n, sizeof(int64_t));
    x = xb;
    target = tb;
  }
  std::vector<float*> act(static_cast<std::size_t>(L) + 1);
  act[0] = const_cast<float*>(x);  // read only
  for (int l = 1; l <= L; ++l) act[l] = scratch.get<float>(n * w[l]);
  float* probs = scratch.get<float>(n * c);
  const int64_t widest = *std::max_element(w + 1, w + L + 1);
  float* grad[2] = {scratch.get<float>(n * widest), scratch.get<float>(n * widest)};
  float* one = scratch.get<float>(1);
  fill(one, DType::Float32, 1, 1.0);
  std::vector<ParamUpdate> updates;
  for (int l = 0; sgd && l < L; ++l) {
    updates.push_back({s.weight[l], s.weight_grad[l], nullptr, nullptr, nullptr, w[l] * w[l + 1]});
    updates.push_back({s.bias[l], s.bias_grad[l], nullptr, nullptr, nullptr, w[l + 1]});
  }
  for (int64_t step = 0; step < steps; ++step) {
    for (int l = 0; l < L; ++l)
      linear_fused(act[l], s.weight[l], s.bias[l], act[l + 1], n, w[l], w[l + 1], l + 1 < L);
    cross_entropy_forward(act[L], target, losses + step, probs, n, c);
    float* dz = grad[0];
    cross_entropy_backward(probs, target, one, dz, n, c);
    for (int l = L - 1; l >= 0; --l) {
      const int64_t in = w[l], out = w[l + 1];
      gemm(true, false, out, in, n, 1.0f, dz, out, act[l], in, 0.0f, s.weight_grad[l], in);
      sum_dim(dz, s.bias_grad[l], 1, n, out, 1.0f);
      if (l == 0) break;
      float* da = grad[(L - l) % 2];
      gemm(false, false, n, in, out, 1.0f, dz, out, s.weight[l], in, 0.0f, da, in);
      relu_backward(act[l], da, da, n * in);
      dz = da;
    }
    if (sgd)
      sgd_step(updates.data(), static_cast<int>(updates.size()),
               {sgd->lr, 0.0f, sgd->weight_decay, false});
  }
}

}  // namespace torchlet::backend::cuda
