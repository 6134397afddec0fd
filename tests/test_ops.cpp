// Every op: forward against a plain reference on awkward shapes (1, 7, 129 rows), backward
// against central finite differences.
#include <cmath>
#include <limits>

#include "testing.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::expect_gradients_match;
using testing::random_tensor;

class OpsTest : public ::testing::TestWithParam<int64_t> {};
INSTANTIATE_TEST_SUITE_P(Rows, OpsTest, ::testing::Values(1, 7, 129));

// C[i, j] = sum_p A[i, p] B[p, j], the plain way.
std::vector<float> matmul_ref(const std::vector<float>& a, const std::vector<float>& b, int64_t m,
                              int64_t k, int64_t n) {
  std::vector<float> c(static_cast<std::size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) s += double(a[i * k + p]) * b[p * n + j];
      c[i * n + j] = float(s);
    }
  return c;
}

std::vector<float> transpose_ref(const std::vector<float>& a, int64_t rows, int64_t cols) {
  std::vector<float> t(a.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) t[j * rows + i] = a[i * cols + j];
  return t;
}

TEST_P(OpsTest, Matmul) {
  const int64_t m = GetParam(), k = 5, n = 3;
  Tensor a = random_tensor({m, k}, 1), b = random_tensor({k, n}, 2);
  EXPECT_TRUE(all_close(matmul(a, b).to_vector<float>(),
                        matmul_ref(a.to_vector<float>(), b.to_vector<float>(), m, k, n)));
  // Transposed views go to the GEMM without a copy; the result must not change.
  Tensor bt = random_tensor({n, k}, 3);
  EXPECT_TRUE(all_close(
      matmul(a, bt.t()).to_vector<float>(),
      matmul_ref(a.to_vector<float>(), transpose_ref(bt.to_vector<float>(), n, k), m, k, n)));
  expect_gradients_match([](const auto& x) { return matmul(x[0], x[1]); }, {a, b}, "matmul");
}

TEST_P(OpsTest, Linear) {
  const int64_t rows = GetParam(), in = 4, out = 10;
  Tensor x = random_tensor({rows, in}, 4), w = random_tensor({out, in}, 5),
         b = random_tensor({out}, 6);
  std::vector<float> want =
      matmul_ref(x.to_vector<float>(), transpose_ref(w.to_vector<float>(), out, in), rows, in, out);
  const auto bias = b.to_vector<float>();
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < out; ++j) want[i * out + j] += bias[j];
  EXPECT_TRUE(all_close(linear(x, w, b).to_vector<float>(), want));
  expect_gradients_match([](const auto& v) { return linear(v[0], v[1], v[2]); }, {x, w, b},
                         "linear");
  expect_gradients_match([](const auto& v) { return linear(v[0], v[1]); }, {x, w},
                         "linear without bias");
}

TEST_P(OpsTest, Relu) {
  const int64_t rows = GetParam();
  // Keep values away from the kink at 0, where finite differences are meaningless.
  std::vector<float> v = testing::random_values(rows * 6, 7);
  for (float& e : v) e += e >= 0 ? 0.1f : -0.1f;
  Tensor x = tensor(v, {rows, 6});
  std::vector<float> want = v;
  for (float& e : want) e = std::max(e, 0.0f);
  EXPECT_TRUE(all_close(relu(x).to_vector<float>(), want));
  expect_gradients_match([](const auto& a) { return relu(a[0]); }, {x}, "relu");
}

std::vector<float> softmax_ref(const std::vector<float>& x, int64_t rows, int64_t cols, bool log) {
  std::vector<float> y(x.size());
  for (int64_t i = 0; i < rows; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < cols; ++j) sum += std::exp(double(x[i * cols + j]));
    for (int64_t j = 0; j < cols; ++j)
      y[i * cols + j] =
          float(log ? x[i * cols + j] - std::log(sum) : std::exp(double(x[i * cols + j])) / sum);
  }
  return y;
}

TEST_P(OpsTest, SoftmaxAndLogSoftmax) {
  const int64_t rows = GetParam(), cols = 7;
  Tensor x = random_tensor({rows, cols}, 8);
  const auto v = x.to_vector<float>();
  EXPECT_TRUE(all_close(softmax(x, 1).to_vector<float>(), softmax_ref(v, rows, cols, false)));
  EXPECT_TRUE(all_close(log_softmax(x, -1).to_vector<float>(), softmax_ref(v, rows, cols, true)));
  // Along dim 0: the same as the transpose's rows.
  EXPECT_TRUE(all_close(softmax(x, 0).t().contiguous().to_vector<float>(),
                        softmax_ref(transpose_ref(v, rows, cols), cols, rows, false)));
  expect_gradients_match([](const auto& a) { return softmax(a[0], 1); }, {x}, "softmax");
  expect_gradients_match([](const auto& a) { return log_softmax(a[0], 1); }, {x}, "log_softmax");
  expect_gradients_match([](const auto& a) { return softmax(a[0], 0); }, {x}, "softmax dim 0");
}

