// The CPU kernels of a small model's eager step against plain loops: linear's forward with the
// bias add fused into the small GEMM (bit for bit the GEMM and then the add), the column sums
// of a bias gradient (bit for bit the plain double loop), and the fused softmax cross-entropy
// in both of its layouts (eight rows to a vector up to 32 classes, a row along its classes
// beyond), NaN and -inf logits included; and the reductions of contiguous runs (sums in 32
// double lanes, max and min in 32 float lanes, long runs cut into parts reduced in parallel).
#include <cmath>
#include <limits>
#include <sstream>

#include "backends/backend.h"
#include "testing.h"

namespace torchlet {
namespace {

backend::Backend& cpu() { return backend::get(kCPU); }

struct Dims {
  int64_t a, b, c;
};

std::string name_of(const Dims& d) {
  std::ostringstream s;
  s << d.a << 'x' << d.b << 'x' << d.c;
  return s.str();
}

TEST(SmallKernels, LinearForwardIsTheGemmAndThenTheBiasAddBitForBit) {
  // rows, in, out: the Iris MLP's layers, odd sizes around the vector widths, one past the
  // small kernel (the BLAS path), no input features.
  for (const Dims d :
       {Dims{120, 4, 10}, Dims{120, 10, 3}, Dims{1, 1, 1}, Dims{7, 33, 129}, Dims{129, 7, 1},
        Dims{9, 5, 8}, Dims{3, 17, 16}, Dims{5, 0, 12}, Dims{70, 70, 70}}) {
    const auto [rows, in, out] = d;
    const auto x = testing::random_values(rows * in, 1), w = testing::random_values(out * in, 2),
               b = testing::random_values(out, 3);
    std::vector<float> got(rows * out, 7.0f), product(rows * out, 7.0f);
    cpu().gemm(false, true, rows, out, in, 1.0f, x.data(), in, w.data(), in, 0.0f, product.data(),
               out);
    std::vector<float> want = product;
    for (int64_t i = 0; i < rows * out; ++i) want[i] += b[i % out];
    cpu().linear_forward(x.data(), w.data(), b.data(), got.data(), rows, in, out);
    EXPECT_EQ(got, want) << name_of(d);
    cpu().linear_forward(x.data(), w.data(), nullptr, got.data(), rows, in, out);
    EXPECT_EQ(got, product) << "no bias, " << name_of(d);
  }
}

TEST(SmallKernels, ColumnSumsAreThePlainDoubleLoopBitForBit) {
  // outer, r, inner: bias gradients of widths 3 and 10, every tail of a 4-vector, wide rows.
  for (const Dims d :
       {Dims{1, 120, 3}, Dims{1, 120, 10}, Dims{2, 5, 1}, Dims{3, 7, 4}, Dims{1, 9, 16},
        Dims{2, 11, 17}, Dims{1, 6, 18}, Dims{1, 4, 19}, Dims{3, 33, 100}, Dims{1, 0, 6}}) {
    const auto [outer, r, inner] = d;
    const auto in = testing::random_values(outer * r * inner, 4);
    std::vector<float> got(outer * inner), want(outer * inner);
    cpu().sum_dim(in.data(), got.data(), outer, r, inner, 0.5f);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        double acc = 0.0;
        for (int64_t j = 0; j < r; ++j) acc += in[(o * r + j) * inner + i];
        want[o * inner + i] = static_cast<float>(acc * 0.5f);
      }
    EXPECT_EQ(got, want) << name_of(d);
  }
}

// Mean cross-entropy and softmax in double.
double reference_cross_entropy(const std::vector<float>& x, const std::vector<int64_t>& t,
                               int64_t n, int64_t c, std::vector<float>& probs) {
  double total = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    double max = x[i * c], sum = 0.0;
    for (int64_t j = 1; j < c; ++j) max = std::max<double>(max, x[i * c + j]);
    for (int64_t j = 0; j < c; ++j) sum += std::exp(x[i * c + j] - max);
    for (int64_t j = 0; j < c; ++j) probs[i * c + j] = std::exp(x[i * c + j] - max) / sum;
    total += std::log(sum) - (x[i * c + t[i]] - max);
  }
  return total / n;
}

TEST(SmallKernels, CrossEntropyMatchesThePlainLoopInBothLayouts) {
  // rows, classes: the Iris batch, partial blocks of 8 rows, 32 classes (the last in vector
  // lanes) and 33 (the first along the row), one class.
  for (const Dims d : {Dims{120, 3, 0}, Dims{7, 3, 0}, Dims{33, 10, 0}, Dims{9, 32, 0},
                       Dims{9, 33, 0}, Dims{5, 100, 0}, Dims{70, 1, 0}}) {
    const int64_t n = d.a, c = d.b;
    auto x = testing::random_values(n * c, 5, -8.0f, 8.0f);
    std::vector<int64_t> t(n);
    for (int64_t i = 0; i < n; ++i) t[i] = (i * 7) % c;
    std::vector<float> probs(n * c), want_probs(n * c), dx(n * c);
    float loss = 0.0f;
    cpu().cross_entropy_forward(x.data(), t.data(), &loss, probs.data(), n, c);
    const double want = reference_cross_entropy(x, t, n, c, want_probs);
    EXPECT_NEAR(loss, want, 1e-5 * std::max(1.0, want)) << name_of(d);
    EXPECT_TRUE(testing::all_close(probs, want_probs, 1e-6, 1e-5)) << name_of(d);
    const float dloss = 2.0f;
    cpu().cross_entropy_backward(probs.data(), t.data(), &dloss, dx.data(), n, c);
    for (int64_t i = 0; i < n; ++i) want_probs[i * c + t[i]] -= 1.0f;
    for (float& g : want_probs) g *= dloss / static_cast<float>(n);
    EXPECT_TRUE(testing::all_close(dx, want_probs, 1e-6, 1e-5)) << "backward, " << name_of(d);
  }
}

