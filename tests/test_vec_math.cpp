// The CPU's vectorised float32 maths (backends/cpu/vec_math.h, SLEEF) against the scalar
// functions of backends/elementwise.h (the C library's expf, logf ...), on every vector width:
// within 2 ulp over a million values spread across every float bit pattern (denormals, both
// zeros, +-inf, NaN and the largest magnitudes included), NaN exactly where the scalar gives NaN;
// the tail of a run (fewer than a vector) gives what a full vector gives; and the ops built on
// them give the same bits on any thread count. The activations (gelu, silu and their gradients)
// are x times a factor near 0 for large negative x, where 1 + erf(x) cancels: there they are
// allowed the factor's absolute error, a few ulp of 1 times |x| (times 1 + |x| + x^2 for the
// gradients), as PyTorch's formulas have it.
#include <cmath>
#include <cstring>
#include <limits>

#include "backends/cpu/vec_math.h"
#include "testing.h"

namespace torchlet {
namespace {

using backend::BinaryOp;
using backend::UnaryOp;
namespace vm = backend::cpu::vec_math;

bool is_activation(UnaryOp op) {
  return op == UnaryOp::Gelu || op == UnaryOp::GeluTanh || op == UnaryOp::Silu;
}
const std::vector<BinaryOp> kGradientOps = {BinaryOp::GeluBackward, BinaryOp::GeluTanhBackward,
                                            BinaryOp::SiluBackward};

const std::vector<UnaryOp>& vector_ops() {
  static const std::vector<UnaryOp> ops = [] {
    std::vector<UnaryOp> out;
    for (int k = 0; k < backend::kUnaryOps; ++k)
      if (vm::vectorised(static_cast<UnaryOp>(k))) out.push_back(static_cast<UnaryOp>(k));
    return out;
  }();
  return ops;
}

// Every 4093rd bit pattern (both signs, every exponent, denormals), the multiples of 2^-14 in
// [-8, 8] (where the functions' pieces meet: a quarter of a million values) and the edge cases.
std::vector<float> many_values() {
  std::vector<float> x;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 4093) {
    const auto u = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &u, sizeof f);
    x.push_back(f);
  }
  for (int i = -(1 << 17); i <= 1 << 17; ++i) x.push_back(std::ldexp(float(i), -14));
  using L = std::numeric_limits<float>;
  for (float f : {0.0f,
                  -0.0f,
                  L::denorm_min(),
                  -L::denorm_min(),
                  L::min() * 0.999f,
                  L::min(),
                  L::max(),
                  -L::max(),
                  L::infinity(),
                  -L::infinity(),
                  L::quiet_NaN(),
                  88.72f,
                  89.0f,
                  -87.34f,
                  -103.9f,
                  -104.0f,
                  -150.0f,
                  1e30f,
                  2e30f,
                  -1e30f,
                  1.0f,
                  -1.0f,
                  -0.99999994f,
                  0.5f,
                  1e-7f,
                  -1e-7f,
                  9.0f,
                  -9.0f,
                  1e4f,
                  -1e4f})
    x.push_back(f);
  return x;
}

// Floats in order as integers: the ulps between two finite floats (+0 and -0 are 0 apart).
int64_t ordered(float f) {
  int32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  const int64_t magnitude = bits & 0x7fffffff;
  return bits < 0 ? -magnitude : magnitude;
}

// The worst error of got against want over x: in ulps, or 0 where |got - want| <= slack(x);
// NaN where exactly one of them is NaN counts as a mismatch.
struct Worst {
  int64_t ulps = 0, nan_mismatches = 0;
  float x = 0, got = 0, want = 0;
};
template <typename Slack>
Worst worst_error(const std::vector<float>& x, const std::vector<float>& got,
                  const std::vector<float>& want, Slack slack) {
  Worst w;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(want[i]) || std::isnan(got[i])) {
      w.nan_mismatches += std::isnan(want[i]) != std::isnan(got[i]);
      continue;
    }
    if (std::abs(double(got[i]) - double(want[i])) <= slack(x[i])) continue;
    const int64_t ulps = std::abs(ordered(want[i]) - ordered(got[i]));
    if (ulps > w.ulps) w = {ulps, w.nan_mismatches, x[i], got[i], want[i]};
  }
  return w;
}

using Unary = void (*)(UnaryOp, const float*, float*, int64_t);
using Binary = void (*)(BinaryOp, const float*, const float*, float*, int64_t);