TEST_P(OpsTest, CrossEntropy) {
  const int64_t rows = GetParam(), classes = 3;
  Tensor x = random_tensor({rows, classes}, 9);
  std::vector<int64_t> t(static_cast<std::size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) t[i] = (i * 7 + 1) % classes;
  Tensor target = tensor(t);
  const auto logp = softmax_ref(x.to_vector<float>(), rows, classes, true);
  double want = 0;
  for (int64_t i = 0; i < rows; ++i) want -= logp[i * classes + t[i]];
  want /= double(rows);
  EXPECT_NEAR(cross_entropy(x, target).item(), want, 1e-5);
  EXPECT_EQ(cross_entropy(x, target).dim(), 0);
  expect_gradients_match([&](const auto& a) { return cross_entropy(a[0], target); }, {x},
                         "cross_entropy");
}

// argmax of float rows (8 lanes, long rows in parts): the first position of the largest, as a
// plain loop from the first element finds it, with many ties, -inf, and NaN (never chosen,
// except that a row starting with NaN gives 0, as the loop does).
TEST(Reductions, ArgmaxOfRowsIsThePlainLoopsWithTiesInfinitiesAndNan) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  const std::vector<float> pool = {-inf, -1.0f, 0.0f, 2.0f, 2.0f, 3.0f, nan, 3.0f};
  for (int64_t cols : {1, 7, 8, 9, 37, 300000}) {
    const int64_t rows = cols > 1000 ? 2 : 40;
    std::vector<float> v(static_cast<std::size_t>(rows * cols));
    uint32_t state = static_cast<uint32_t>(cols);
    for (float& e : v) e = pool[(state = state * 1664525u + 1013904223u) >> 29];
    v[0] = nan;      // row 0 starts with NaN
    v[cols] = -inf;  // row 1 starts with -inf
    std::vector<int64_t> want;
    for (int64_t i = 0; i < rows; ++i) {
      int64_t best = 0;
      for (int64_t j = 1; j < cols; ++j)
        if (v[i * cols + j] > v[i * cols + best]) best = j;
      want.push_back(best);
    }
    const Tensor x = tensor(v, {rows, cols});
    EXPECT_EQ(x.argmax(1).to_vector<int64_t>(), want) << cols << " columns";
    const std::vector<float> second(v.begin() + cols, v.begin() + 2 * cols);  // one long row
    EXPECT_EQ(tensor(second).argmax(0).item<int64_t>(), want[1]) << cols << " columns";
  }
  std::vector<float> late(300000, 0.0f);  // the largest only in a later part, twice
  late[200001] = late[250000] = 5.0f;
  late[7] = nan;
  EXPECT_EQ(tensor(late).argmax(0).item<int64_t>(), 200001);
}

TEST(CrossEntropy, StableForHugeLogits) {
  Tensor x = tensor({1000.0f, 0.0f, -1000.0f, 0.0f, 1000.0f, 0.0f}, {2, 3});
  Tensor loss = cross_entropy(x, tensor(std::vector<int64_t>{0, 0}));
  EXPECT_NEAR(loss.item(), 500.0f, 1e-3);  // (0 + 1000) / 2, with no inf or NaN
}

TEST_P(OpsTest, SumMeanAndArgmax) {
  const int64_t rows = GetParam(), cols = 5;
  Tensor x = random_tensor({rows, cols}, 10);
  const auto v = x.to_vector<float>();
  std::vector<float> col_sums(cols, 0.0f), row_means(static_cast<std::size_t>(rows), 0.0f);
  std::vector<int64_t> row_argmax(static_cast<std::size_t>(rows), 0);
  double total = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      const float e = v[i * cols + j];
      col_sums[j] += e;
      row_means[i] += e / cols;
      total += e;
      if (e > v[i * cols + row_argmax[i]]) row_argmax[i] = j;
    }
  EXPECT_NEAR(x.sum().item(), total, 1e-4);
  EXPECT_NEAR(x.mean().item(), total / double(rows * cols), 1e-5);
  EXPECT_TRUE(all_close(x.sum(0).to_vector<float>(), col_sums));
  EXPECT_TRUE(all_close(x.mean(1).to_vector<float>(), row_means));
  EXPECT_EQ(x.sum(0, true).shape(), Shape({1, cols}));
  EXPECT_EQ(x.argmax(1).to_vector<int64_t>(), row_argmax);
  EXPECT_EQ(x.argmax(1).dtype(), kInt64);
  expect_gradients_match([](const auto& a) { return a[0].sum(0); }, {x}, "sum(0)");
  expect_gradients_match([](const auto& a) { return a[0].mean(1, true); }, {x}, "mean(1)");
  expect_gradients_match([](const auto& a) { return a[0].mean(); }, {x}, "mean()");
}