TEST(SmallKernels, CrossEntropyKeepsNanAndInfinityMeaningful) {
  for (const int64_t c : {3, 40}) {
    const int64_t n = 9;
    auto x = testing::random_values(n * c, 6);
    std::vector<int64_t> t(n, 1);
    std::vector<float> probs(n * c);
    float loss = 0.0f;
    x[2 * c] = -std::numeric_limits<float>::infinity();  // row 2, class 0: probability 0
    cpu().cross_entropy_forward(x.data(), t.data(), &loss, probs.data(), n, c);
    EXPECT_TRUE(std::isfinite(loss)) << c << " classes";
    EXPECT_LT(probs[2 * c], 1e-30f) << c << " classes";
    x[5 * c] = std::numeric_limits<float>::quiet_NaN();  // row 5, class 0, not the target
    cpu().cross_entropy_forward(x.data(), t.data(), &loss, probs.data(), n, c);
    EXPECT_TRUE(std::isnan(loss)) << c << " classes";
  }
}

}  // namespace
}  // namespace torchlet

namespace torchlet {
namespace {

// Sums of contiguous runs (inner == 1): the runs of a [outer, r] tensor in 16 double lanes, and
// one run longer than two parts (2^17 elements) cut into parts reduced in parallel; both within
// a double's rounding of the plain double loop, so equal after rounding to float.
TEST(LongRunReductions, RunSumsAgreeWithThePlainDoubleLoop) {
  for (const auto& [outer, r] : {std::pair<int64_t, int64_t>{1, 1},
                                 {3, 15},
                                 {4, 17},
                                 {2, 1000},
                                 {1, (int64_t{1} << 17) + 1},
                                 {1, 300001}}) {
    const auto x = testing::random_values(outer * r, 5);
    std::vector<float> got(outer, 7.0f), want(outer);
    for (int64_t o = 0; o < outer; ++o) {
      double acc = 0.0;
      for (int64_t j = 0; j < r; ++j) acc += x[o * r + j];
      want[o] = static_cast<float>(acc * 0.5);
    }
    cpu().sum_dim(x.data(), got.data(), outer, r, 1, 0.5f);
    EXPECT_EQ(got, want) << outer << " runs of " << r;
  }
}

// One [r, inner] block of many columns is summed in stripes of columns on several threads:
// each column exactly as the plain double loop (bit for bit), the last stripe partial.
TEST(LongRunReductions, ColumnStripesAreThePlainDoubleLoopBitForBit) {
  for (const auto& [r, inner] :
       {std::pair<int64_t, int64_t>{33, 1000}, {1, 512}, {0, 600}, {200, 4099}}) {
    const auto x = testing::random_values(r * inner, 7);
    std::vector<float> got(inner, 7.0f), want(inner);
    for (int64_t i = 0; i < inner; ++i) {
      double acc = 0.0;
      for (int64_t j = 0; j < r; ++j) acc += x[j * inner + i];
      want[i] = static_cast<float>(acc * 0.25);
    }
    cpu().sum_dim(x.data(), got.data(), 1, r, inner, 0.25f);
    EXPECT_EQ(got, want) << r << " rows of " << inner;
  }
}

// Max and min of contiguous runs, short and long: the plain loop's value, and NaN wherever one
// element is NaN (first, last or in the middle of a part).
TEST(LongRunReductions, MaxAndMinOfRunsPropagateNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const auto& [outer, r] :
       {std::pair<int64_t, int64_t>{1, 1}, {3, 15}, {4, 33}, {2, 1000}, {1, 300001}}) {
    auto x = testing::random_values(outer * r, 6);
    for (const backend::ReduceOp op : {backend::ReduceOp::Max, backend::ReduceOp::Min}) {
      const bool max = op == backend::ReduceOp::Max;
      std::vector<float> got(outer), want(outer);
      for (int64_t o = 0; o < outer; ++o) {
        float acc = x[o * r];
        for (int64_t j = 1; j < r; ++j)
          acc = max ? std::max(acc, x[o * r + j]) : std::min(acc, x[o * r + j]);
        want[o] = acc;
      }
      cpu().reduce_dim(op, kFloat32, x.data(), got.data(), outer, r, 1);
      EXPECT_EQ(got, want) << outer << " runs of " << r;
    }
    for (const int64_t at : {int64_t{0}, r / 2, r - 1}) {
      auto y = x;
      y[(outer - 1) * r + at] = nan;
      std::vector<float> got(outer);
      cpu().reduce_dim(backend::ReduceOp::Max, kFloat32, y.data(), got.data(), outer, r, 1);
      EXPECT_TRUE(std::isnan(got[outer - 1])) << "NaN at " << at << " of " << r;
      for (int64_t o = 0; o + 1 < outer; ++o) EXPECT_FALSE(std::isnan(got[o]));
    }
  }
}

}  // namespace
}  // namespace torchlet
