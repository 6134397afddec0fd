// Issue 14 item 10: randint, randperm, the in-place normal_/uniform_/bernoulli_, nn::init and
// the layers' default initialisation, tested statistically with bounds that a wrong
// distribution cannot meet (means and standard deviations within 5 standard errors, the exact
// bounds of uniform draws, orthogonality to float precision).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "testing.h"

namespace torchlet {
namespace {

struct Stats {
  double mean, std, min, max;
};

Stats stats_of(const Tensor& t) {
  const std::vector<float> v = t.to_vector<float>();
  const double n = static_cast<double>(v.size());
  double sum = 0.0, sq = 0.0;
  for (float x : v) sum += x;
  const double mean = sum / n;
  for (float x : v) sq += (x - mean) * (x - mean);
  return {mean, std::sqrt(sq / (n - 1)), *std::min_element(v.begin(), v.end()),
          *std::max_element(v.begin(), v.end())};
}

// Mean and standard deviation of n normal draws within 5 standard errors of (mean, std).
void expect_normal(const Tensor& t, double mean, double std) {
  const double n = static_cast<double>(t.numel());
  const Stats s = stats_of(t);
  EXPECT_NEAR(s.mean, mean, 5 * std / std::sqrt(n));
  EXPECT_NEAR(s.std, std, 5 * std / std::sqrt(2 * n));
}

// n uniform draws on [-bound, bound): inside it, reaching near both ends, with U's moments.
void expect_uniform(const Tensor& t, double low, double high) {
  const double n = static_cast<double>(t.numel()), width = high - low;
  const Stats s = stats_of(t);
  EXPECT_GE(s.min, low);
  EXPECT_LT(s.max, high);
  EXPECT_LT(s.min, low + 20 * width / n);  // fails with probability e^-20
  EXPECT_GT(s.max, high - 20 * width / n);
  EXPECT_NEAR(s.mean, (low + high) / 2, 5 * width / std::sqrt(12 * n));
  EXPECT_NEAR(s.std, width / std::sqrt(12.0), 5 * width / std::sqrt(12.0) / std::sqrt(n));
}

TEST(Random, InPlaceDrawsHaveTheirDistributions) {
  manual_seed(1);
  Tensor t = empty({200, 500});
  expect_normal(t.normal_(2.0, 3.0), 2.0, 3.0);
  expect_uniform(t.uniform_(-2.0, 5.0), -2.0, 5.0);
  t.bernoulli_(0.3);
  const std::vector<float> v = t.to_vector<float>();
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](float x) { return x == 0.0f || x == 1.0f; }));
  EXPECT_NEAR(stats_of(t).mean, 0.3, 5 * std::sqrt(0.21 / 1e5));
  // A view is filled in place, its base's other elements untouched.
  Tensor base = zeros({4, 6});
  base.narrow(1, 2, 3).fill_(7.0).normal_();
  const std::vector<float> b = base.to_vector<float>();
  for (int i = 0; i < 24; ++i) {
    if (i % 6 < 2 || i % 6 > 4) {
      EXPECT_EQ(b[i], 0.0f);
    }
  }
  EXPECT_NE(b[2], 7.0f);
  EXPECT_EQ(testing::error_of([] { zeros({2}, kInt64).normal_(); }),
            "normal_: Expected a float32 or float64 tensor, but got dtype int64");
  EXPECT_EQ(testing::error_of([] { zeros({2}).bernoulli_(1.5); }),
            "bernoulli_: Expected a probability p between 0 and 1, but got p = 1.5");
}

TEST(Random, ManualSeedRepeatsEveryDraw) {
  auto draw = [](uint64_t seed) {
    manual_seed(seed);
    Tensor t = empty({50});
    std::vector<float> out = t.normal_().to_vector<float>();
    for (float x : t.uniform_().to_vector<float>()) out.push_back(x);
    for (float x : t.bernoulli_().to_vector<float>()) out.push_back(x);
    for (int64_t x : randint(100, {50}).to_vector<int64_t>()) out.push_back(float(x));
    for (int64_t x : randperm(50).to_vector<int64_t>()) out.push_back(float(x));
    return out;
  };
  EXPECT_EQ(draw(7), draw(7));
  EXPECT_NE(draw(7), draw(8));
}

