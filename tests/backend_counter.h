// A Backend that counts the calls of each of its entries and passes every call on to the
// backend it wraps: installed on a thread (CountingScope), every kernel of that backend's tensors
// goes through it (backend::routed, as torchlet::compile's recorder), so a test can name the
// entries a table of ops never reached (test_backend_coverage.cpp). kEntries lists every virtual
// function of backends/backend.h's Backend and FusedMlpKernels; a test checks that list against
// the header, so an entry added there without one here fails.
#pragma once

#include <array>
#include <atomic>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "backends/backend.h"
#include "torchlet/error.h"

namespace torchlet::testing {

class CountingBackend final : public backend::Backend, public backend::FusedMlpKernels {
 public:
  static constexpr std::array<std::string_view, 44> kEntries = {"device",
                                                                "allocate",
                                                                "deallocate",
                                                                "copy_from_host",
                                                                "copy_to_host",
                                                                "synchronize",
                                                                "capturing",
                                                                "fill",
                                                                "cast",
                                                                "strided_copy",
                                                                "binary",
                                                                "binary_scalar",
                                                                "unary",
                                                                "where",
                                                                "gather_rows",
                                                                "gather_dim",
                                                                "scatter_dim",
                                                                "relu_forward",
                                                                "relu_backward",
                                                                "sum_dim",
                                                                "sum_dim_int64",
                                                                "sum_dim_float64",
                                                                "reduce_dim",
                                                                "cumsum_dim",
                                                                "argmax_dim",
                                                                "softmax_forward",
                                                                "softmax_backward",
                                                                "gemm",
                                                                "gemm_float64",
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
                                                                "adagrad_step",
                                                                "fused_mlp",
                                                                "mlp_step",
                                                                "mlp_sgd_steps"};

  explicit CountingBackend(backend::Backend& target) : target_(target) {}
  backend::Backend& target() const { return target_; }
  // How many times entry kEntries[k] was called.
  int64_t calls(std::size_t k) const { return calls_[k].load(); }

  using Loop = backend::Loop;
  using IndexLoop = backend::IndexLoop;
  using BinaryOp = backend::BinaryOp;
  using UnaryOp = backend::UnaryOp;
  using ReduceOp = backend::ReduceOp;
  using Window2d = backend::Window2d;
  using ParamUpdate = backend::ParamUpdate;
  using SgdOptions = backend::SgdOptions;
  using AdamOptions = backend::AdamOptions;
  using RmspropOptions = backend::RmspropOptions;
  using AdagradOptions = backend::AdagradOptions;
  using MlpStep = backend::MlpStep;
  using MlpSgd = backend::MlpSgd;
  using FusedMlpKernels = backend::FusedMlpKernels;