TEST_P(OpsTest, BinaryWithBroadcastAndScalars) {
  const int64_t rows = GetParam(), cols = 4;
  Tensor a = random_tensor({rows, cols}, 11), b = random_tensor({rows, cols}, 12);
  Tensor row = random_tensor({cols}, 13);
  // Keep divisors away from 0.
  Tensor d = random_tensor({cols}, 14) * 0.5f + 2.0f;
  const auto va = a.to_vector<float>(), vb = b.to_vector<float>(), vr = row.to_vector<float>(),
             vd = d.to_vector<float>();
  std::vector<float> add(va.size()), sub(va.size()), mul(va.size()), div(va.size()),
      scalar(va.size());
  for (std::size_t i = 0; i < va.size(); ++i) {
    add[i] = va[i] + vb[i];
    sub[i] = va[i] - vr[i % cols];
    mul[i] = vr[i % cols] * va[i];
    div[i] = va[i] / vd[i % cols];
    scalar[i] = 2.0f - va[i] * 3.0f;
  }
  EXPECT_TRUE(all_close((a + b).to_vector<float>(), add));
  EXPECT_TRUE(all_close((a - row).to_vector<float>(), sub));
  EXPECT_TRUE(all_close((row * a).to_vector<float>(), mul));
  EXPECT_TRUE(all_close((a / d).to_vector<float>(), div));
  EXPECT_TRUE(all_close((2.0f - a * 3.0f).to_vector<float>(), scalar));
  expect_gradients_match([](const auto& x) { return x[0] + x[1]; }, {a, b}, "add");
  expect_gradients_match([](const auto& x) { return x[0] - x[1]; }, {a, row}, "sub row");
  expect_gradients_match([](const auto& x) { return x[1] * x[0]; }, {a, row}, "mul row");
  expect_gradients_match([](const auto& x) { return x[0] / x[1]; }, {a, d}, "div row");
  expect_gradients_match([](const auto& x) { return 1.0f / (x[0] * x[0] + 1.0f) - x[0] / 2.0f; },
                         {a}, "scalar ops");
}

TEST(Binary, ColumnBroadcastAndEquality) {
  Tensor a = tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}, {2, 3});
  Tensor col = tensor({10.0f, 20.0f}, {2, 1});
  EXPECT_EQ((a + col).to_vector<float>(), (std::vector<float>{11, 12, 13, 24, 25, 26}));
  Tensor eq = tensor(std::vector<int64_t>{0, 2, 1}) == tensor(std::vector<int64_t>{0, 1, 1});
  EXPECT_EQ(eq.dtype(), kBool);
  EXPECT_EQ(eq.to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_FLOAT_EQ(eq.to(kFloat32).mean().item(), 2.0f / 3.0f);
}

TEST_P(OpsTest, ViewsAreDifferentiable) {
  const int64_t rows = GetParam();
  Tensor x = random_tensor({rows, 6}, 15);
  expect_gradients_match([](const auto& a) { return a[0].t(); }, {x}, "t");
  expect_gradients_match([](const auto& a) { return a[0].slice(1, 1, 4); }, {x}, "slice dim 1");
  expect_gradients_match([](const auto& a) { return a[0].slice(0, 0, 1); }, {x}, "slice dim 0");
  expect_gradients_match([](const auto& a) { return a[0].reshape({-1, 3}); }, {x}, "reshape");
  expect_gradients_match([](const auto& a) { return a[0].t().contiguous() * 2.0f; }, {x},
                         "contiguous");
}

}  // namespace
}  // namespace torchlet

namespace torchlet {
namespace {

TEST(IndexSelect, GathersRowsAndChecksIndices) {
  Tensor x = arange(12, kFloat32).reshape({4, 3});
  Tensor rows = index_select(x, tensor({3, 0, 3}));
  EXPECT_EQ(rows.shape(), Shape({3, 3}));
  EXPECT_EQ(rows.to_vector<float>(), (std::vector<float>{9, 10, 11, 0, 1, 2, 9, 10, 11}));
  EXPECT_EQ(index_select(tensor({5, 6, 7}), tensor({2})).to_vector<int64_t>(),
            (std::vector<int64_t>{7}));
  EXPECT_THROW(index_select(x, tensor({4})), Error);
  EXPECT_THROW(index_select(x, tensor({0.0f})), Error);
}

}  // namespace
}  // namespace torchlet