TEST(Random, RandintIsUniformOverItsRange) {
  manual_seed(3);
  const Tensor t = randint(3, 10, {70000});
  EXPECT_EQ(t.dtype(), kInt64);
  std::vector<int64_t> counts(7, 0);
  for (int64_t x : t.to_vector<int64_t>()) {
    ASSERT_GE(x, 3);
    ASSERT_LT(x, 10);
    ++counts[x - 3];
  }
  for (int64_t c : counts) EXPECT_NEAR(c, 10000, 5 * std::sqrt(10000 * 6.0 / 7));
  EXPECT_EQ(randint(5, {2, 3}, kFloat32).dtype(), kFloat32);
  EXPECT_EQ(randint(5, {2, 3}).shape(), Shape({2, 3}));
  EXPECT_EQ(testing::error_of([] { randint(4, 4, {1}); }),
            "randint: Expected low < high, but got low 4 and high 4");
}

TEST(Random, RandpermIsAPermutationInRandomOrder) {
  manual_seed(4);
  std::vector<int64_t> p = randperm(1000).to_vector<int64_t>();
  // Where 0 lands, over many permutations, is uniform: check the first element's mean.
  double first_sum = 0.0;
  for (int i = 0; i < 400; ++i) first_sum += double(randperm(100).to_vector<int64_t>()[0]);
  EXPECT_NEAR(first_sum / 400, 49.5, 5 * 28.87 / std::sqrt(400.0));
  int fixed = 0;
  for (int64_t i = 0; i < 1000; ++i) fixed += p[i] == i;
  EXPECT_LT(fixed, 10);  // a random permutation has about 1 fixed point
  std::sort(p.begin(), p.end());
  std::vector<int64_t> want(1000);
  std::iota(want.begin(), want.end(), 0);
  EXPECT_EQ(p, want);
  EXPECT_EQ(randperm(0).numel(), 0);
}

TEST(NnInit, GainsAndFansArePyTorchs) {
  EXPECT_EQ(nn::init::calculate_gain("linear"), 1.0);
  EXPECT_EQ(nn::init::calculate_gain("conv_transpose2d"), 1.0);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("tanh"), 5.0 / 3.0);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("relu"), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("leaky_relu"), std::sqrt(2.0 / (1 + 1e-4)));
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("leaky_relu", 0.2), std::sqrt(2.0 / 1.04));
  EXPECT_EQ(nn::init::calculate_gain("selu"), 0.75);
  EXPECT_EQ(nn::init::calculate_fan_in_and_fan_out(zeros({8, 3, 5, 2})),
            std::make_pair(int64_t{30}, int64_t{80}));
  EXPECT_EQ(testing::error_of([] { nn::init::calculate_fan_in_and_fan_out(zeros({4})); }),
            "init: Expected a tensor of at least 2 dimensions to compute fan in and fan out, but "
            "got shape [4]");
  EXPECT_NE(testing::error_of([] { nn::init::calculate_gain("swish"); }).find("but got 'swish'"),
            std::string::npos);
}