void expect_close_to_the_scalar_functions(const char* width, Unary unary, Binary binary) {
  const std::vector<float> x = many_values();
  std::vector<float> y(x.size()), want(x.size());
  for (UnaryOp op : vector_ops()) {
    unary(op, x.data(), y.data(), static_cast<int64_t>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i) want[i] = backend::unary_value(op, x[i]);
    const Worst w = worst_error(x, y, want, [&](float v) {
      return is_activation(op) ? 0x1p-22 * std::abs(double(v)) : 0.0;
    });
    EXPECT_LE(w.ulps, 2) << width << " op " << static_cast<int>(op) << " at x = " << w.x << ": "
                         << w.got << " vs " << w.want;
    EXPECT_EQ(w.nan_mismatches, 0) << width << " op " << static_cast<int>(op);
  }
  std::vector<float> dy(x.size());  // a gradient in [-2, 2), never 0
  for (std::size_t i = 0; i < x.size(); ++i) dy[i] = 0.25f * float(i % 16) - 1.9375f;
  for (BinaryOp op : kGradientOps) {
    binary(op, x.data(), dy.data(), y.data(), static_cast<int64_t>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i) want[i] = backend::binary_value(op, x[i], dy[i]);
    const Worst w = worst_error(x, y, want, [](float v) {
      const double a = std::abs(double(v));
      return 0x1p-22 * (1.0 + a + a * a);  // |dy| < 2
    });
    EXPECT_LE(w.ulps, 4) << width << " gradient op " << static_cast<int>(op) << " at x = " << w.x
                         << ": " << w.got << " vs " << w.want;
    EXPECT_EQ(w.nan_mismatches, 0) << width << " gradient op " << static_cast<int>(op);
  }
}

TEST(VecMath, SixteenLanesAreWithinTwoUlpOfTheScalarFunctions) {
  if (!vm::has_avx512()) GTEST_SKIP() << "this CPU has no AVX-512F and FMA";
  expect_close_to_the_scalar_functions("avx512", vm::unary_avx512, vm::binary_avx512);
}

TEST(VecMath, EightLanesAreWithinTwoUlpOfTheScalarFunctions) {
  if (!vm::has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  expect_close_to_the_scalar_functions("avx2", vm::unary_avx2, vm::binary_avx2);
}

TEST(VecMath, FourLanesAreWithinTwoUlpOfTheScalarFunctions) {
  expect_close_to_the_scalar_functions("sse2", vm::unary_sse2, vm::binary_sse2);
}

TEST(VecMath, ShortRunsGiveWhatWholeVectorsGive) {
  std::vector<float> x(29);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.37f * static_cast<float>(i) - 5.0f;
  for (UnaryOp op : vector_ops()) {
    std::vector<float> whole(x.size()), piece(x.size());
    vm::unary(op, x.data(), whole.data(), static_cast<int64_t>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i)  // one element a call: all tail
      vm::unary(op, x.data() + i, piece.data() + i, 1);
    EXPECT_EQ(std::memcmp(piece.data(), whole.data(), x.size() * sizeof(float)), 0)
        << "op " << static_cast<int>(op);  // bit for bit, NaNs too
  }
  std::vector<float> dy(x.size(), 0.75f);
  for (BinaryOp op : kGradientOps) {
    std::vector<float> whole(x.size()), piece(x.size());
    vm::binary(op, x.data(), dy.data(), whole.data(), static_cast<int64_t>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i)
      vm::binary(op, x.data() + i, dy.data() + i, piece.data() + i, 1);
    EXPECT_EQ(std::memcmp(piece.data(), whole.data(), x.size() * sizeof(float)), 0)
        << "gradient op " << static_cast<int>(op);
  }
}

TEST(VecMath, OpsGiveTheSameBitsOnAnyThreadCount) {
  const int saved = get_num_threads();
  manual_seed(3);
  const Tensor x = randn({100003}) * 4.0, positive = x.abs();  // no NaN: NaN != NaN
  std::vector<std::vector<float>> runs;
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    for (const Tensor& y : {exp(x), log(positive), positive.log1p(), expm1(x), sigmoid(x), tanh(x),
                            erf(x), sin(x), cos(x), gelu(x), silu(x), softplus(x)})
      runs.push_back(y.to_vector<float>());
  }
  set_num_threads(saved);
  const std::size_t per_run = runs.size() / 3;
  for (std::size_t i = 0; i < per_run; ++i) {
    EXPECT_EQ(runs[i], runs[per_run + i]) << "op " << i << ", 1 and 2 threads";
    EXPECT_EQ(runs[i], runs[2 * per_run + i]) << "op " << i << ", 1 and 3 threads";
  }
}

}  // namespace
}  // namespace torchlet
