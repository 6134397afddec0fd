// The conformance tables of the elementwise, shape and indexing ops (every CONFORMANCE_TEST of
// test_ops_conformance.cpp, test_ops_shapes.cpp and test_ops_indexing.cpp, compiled into this
// binary as bodies only) run on the emulated CUDA kernels: CPU tensors' kernel calls are routed,
// through a counting backend, to a bridge that runs every kernel on the CUDA backend and leaves
// memory to the CPU's (the stub runtime's device memory is host memory, so the kernels read and
// write the tensors in place). The tables' own checks are the test; the counter then names the
// backend entries those tables reached on the emulated device, which must be every entry but
// the layer, loss and optimizer kernels that only the CPU's other tables reach.
#include <set>
#include <string>

#include "backend_counter.h"
#include "conformance.h"
#include "cuda_emu/stub_testing.h"

namespace torchlet::emu::testing {
namespace {

using namespace torchlet::backend;

// Memory on the CPU backend, every kernel on the (emulated) CUDA backend; a copy to the host
// waits for the kernels first, so an index error they report surfaces there.
class GpuKernelsOnHostMemory final : public Backend {
 public:
  GpuKernelsOnHostMemory(Backend& host, Backend& gpu) : host_(host), gpu_(gpu) {}

  Device device() const override { return host_.device(); }
  void* allocate(std::size_t nbytes) override { return host_.allocate(nbytes); }
  void deallocate(void* ptr, std::size_t nbytes) noexcept override {
    host_.deallocate(ptr, nbytes);
  }
  void copy_from_host(void* dst, const void* src, std::size_t nbytes) override {
    host_.copy_from_host(dst, src, nbytes);
  }
  void copy_to_host(void* dst, const void* src, std::size_t nbytes) override {
    gpu_.synchronize();  // the kernels' results (and their errors) first
    host_.copy_to_host(dst, src, nbytes);
  }
  void synchronize() override { gpu_.synchronize(); }
  void fill(void* out, DType dtype, int64_t n, double value) override {
    gpu_.fill(out, dtype, n, value);
  }
  void cast(const void* in, DType in_dtype, void* out, DType out_dtype, int64_t n) override {
    gpu_.cast(in, in_dtype, out, out_dtype, n);
  }
  void strided_copy(const void* a, void* out, DType dtype, const Loop& loop) override {
    gpu_.strided_copy(a, out, dtype, loop);
  }
  void binary(BinaryOp op, DType dtype, const void* a, const void* b, void* out,
              const Loop& loop) override {
    gpu_.binary(op, dtype, a, b, out, loop);
  }
  void binary_scalar(BinaryOp op, DType dtype, const void* a, double s, bool scalar_first,
                     void* out, int64_t n) override {
    gpu_.binary_scalar(op, dtype, a, s, scalar_first, out, n);
  }
  void unary(UnaryOp op, DType dtype, const void* in, void* out, int64_t n) override {
    gpu_.unary(op, dtype, in, out, n);
  }
  void where(const bool* cond, DType dtype, const void* a, const void* b, void* out,
             int64_t n) override {
    gpu_.where(cond, dtype, a, b, out, n);
  }
  void gather_rows(const void* in, int64_t rows, const int64_t* index, void* out, int64_t n,
                   std::size_t row_bytes) override {
    gpu_.gather_rows(in, rows, index, out, n, row_bytes);
  }
  void gather_dim(DType dtype, const void* src, const int64_t* index, void* dst,
                  const IndexLoop& loop) override {
    gpu_.gather_dim(dtype, src, index, dst, loop);
  }
  void scatter_dim(bool accumulate, DType dtype, const void* src, const int64_t* index, void* dst,
                   const IndexLoop& loop) override {
    gpu_.scatter_dim(accumulate, dtype, src, index, dst, loop);
  }
  void relu_forward(const float* x, float* y, int64_t n) override { gpu_.relu_forward(x, y, n); }
  void relu_backward(const float* x, const float* dy, float* dx, int64_t n) override {
    gpu_.relu_backward(x, dy, dx, n);
  }
  void sum_dim(const float* in, float* out, int64_t outer, int64_t r, int64_t inner,
               float scale) override {
    gpu_.sum_dim(in, out, outer, r, inner, scale);
  }
  void sum_dim_int64(const int64_t* in, int64_t* out, int64_t outer, int64_t r,
                     int64_t inner) override {
    gpu_.sum_dim_int64(in, out, outer, r, inner);
  }
  void sum_dim_float64(const double* in, double* out, int64_t outer, int64_t r, int64_t inner,
                       double scale) override {
    gpu_.sum_dim_float64(in, out, outer, r, inner, scale);
  }
  void reduce_dim(ReduceOp op, DType dtype, const void* in, void* out, int64_t outer, int64_t r,
                  int64_t inner) override {
    gpu_.reduce_dim(op, dtype, in, out, outer, r, inner);
  }
  void cumsum_dim(DType dtype, const void* in, void* out, int64_t outer, int64_t r,
                  int64_t inner) override {
    gpu_.cumsum_dim(dtype, in, out, outer, r, inner);
  }
  void argmax_dim(const void* in, DType dtype, int64_t* out, int64_t outer, int64_t r,
                  int64_t inner) override {
    gpu_.argmax_dim(in, dtype, out, outer, r, inner);
  }
  void softmax_forward(const float* x, float* y, int64_t outer, int64_t r, int64_t inner,
                       bool log) override {
    gpu_.softmax_forward(x, y, outer, r, inner, log);
  }
  void softmax_backward(const float* y, const float* dy, float* dx, int64_t outer, int64_t r,
                        int64_t inner, bool log) override {
    gpu_.softmax_backward(y, dy, dx, outer, r, inner, log);
  }
  void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
            const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
            int64_t ldc) override {
    gpu_.gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void gemm_float64(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
                    double* c, int64_t ldc) override {
    gpu_.gemm_float64(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void linear_forward(const float* x, const float* w, const float* bias, float* y, int64_t rows,
                      int64_t in, int64_t out) override {
    gpu_.linear_forward(x, w, bias, y, rows, in, out);
  }
  void im2col(const float* image, float* col, const Window2d& w) override {
    gpu_.im2col(image, col, w);
  }
  void col2im(const float* col, float* image, const Window2d& w) override {
    gpu_.col2im(col, image, w);
  }
  void max_pool2d_forward(const float* x, float* y, int64_t* argmax, const Window2d& w) override {
    gpu_.max_pool2d_forward(x, y, argmax, w);
  }
  void max_pool2d_backward(const float* dy, const int64_t* argmax, float* dx,
                           const Window2d& w) override {
    gpu_.max_pool2d_backward(dy, argmax, dx, w);
  }
  void dropout_forward(const float* x, float* y, float* mask, int64_t n, float p,
                       uint64_t seed) override {
    gpu_.dropout_forward(x, y, mask, n, p, seed);
  }
  void cross_entropy_forward(const float* logits, const int64_t* target, float* loss, float* probs,
                             int64_t n, int64_t c) override {
    gpu_.cross_entropy_forward(logits, target, loss, probs, n, c);
  }
  void cross_entropy_backward(const float* probs, const int64_t* target, const float* dloss,
                              float* dlogits, int64_t n, int64_t c) override {
    gpu_.cross_entropy_backward(probs, target, dloss, dlogits, n, c);
  }
  void sgd_step(const ParamUpdate* params, int count, const SgdOptions& options) override {
    gpu_.sgd_step(params, count, options);
  }
  void adam_step(const ParamUpdate* params, int count, const AdamOptions& options) override {
    gpu_.adam_step(params, count, options);
  }
  void rmsprop_step(const ParamUpdate* params, int count, const RmspropOptions& options) override {
    gpu_.rmsprop_step(params, count, options);
  }
  void adagrad_step(const ParamUpdate* params, int count, const AdagradOptions& options) override {
    gpu_.adagrad_step(params, count, options);
  }
  bool capturing() const override { return gpu_.capturing(); }
  backend::FusedMlpKernels* fused_mlp() override { return gpu_.fused_mlp(); }

 private:
  Backend& host_;
  Backend& gpu_;
};

// Entries that only the layer, loss, optimizer and fused-MLP tables (test_losses.cpp,
// test_image_golden.cpp ..., not compiled here) reach, and the two never routed
// (test_backend_coverage.cpp's kNotRouted).
const std::set<std::string> kOnlyOtherTables = {"device",
                                                "synchronize",
                                                "capturing",
                                                "fused_mlp",
                                                "mlp_step",
                                                "mlp_sgd_steps",
                                                "softmax_forward",
                                                "softmax_backward",
                                                "linear_forward",
                                                "im2col",
                                                "col2im",
                                                "max_pool2d_forward",
                                                "max_pool2d_backward",
                                                "dropout_forward",
                                                "cross_entropy_forward",
                                                "cross_entropy_backward",
                                                "sgd_step",
                                                "adam_step",
                                                "rmsprop_step",
                                                "adagrad_step"};

// The table that expects an out-of-range index to throw at the call: a GPU kernel reports it at
// the next synchronisation instead (backend.h's gather_rows, gather_dim, scatter_dim), which
// test_cuda_emu_index.cpp checks.
const std::set<std::string> kHostErrorTests = {"OpsIndexing.ErrorsSayWhatWasExpected"};

TEST(CudaEmuConformance, TheOpTablesPassOnTheEmulatedKernels) {
  GpuKernelsOnHostMemory bridge(cpu(), gpu());
  torchlet::testing::CountingBackend counter(bridge);
  {
    torchlet::testing::CountingScope scope(counter, cpu());
    for (const auto& [name, body] : torchlet::testing::conformance_tests()) {
      if (kHostErrorTests.count(name)) continue;
      SCOPED_TRACE(name);
      body();
    }
  }
  EXPECT_GT(torchlet::testing::conformance_tests().size(), 20u);
  std::string missed, extra;
  for (std::size_t k = 0; k < torchlet::testing::CountingBackend::kEntries.size(); ++k) {
    const std::string name(torchlet::testing::CountingBackend::kEntries[k]);
    if (kOnlyOtherTables.count(name) == 0 && counter.calls(k) == 0) missed.append(" ").append(name);
    if (kOnlyOtherTables.count(name) && counter.calls(k) > 0) extra.append(" ").append(name);
  }
  EXPECT_EQ(missed, "") << "entries the op tables no longer reach on the emulated device";
  EXPECT_EQ(extra, "") << "reached now: take them off kOnlyOtherTables";
}

}  // namespace
}  // namespace torchlet::emu::testing
