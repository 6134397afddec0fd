// Conformance rows of the layer kernels no other table reaches (test_backend_coverage.cpp names
// them): linear (backend linear_forward) against plain double loops and finite differences, on
// an empty batch and on more than 65,535 rows; dropout (dropout_forward) keeping or scaling each
// element, with its gradient the same mask, and PyTorch's p = 0 and p = 1.
#include <cmath>

#include "conformance.h"
#include "testing.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::random_tensor;

// y[i][o] = sum_k x[i][k] w[o][k] + b[o], in double.
std::vector<float> linear_reference(const Tensor& x, const Tensor& w, const Tensor& b) {
  const int64_t rows = x.shape()[0], in = x.shape()[1], out = w.shape()[0];
  const std::vector<float> xv = x.to_vector<float>(), wv = w.to_vector<float>();
  const std::vector<float> bv = b.defined() ? b.to_vector<float>() : std::vector<float>(out, 0);
  std::vector<float> y;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t o = 0; o < out; ++o) {
      double acc = bv[o];
      for (int64_t k = 0; k < in; ++k) acc += static_cast<double>(xv[i * in + k]) * wv[o * in + k];
      y.push_back(static_cast<float>(acc));
    }
  return y;
}

CONFORMANCE_TEST(OpsConformanceLayers, LinearMatchesPlainLoopsAndFiniteDifferences) {
  const Tensor x = random_tensor({5, 7}, 1), w = random_tensor({3, 7}, 2),
               b = random_tensor({3}, 3);
  EXPECT_TRUE(all_close(linear(x, w, b).to_vector<float>(), linear_reference(x, w, b), 1e-6, 1e-5));
  EXPECT_TRUE(
      all_close(linear(x, w).to_vector<float>(), linear_reference(x, w, Tensor()), 1e-6, 1e-5));
  testing::expect_gradients_match([](const auto& v) { return linear(v[0], v[1], v[2]); }, {x, w, b},
                                  "linear", 1e-3, 2e-2);
  EXPECT_EQ(linear(zeros({0, 7}), w, b).shape(), Shape({0, 3}));
  const Tensor many = random_tensor({70001, 2}, 4), w2 = random_tensor({3, 2}, 5);
  EXPECT_TRUE(
      all_close(linear(many, w2, b).to_vector<float>(), linear_reference(many, w2, b), 1e-6, 1e-5));
}

CONFORMANCE_TEST(OpsConformanceLayers, DropoutKeepsOrScalesEachElementAndItsGradientIsTheMask) {
  const double p = 0.3;
  Tensor x = random_tensor({100, 100}, 6) + 1.5;  // every element non-zero
  x.set_requires_grad(true);
  manual_seed(7);
  const Tensor y = dropout(x, p, true);
  const std::vector<float> xv = x.to_vector<float>(), yv = y.to_vector<float>();
  int64_t dropped = 0;
  for (std::size_t i = 0; i < xv.size(); ++i) {
    if (yv[i] == 0.0f) {
      ++dropped;
    } else {
      EXPECT_NEAR(yv[i], xv[i] / (1 - p), 1e-5) << "element " << i;
    }
  }
  // 10,000 draws of p = 0.3: the count is within 0.3 +- 0.02 (more than 4 standard deviations).
  EXPECT_NEAR(static_cast<double>(dropped) / 10000.0, p, 0.02);
  const Tensor w = random_tensor(y.shape(), 8);
  (y * w).sum().backward();
  const std::vector<float> g = x.grad().to_vector<float>(), wv = w.to_vector<float>();
  for (std::size_t i = 0; i < g.size(); ++i)
    EXPECT_NEAR(g[i], yv[i] == 0.0f ? 0.0f : wv[i] / (1 - p), 1e-5) << "element " << i;
  manual_seed(7);
  EXPECT_EQ(dropout(x.detach(), p, true).to_vector<float>(), yv);  // the seed decides
  EXPECT_TRUE(dropout(x, p, false).is_same(x));
  EXPECT_EQ(dropout(zeros({0, 4}), p, true).shape(), Shape({0, 4}));
  // PyTorch's ends: p = 0 keeps the input, p = 1 drops every element and every gradient.
  EXPECT_TRUE(dropout(x, 0.0, true).is_same(x));
  Tensor z = x.detach().requires_grad_();
  const Tensor all = dropout(z, 1.0, true);
  EXPECT_EQ(all.to_vector<float>(), std::vector<float>(xv.size(), 0.0f));
  all.sum().backward();
  EXPECT_EQ(z.grad().to_vector<float>(), std::vector<float>(xv.size(), 0.0f));
}

}  // namespace
}  // namespace torchlet
