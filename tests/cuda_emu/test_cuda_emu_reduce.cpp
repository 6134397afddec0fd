// The reductions (reduce.cu) and the fused softmax + cross-entropy (loss.cu) in the emulator
// against the CPU backend: sums over rows (one block a row, a tree in shared memory) and down
// columns, argmax, (log_)softmax both ways, the loss both ways and a bad target.
#include <limits>
#include <sstream>

#include "cuda_emu/emu_testing.h"

namespace torchlet::emu::testing {
namespace {

struct Dims {
  int64_t outer, r, inner;
};
// Rows (inner 1) short and long enough for several passes of 256 threads, and columns.
constexpr Dims kDims[] = {{1, 1, 1}, {3, 7, 1}, {2, 1000, 1}, {5, 129, 1}, {4, 9, 3}, {2, 5, 129}};

std::string str(const Dims& d) {
  std::ostringstream s;
  s << "[" << d.outer << ", " << d.r << ", " << d.inner << "]";
  return s.str();
}
std::size_t numel(const Dims& d) { return static_cast<std::size_t>(d.outer * d.r * d.inner); }

TEST(CudaEmuReduce, SumOverRowsAndColumns) {
  for_each_order([] {
    for (const Dims& d : kDims) {
      const std::vector<float> in = uniform(numel(d), 20);
      const auto n = static_cast<std::size_t>(d.outer * d.inner);
      std::vector<float> out(n), ref(n);
      kernels::sum_dim(in.data(), out.data(), d.outer, d.r, d.inner, 0.5f, nullptr);
      cpu().sum_dim(in.data(), ref.data(), d.outer, d.r, d.inner, 0.5f);
      expect_close(out, ref, 1e-6, "sum_dim " + str(d));
    }
  });
}

TEST(CudaEmuReduce, ArgmaxOfFloatAndInt64WithTies) {
  for_each_order([] {
    for (const Dims& d : kDims) {
      const std::vector<int64_t> ints = integers(numel(d), 21, 0, 4);  // many ties
      const std::vector<float> floats = uniform(numel(d), 22);
      const auto n = static_cast<std::size_t>(d.outer * d.inner);
      std::vector<int64_t> out(n), ref(n);
      kernels::argmax_dim(ints.data(), DType::Int64, out.data(), d.outer, d.r, d.inner, nullptr);
      cpu().argmax_dim(ints.data(), DType::Int64, ref.data(), d.outer, d.r, d.inner);
      EXPECT_EQ(out, ref) << "argmax int64 " << str(d);
      kernels::argmax_dim(floats.data(), DType::Float32, out.data(), d.outer, d.r, d.inner,
                          nullptr);
      cpu().argmax_dim(floats.data(), DType::Float32, ref.data(), d.outer, d.r, d.inner);
      EXPECT_EQ(out, ref) << "argmax float32 " << str(d);
    }
  });
}

TEST(CudaEmuReduce, ArgmaxOfRowsWithNaNAsTheCpuScansThem) {
  // Rows of 300: NaN first (the CPU answers 0), NaN later (never picked), all NaN, and a tie
  // between two threads' elements (the first wins).
  const int64_t outer = 4, r = 300;
  std::vector<float> x = uniform(outer * r, 25);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  x[0] = nan;
  x[r + 5] = nan;
  x[r + 200] = 100.0f;
  for (int64_t j = 0; j < r; ++j) x[2 * r + j] = nan;
  x[3 * r + 7] = x[3 * r + 263] = 50.0f;
  for_each_order([&] {
    std::vector<int64_t> out(outer), ref(outer);
    kernels::argmax_dim(x.data(), DType::Float32, out.data(), outer, r, 1, nullptr);
    cpu().argmax_dim(x.data(), DType::Float32, ref.data(), outer, r, 1);
    EXPECT_EQ(out, ref);
    EXPECT_EQ(ref, (std::vector<int64_t>{0, 200, 0, 7}));
  });
}

TEST(CudaEmuReduce, SoftmaxAndLogSoftmaxForwardAndBackward) {
  for_each_order([] {
    for (const Dims& d : kDims)
      for (bool log : {false, true}) {
        const std::string what = std::string(log ? "log_softmax " : "softmax ") + str(d);
        const std::vector<float> x = uniform(numel(d), 23, -4.0f, 4.0f);
        const std::vector<float> dy = uniform(numel(d), 24);
        std::vector<float> y(numel(d)), yr(numel(d)), dx(numel(d)), dxr(numel(d));
        kernels::softmax_forward(x.data(), y.data(), d.outer, d.r, d.inner, log, nullptr);
        cpu().softmax_forward(x.data(), yr.data(), d.outer, d.r, d.inner, log);
        expect_close(y, yr, 1e-6, what);
        kernels::softmax_backward(yr.data(), dy.data(), dx.data(), d.outer, d.r, d.inner, log,
                                  nullptr);
        cpu().softmax_backward(yr.data(), dy.data(), dxr.data(), d.outer, d.r, d.inner, log);
        expect_close(dx, dxr, 1e-6, what + " backward");
      }
  });
}

TEST(CudaEmuLoss, CrossEntropyForwardAndBackward) {
  // One block with idle row groups, several blocks, and the grid's 1024 blocks each taking rows
  // in three passes (20000 rows); rows shorter than a group's 32 threads and several times longer.
  struct Case {
    int64_t n, c;
  };
  for (const Case& k :
       {Case{1, 5}, Case{7, 5}, Case{300, 5}, Case{1000, 3}, Case{1000, 300}, Case{20000, 3}}) {
    const int64_t n = k.n, c = k.c;
    const std::vector<float> logits = uniform(static_cast<std::size_t>(n * c), 30, -3.0f, 3.0f);
    const std::vector<int64_t> target = integers(static_cast<std::size_t>(n), 31, 0, c);
    const std::vector<float> dloss = {0.75f};
    for_each_order([&] {
      const std::string what = "cross_entropy n=" + std::to_string(n) + " c=" + std::to_string(c);
      std::vector<float> loss(1), loss_ref(1), probs(n * c), probs_ref(n * c);
      ErrorWord error;
      kernels::cross_entropy_forward(logits.data(), target.data(), loss.data(), probs.data(), n, c,
                                     error.flag(), nullptr);
      cpu().cross_entropy_forward(logits.data(), target.data(), loss_ref.data(), probs_ref.data(),
                                  n, c);
      expect_close(loss, loss_ref, 1e-6, what);
      expect_close(probs, probs_ref, 1e-6, what + " probs");
      EXPECT_EQ(error.word, kernels::kNoError);
      std::vector<float> d(n * c), d_ref(n * c);
      kernels::cross_entropy_backward(probs_ref.data(), target.data(), dloss.data(), d.data(), n, c,
                                      nullptr);
      cpu().cross_entropy_backward(probs_ref.data(), target.data(), dloss.data(), d_ref.data(), n,
                                   c);
      expect_close(d, d_ref, 1e-6, what + " backward");
    });
  }
}

TEST(CudaEmuLoss, CrossEntropyShiftsEachRowByItsTrueMax) {
  // One logit of 800 a row, at a column that moves across the 32 threads: exp overflows unless
  // the row's max, every thread's part of it, is subtracted first.
  const int64_t n = 40, c = 300;
  std::vector<float> logits = uniform(static_cast<std::size_t>(n * c), 34, -3.0f, 3.0f);
  for (int64_t i = 0; i < n; ++i) logits[i * c + (i * 37) % c] = 800.0f;
  const std::vector<int64_t> target = integers(static_cast<std::size_t>(n), 35, 0, c);
  for_each_order([&] {
    std::vector<float> loss(1), loss_ref(1), probs(n * c), probs_ref(n * c);
    ErrorWord error;
    kernels::cross_entropy_forward(logits.data(), target.data(), loss.data(), probs.data(), n, c,
                                   error.flag(), nullptr);
    cpu().cross_entropy_forward(logits.data(), target.data(), loss_ref.data(), probs_ref.data(), n,
                                c);
    expect_close(loss, loss_ref, 1e-6, "cross_entropy with a logit of 800");
    expect_close(probs, probs_ref, 1e-6, "cross_entropy with a logit of 800: probs");
  });
}

TEST(CudaEmuLoss, ABadTargetMakesTheLossNaNAndIsReported) {
  const int64_t n = 9, c = 4;
  const std::vector<float> logits = uniform(n * c, 32);
  std::vector<int64_t> target = integers(n, 33, 0, c);
  target[6] = -1;
  for_each_order([&] {
    std::vector<float> loss(1), probs(n * c);
    ErrorWord error;
    kernels::cross_entropy_forward(logits.data(), target.data(), loss.data(), probs.data(), n, c,
                                   error.flag(), nullptr);
    EXPECT_TRUE(std::isnan(loss[0])) << loss[0];
    EXPECT_EQ(error.word, -1);
  });
}

}  // namespace
}  // namespace torchlet::emu::testing