  Device device() const override {
    hit("device");
    return target_.device();
  }
  void* allocate(std::size_t nbytes) override {
    hit("allocate");
    return target_.allocate(nbytes);
  }
  void deallocate(void* ptr, std::size_t nbytes) noexcept override {
    hit("deallocate");
    target_.deallocate(ptr, nbytes);
  }
  void copy_from_host(void* dst, const void* src, std::size_t nbytes) override {
    hit("copy_from_host");
    target_.copy_from_host(dst, src, nbytes);
  }
  void copy_to_host(void* dst, const void* src, std::size_t nbytes) override {
    hit("copy_to_host");
    target_.copy_to_host(dst, src, nbytes);
  }
  void synchronize() override {
    hit("synchronize");
    target_.synchronize();
  }
  bool capturing() const override {
    hit("capturing");
    return target_.capturing();
  }
  void fill(void* out, DType dtype, int64_t n, double value) override {
    hit("fill");
    target_.fill(out, dtype, n, value);
  }
  void cast(const void* in, DType in_dtype, void* out, DType out_dtype, int64_t n) override {
    hit("cast");
    target_.cast(in, in_dtype, out, out_dtype, n);
  }
  void strided_copy(const void* a, void* out, DType dtype, const Loop& loop) override {
    hit("strided_copy");
    target_.strided_copy(a, out, dtype, loop);
  }
  void binary(BinaryOp op, DType dtype, const void* a, const void* b, void* out,
              const Loop& loop) override {
    hit("binary");
    target_.binary(op, dtype, a, b, out, loop);
  }
  void binary_scalar(BinaryOp op, DType dtype, const void* a, double s, bool scalar_first,
                     void* out, int64_t n) override {
    hit("binary_scalar");
    target_.binary_scalar(op, dtype, a, s, scalar_first, out, n);
  }
  void unary(UnaryOp op, DType dtype, const void* in, void* out, int64_t n) override {
    hit("unary");
    target_.unary(op, dtype, in, out, n);
  }
  void where(const bool* cond, DType dtype, const void* a, const void* b, void* out,
             int64_t n) override {
    hit("where");
    target_.where(cond, dtype, a, b, out, n);
  }
  void gather_rows(const void* in, int64_t rows, const int64_t* index, void* out, int64_t n,
                   std::size_t row_bytes) override {
    hit("gather_rows");
    target_.gather_rows(in, rows, index, out, n, row_bytes);
  }
  void gather_dim(DType dtype, const void* src, const int64_t* index, void* dst,
                  const IndexLoop& loop) override {
    hit("gather_dim");
    target_.gather_dim(dtype, src, index, dst, loop);
  }
  void scatter_dim(bool accumulate, DType dtype, const void* src, const int64_t* index, void* dst,
                   const IndexLoop& loop) override {
    hit("scatter_dim");
    target_.scatter_dim(accumulate, dtype, src, index, dst, loop);
  }
  void relu_forward(const float* x, float* y, int64_t n) override {
    hit("relu_forward");
    target_.relu_forward(x, y, n);
  }
  void relu_backward(const float* x, const float* dy, float* dx, int64_t n) override {
    hit("relu_backward");
    target_.relu_backward(x, dy, dx, n);
  }
  void sum_dim(const float* in, float* out, int64_t outer, int64_t r, int64_t inner,
               float scale) override {
    hit("sum_dim");
    target_.sum_dim(in, out, outer, r, inner, scale);
  }
  void sum_dim_int64(const int64_t* in, int64_t* out, int64_t outer, int64_t r,
                     int64_t inner) override {
    hit("sum_dim_int64");
    target_.sum_dim_int64(in, out, outer, r, inner);
  }
  void sum_dim_float64(const double* in, double* out, int64_t outer, int64_t r, int64_t inner,
                       double scale) override {
    hit("sum_dim_float64");
    target_.sum_dim_float64(in, out, outer, r, inner, scale);
  }
  void reduce_dim(ReduceOp op, DType dtype, const void* in, void* out, int64_t outer, int64_t r,
                  int64_t inner) override {
    hit("reduce_dim");
    target_.reduce_dim(op, dtype, in, out, outer, r, inner);
  }
  void cumsum_dim(DType dtype, const void* in, void* out, int64_t outer, int64_t r,
                  int64_t inner) override {
    hit("cumsum_dim");
    target_.cumsum_dim(dtype, in, out, outer, r, inner);
  }
  void argmax_dim(const void* in, DType dtype, int64_t* out, int64_t outer, int64_t r,
                  int64_t inner) override {
    hit("argmax_dim");
    target_.argmax_dim(in, dtype, out, outer, r, inner);
  }
  void softmax_forward(const float* x, float* y, int64_t outer, int64_t r, int64_t inner,
                       bool log) override {
    hit("softmax_forward");
    target_.softmax_forward(x, y, outer, r, inner, log);
  }
  void softmax_backward(const float* y, const float* dy, float* dx, int64_t outer, int64_t r,
                        int64_t inner, bool log) override {
    hit("softmax_backward");
    target_.softmax_backward(y, dy, dx, outer, r, inner, log);
  }
  void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
            const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
            int64_t ldc) override {
    hit("gemm");
    target_.gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void gemm_float64(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
                    double* c, int64_t ldc) override {
    hit("gemm_float64");
    target_.gemm_float64(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void linear_forward(const float* x, const float* w, const float* bias, float* y, int64_t rows,
                      int64_t in, int64_t out) override {
    hit("linear_forward");
    target_.linear_forward(x, w, bias, y, rows, in, out);
  }
  void im2col(const float* image, float* col, const Window2d& w) override {
    hit("im2col");
    target_.im2col(image, col, w);
  }
  void col2im(const float* col, float* image, const Window2d& w) override {
    hit("col2im");
    target_.col2im(col, image, w);
  }
  void max_pool2d_forward(const float* x, float* y, int64_t* argmax, const Window2d& w) override {
    hit("max_pool2d_forward");
    target_.max_pool2d_forward(x, y, argmax, w);
  }
  void max_pool2d_backward(const float* dy, const int64_t* argmax, float* dx,
                           const Window2d& w) override {
    hit("max_pool2d_backward");
    target_.max_pool2d_backward(dy, argmax, dx, w);
  }
  void dropout_forward(const float* x, float* y, float* mask, int64_t n, float p,
                       uint64_t seed) override {
    hit("dropout_forward");
    target_.dropout_forward(x, y, mask, n, p, seed);
  }
  void cross_entropy_forward(const float* logits, const int64_t* target, float* loss, float* probs,
                             int64_t n, int64_t c) override {
    hit("cross_entropy_forward");
    target_.cross_entropy_forward(logits, target, loss, probs, n, c);
  }
  void cross_entropy_backward(const float* probs, const int64_t* target, const float* dloss,
                              float* dlogits, int64_t n, int64_t c) override {
    hit("cross_entropy_backward");
    target_.cross_entropy_backward(probs, target, dloss, dlogits, n, c);
  }
  void sgd_step(const ParamUpdate* params, int count, const SgdOptions& options) override {
    hit("sgd_step");
    target_.sgd_step(params, count, options);
  }
  void adam_step(const ParamUpdate* params, int count, const AdamOptions& options) override {
    hit("adam_step");
    target_.adam_step(params, count, options);
  }
  void rmsprop_step(const ParamUpdate* params, int count, const RmspropOptions& options) override {
    hit("rmsprop_step");
    target_.rmsprop_step(params, count, options);
  }
  void adagrad_step(const ParamUpdate* params, int count, const AdagradOptions& options) override {
    hit("adagrad_step");
    target_.adagrad_step(params, count, options);
  }
  FusedMlpKernels* fused_mlp() override {
    hit("fused_mlp");
    return target_.fused_mlp() ? this : nullptr;
  }
  void mlp_step(const MlpStep& step) override {
    hit("mlp_step");
    target_.fused_mlp()->mlp_step(step);
  }
  void mlp_sgd_steps(const MlpStep& step, const MlpSgd& sgd, int64_t steps,
                     float* losses) override {
    hit("mlp_sgd_steps");
    target_.fused_mlp()->mlp_sgd_steps(step, sgd, steps, losses);
  }

 private:
  void hit(std::string_view entry) const noexcept {
    for (std::size_t k = 0; k < kEntries.size(); ++k)
      if (kEntries[k] == entry) ++calls_[k];
  }

  backend::Backend& target_;
  mutable std::array<std::atomic<int64_t>, kEntries.size()> calls_{};
};

// Routes this thread's kernels for `tensors` (by default counter.target()) through counter
// while it lives.
class CountingScope {
 public:
  explicit CountingScope(CountingBackend& counter) : CountingScope(counter, counter.target()) {}
  CountingScope(CountingBackend& counter, backend::Backend& tensors) {
    TORCHLET_ASSERT(!backend::detail::routing.target, "CountingScope inside a recording");
    backend::detail::routing = {&tensors, &counter};
  }
  ~CountingScope() { backend::detail::routing = {}; }
  CountingScope(const CountingScope&) = delete;
  CountingScope& operator=(const CountingScope&) = delete;
};

// The function names (destructors left out) that the first group of `declaration` matches in
// the header at `path`: the entries a backend's header declares, to check a list against.
inline std::set<std::string> functions_declared_in(const std::string& path,
                                                   const std::regex& declaration) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  const std::string source = text.str();
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(source.begin(), source.end(), declaration);
       it != std::sregex_iterator(); ++it)
    if ((*it)[1].str()[0] != '~') names.insert((*it)[1].str());
  return names;
}

}  // namespace torchlet::testing