TEST(NnInit, KaimingAndXavierDrawWithTheirBounds) {
  manual_seed(5);
  Tensor w = empty({256, 128, 3}).set_requires_grad(true);  // fan_in 384, fan_out 768
  const double relu_gain = std::sqrt(2.0);
  nn::init::kaiming_uniform_(w, 0.0, "fan_in", "relu");
  expect_uniform(w, -relu_gain * std::sqrt(3.0 / 384), relu_gain * std::sqrt(3.0 / 384));
  nn::init::kaiming_uniform_(w, std::sqrt(5.0));  // Linear's: bound 1 / sqrt(fan_in)
  expect_uniform(w, -1 / std::sqrt(384.0), 1 / std::sqrt(384.0));
  nn::init::kaiming_normal_(w, 0.0, "fan_out", "relu");
  expect_normal(w, 0.0, relu_gain / std::sqrt(768.0));
  nn::init::xavier_uniform_(w, 2.0);
  expect_uniform(w, -2 * std::sqrt(6.0 / 1152), 2 * std::sqrt(6.0 / 1152));
  nn::init::xavier_normal_(w);
  expect_normal(w, 0.0, std::sqrt(2.0 / 1152));
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
  nn::init::constant_(w, 0.25);
  EXPECT_EQ(stats_of(w).min, 0.25);
  EXPECT_EQ(stats_of(w).max, 0.25);
  EXPECT_EQ(stats_of(nn::init::ones_(w)).min, 1.0);
  EXPECT_EQ(stats_of(nn::init::zeros_(w)).max, 0.0);
  EXPECT_EQ(testing::error_of([&] { nn::init::kaiming_normal_(w, 0.0, "fan_avg"); }),
            "init: Expected mode 'fan_in' or 'fan_out', but got 'fan_avg'");
}

// Q Q^T (rows orthonormal) or Q^T Q (columns) equals gain^2 I.
void expect_orthogonal(const Tensor& q2d, double gain) {
  const bool wide = q2d.size(0) < q2d.size(1);
  const Tensor gram = wide ? matmul(q2d, q2d.t()) : matmul(q2d.t(), q2d);
  const int64_t n = gram.size(0);
  const std::vector<float> g = gram.to_vector<float>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) EXPECT_NEAR(g[i * n + j], i == j ? gain * gain : 0.0, 1e-5);
}

TEST(NnInit, OrthogonalGivesOrthonormalRowsOrColumns) {
  manual_seed(6);
  for (const Shape& shape : {Shape{12, 5}, Shape{5, 12}, Shape{7, 7}, Shape{4, 2, 3}}) {
    SCOPED_TRACE(::testing::PrintToString(shape.vec()));
    Tensor w = empty(shape).set_requires_grad(true);
    nn::init::orthogonal_(w);
    expect_orthogonal(w.reshape({shape[0], -1}), 1.0);
    nn::init::orthogonal_(w, 2.0);
    expect_orthogonal(w.reshape({shape[0], -1}), 2.0);
  }
  // Random: two draws differ, and the entries of a large Q spread as 1 / sqrt(n) does.
  Tensor a = empty({64, 64}), b = empty({64, 64});
  nn::init::orthogonal_(a);
  nn::init::orthogonal_(b);
  EXPECT_NE(a.to_vector<float>(), b.to_vector<float>());
  expect_normal(a, 0.0, 1.0 / 8.0);
}

TEST(NnInit, LayersStartAsPyTorchs) {
  manual_seed(7);
  nn::Conv1d conv1d(4, 64, 3);  // fan_in 12
  expect_uniform(conv1d.weight, -1 / std::sqrt(12.0), 1 / std::sqrt(12.0));
  expect_uniform(conv1d.bias, -1 / std::sqrt(12.0), 1 / std::sqrt(12.0));
  // The transposed weight [in, out, kh, kw]: PyTorch's fan_in is out * kh * kw = 144, not 27.
  nn::ConvTranspose2d deconv(3, 16, 3);
  expect_uniform(deconv.weight, -1 / 12.0, 1 / 12.0);
  EXPECT_LE(stats_of(deconv.bias).max, 1 / 12.0);
  EXPECT_GE(stats_of(deconv.bias).min, -1 / 12.0);
  nn::Embedding embedding(1000, 16, -1);
  EXPECT_EQ(embedding.padding_idx, 999);
  expect_normal(embedding.weight.narrow(0, 0, 999), 0.0, 1.0);
  for (float x : embedding.weight[999].to_vector<float>()) EXPECT_EQ(x, 0.0f);
  nn::GroupNorm norm(2, 6);
  EXPECT_EQ(norm.weight.to_vector<float>(), std::vector<float>(6, 1.0f));
  EXPECT_EQ(norm.bias.to_vector<float>(), std::vector<float>(6, 0.0f));
}

}  // namespace
}  // namespace torchlet
