// The conformance table of the elementwise ops: every row runs forward and backward against
// PyTorch's numbers (tests/fixtures/ops_golden.json, made by make_ops_golden.py), against a plain
// double-precision reference on awkward shapes (empty, one element, a non-contiguous view, more
// than 65,535 rows), and against central finite differences.
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <numbers>

#include "conformance.h"
#include "ops_golden.h"
#include "testing.h"

namespace torchlet {
namespace {

using nlohmann::json;
using testing::all_close;

// One unary row: torchlet's op and a plain reference for one element.
struct UnaryRow {
  std::function<Tensor(const Tensor&)> op;
  std::function<double(double)> reference;
};

double gelu_ref(double x) { return 0.5 * x * (1 + std::erf(x / std::numbers::sqrt2)); }
double gelu_tanh_ref(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
}
double sigmoid_ref(double x) { return 1 / (1 + std::exp(-x)); }
double softplus_ref(double x, double beta, double threshold) {
  return beta * x > threshold ? x : std::log1p(std::exp(beta * x)) / beta;
}

const std::map<std::string, UnaryRow>& unary_rows() {
  static const std::map<std::string, UnaryRow> rows = {
      {"exp", {[](const Tensor& x) { return exp(x); }, [](double x) { return std::exp(x); }}},
      {"log", {[](const Tensor& x) { return log(x); }, [](double x) { return std::log(x); }}},
      {"log1p",
       {[](const Tensor& x) { return x.log1p(); }, [](double x) { return std::log1p(x); }}},
      {"expm1", {[](const Tensor& x) { return expm1(x); }, [](double x) { return std::expm1(x); }}},
      {"sqrt", {[](const Tensor& x) { return x.sqrt(); }, [](double x) { return std::sqrt(x); }}},
      {"rsqrt",
       {[](const Tensor& x) { return rsqrt(x); }, [](double x) { return 1 / std::sqrt(x); }}},
      {"abs", {[](const Tensor& x) { return x.abs(); }, [](double x) { return std::abs(x); }}},
      {"neg", {[](const Tensor& x) { return -x; }, [](double x) { return -x; }}},
      {"sign",
       {[](const Tensor& x) { return sign(x); }, [](double x) { return (x > 0) - (x < 0); }}},
      {"sigmoid", {[](const Tensor& x) { return x.sigmoid(); }, sigmoid_ref}},
      {"tanh", {[](const Tensor& x) { return tanh(x); }, [](double x) { return std::tanh(x); }}},
      {"erf", {[](const Tensor& x) { return erf(x); }, [](double x) { return std::erf(x); }}},
      {"sin", {[](const Tensor& x) { return sin(x); }, [](double x) { return std::sin(x); }}},
      {"cos", {[](const Tensor& x) { return x.cos(); }, [](double x) { return std::cos(x); }}},
      {"tan", {[](const Tensor& x) { return tan(x); }, [](double x) { return std::tan(x); }}},
      {"reciprocal",
       {[](const Tensor& x) { return reciprocal(x); }, [](double x) { return 1 / x; }}},
      {"relu", {[](const Tensor& x) { return relu(x); }, [](double x) { return x > 0 ? x : 0; }}},
      {"gelu", {[](const Tensor& x) { return gelu(x); }, gelu_ref}},
      {"gelu_tanh", {[](const Tensor& x) { return gelu(x, "tanh"); }, gelu_tanh_ref}},
      {"silu",
       {[](const Tensor& x) { return silu(x); }, [](double x) { return x * sigmoid_ref(x); }}},
      {"leaky_relu",
       {[](const Tensor& x) { return leaky_relu(x, 0.1); },
        [](double x) { return x > 0 ? x : 0.1 * x; }}},
      {"elu",
       {[](const Tensor& x) { return elu(x); },
        [](double x) { return x > 0 ? x : std::expm1(x); }}},
      {"softplus",
       {[](const Tensor& x) { return softplus(x); },
        [](double x) { return softplus_ref(x, 1, 20); }}},
      {"softplus_beta",
       {[](const Tensor& x) { return softplus(x, 2.0, 3.0); },
        [](double x) { return softplus_ref(x, 2, 3); }}},
      {"clamp",
       {[](const Tensor& x) { return clamp(x, -0.5, 0.5); },
        [](double x) { return std::clamp(x, -0.5, 0.5); }}},
      {"clamp_min",
       {[](const Tensor& x) { return x.clamp_min(-0.5); },
        [](double x) { return std::max(x, -0.5); }}},
      {"clamp_max",
       {[](const Tensor& x) { return clamp_max(x, 0.5); },
        [](double x) { return std::min(x, 0.5); }}},
      {"pow_2_5",
       {[](const Tensor& x) { return x.pow(2.5); }, [](double x) { return std::pow(x, 2.5); }}},
      {"pow_3", {[](const Tensor& x) { return pow(x, 3); }, [](double x) { return x * x * x; }}},
      {"rpow_2",
       {[](const Tensor& x) { return pow(2.0, x); }, [](double x) { return std::exp2(x); }}},
      {"add_scalar", {[](const Tensor& x) { return x + 1.5; }, [](double x) { return x + 1.5; }}},
      {"rsub_scalar", {[](const Tensor& x) { return 1.5 - x; }, [](double x) { return 1.5 - x; }}},
      {"mul_scalar", {[](const Tensor& x) { return x * -2.5; }, [](double x) { return x * -2.5; }}},
      {"div_scalar", {[](const Tensor& x) { return x / 4.0; }, [](double x) { return x / 4.0; }}},
      {"rdiv_scalar", {[](const Tensor& x) { return 2.0 / x; }, [](double x) { return 2.0 / x; }}},
  };
  return rows;
}

struct BinaryRow {
  std::function<Tensor(const Tensor&, const Tensor&)> op;
  std::function<double(double, double)> reference;
};

const std::map<std::string, BinaryRow>& binary_rows() {
  static const std::map<std::string, BinaryRow> rows = {
      {"add", {[](const Tensor& a, const Tensor& b) { return a + b; }, std::plus<double>()}},
      {"sub", {[](const Tensor& a, const Tensor& b) { return a - b; }, std::minus<double>()}},
      {"mul", {[](const Tensor& a, const Tensor& b) { return a * b; }, std::multiplies<double>()}},
      {"div", {[](const Tensor& a, const Tensor& b) { return a / b; }, std::divides<double>()}},
      {"pow",
       {[](const Tensor& a, const Tensor& b) { return pow(a, b); },
        [](double a, double b) { return std::pow(a, b); }}},
      {"maximum",
       {[](const Tensor& a, const Tensor& b) { return maximum(a, b); },
        [](double a, double b) { return std::max(a, b); }}},
      {"minimum",
       {[](const Tensor& a, const Tensor& b) { return a.minimum(b); },
        [](double a, double b) { return std::min(a, b); }}},
  };
  return rows;
}

using testing::floats;
const json& golden() { return testing::ops_golden(); }

// The reference applied elementwise, in double.
std::vector<float> reference_of(const std::function<double(double)>& f,
                                const std::vector<float>& x) {
  std::vector<float> out;
  for (float v : x) out.push_back(static_cast<float>(f(v)));
  return out;
}

CONFORMANCE_TEST(OpsConformance, EveryRowHasPyTorchNumbersAndEveryFixtureARow) {
  std::size_t unary = 0, binary = 0;
  for (const json& e : golden()["unary"]) unary += unary_rows().count(e["name"].get<std::string>());
  for (const json& e : golden()["binary"])
    binary += binary_rows().count(e["name"].get<std::string>());
  EXPECT_EQ(unary, unary_rows().size());
  EXPECT_EQ(unary, golden()["unary"].size());
  EXPECT_EQ(binary, binary_rows().size());
  EXPECT_EQ(binary, golden()["binary"].size());
}

// An op added to torchlet/unary_ops.def fails here until it has a row (and so PyTorch's numbers).
NON_TABLE_TEST(OpsConformance, EveryOpOfUnaryOpsDefHasARow) {
  const char* names[] = {
#define TORCHLET_UNARY(op, name, ...) #name,
#include "torchlet/unary_ops.def"
#undef TORCHLET_UNARY
  };
  for (const char* name : names) EXPECT_TRUE(unary_rows().count(name)) << name << " has no row";
}

CONFORMANCE_TEST(OpsConformance, UnaryForwardAndBackwardMatchPyTorch) {
  for (const json& e : golden()["unary"]) {
    const std::string name = e["name"];
    SCOPED_TRACE(name);
    const UnaryRow& row = unary_rows().at(name);
    Tensor x = tensor(floats(e["x"]), Shape(e["shape"].get<std::vector<int64_t>>()));
    x.set_requires_grad(true);
    Tensor out = row.op(x);
    EXPECT_TRUE(all_close(out.to_vector<float>(), floats(e["out"]), 1e-6, 1e-5));
    (out * tensor(floats(e["w"]), out.shape())).sum().backward();
    EXPECT_TRUE(all_close(x.grad().to_vector<float>(), floats(e["grad"]), 1e-6, 1e-5));
  }
}

CONFORMANCE_TEST(OpsConformance, BinaryForwardAndBackwardMatchPyTorchWithBroadcasting) {
  for (const json& e : golden()["binary"]) {
    const std::string name = e["name"];
    SCOPED_TRACE(name);
    const BinaryRow& row = binary_rows().at(name);
    Tensor a = tensor(floats(e["a"]), {3, 4}), b = tensor(floats(e["b"]), {4});
    a.set_requires_grad(true);
    b.set_requires_grad(true);
    Tensor out = row.op(a, b);
    ASSERT_EQ(out.shape(), Shape({3, 4}));
    EXPECT_TRUE(all_close(out.to_vector<float>(), floats(e["out"]), 1e-6, 1e-5));
    (out * tensor(floats(e["w"]), out.shape())).sum().backward();
    EXPECT_TRUE(all_close(a.grad().to_vector<float>(), floats(e["grad_a"]), 1e-6, 1e-5));
    EXPECT_TRUE(all_close(b.grad().to_vector<float>(), floats(e["grad_b"]), 1e-6, 1e-5));
  }
}

CONFORMANCE_TEST(OpsConformance, UnaryGradientsMatchFiniteDifferences) {
  for (const json& e : golden()["unary"]) {
    const std::string name = e["name"];
    if (name == "sign") continue;  // piecewise constant: its gradient is 0, checked against PyTorch
    const UnaryRow& row = unary_rows().at(name);
    testing::expect_gradients_match([&](const auto& v) { return row.op(v[0]); },
                                    {tensor(floats(e["x"]), {3, 4})}, name, 1e-3, 2e-2);
  }
}

CONFORMANCE_TEST(OpsConformance, BinaryGradientsMatchFiniteDifferences) {
  for (const json& e : golden()["binary"]) {
    const std::string name = e["name"];
    if (name == "maximum" || name == "minimum") continue;  // the fixture's tie has no derivative
    const BinaryRow& row = binary_rows().at(name);
    testing::expect_gradients_match([&](const auto& v) { return row.op(v[0], v[1]); },
                                    {tensor(floats(e["a"]), {3, 4}), tensor(floats(e["b"]), {4})},
                                    name, 1e-3, 2e-2);
  }
}

// float64: every unary and binary row on float64 inputs (ops_golden.json "float64", PyTorch's
// float64 numbers) to 1e-12, against the plain reference to 1e-13, and against central finite
// differences of step 1e-6 to 1e-7.
std::vector<double> doubles(const json& j) { return j.get<std::vector<double>>(); }

CONFORMANCE_TEST(OpsConformance, UnaryRowsInFloat64MatchPyTorchTheReferenceAndFiniteDifferences) {
  const json& entries = golden()["float64"]["unary"];
  ASSERT_EQ(entries.size(), unary_rows().size());
  for (const json& e : entries) {
    const std::string name = e["name"];
    SCOPED_TRACE(name);
    const UnaryRow& row = unary_rows().at(name);
    Tensor x = tensor(doubles(e["x"]), {3, 4});
    x.set_requires_grad(true);
    const Tensor out = row.op(x);
    EXPECT_EQ(out.dtype(), kFloat64);
    EXPECT_TRUE(all_close(out.to_vector<double>(), doubles(e["out"]), 1e-12, 1e-12));
    std::vector<double> want;
    for (double v : doubles(e["x"])) want.push_back(row.reference(v));
    EXPECT_TRUE(all_close(out.to_vector<double>(), want, 1e-13, 1e-13));
    (out * tensor(doubles(e["w"]), out.shape())).sum().backward();
    EXPECT_EQ(x.grad().dtype(), kFloat64);
    EXPECT_TRUE(all_close(x.grad().to_vector<double>(), doubles(e["grad_x"]), 1e-12, 1e-12));
    if (name == "sign") continue;  // piecewise constant
    testing::expect_gradients_match<double>([&](const auto& v) { return row.op(v[0]); },
                                            {tensor(doubles(e["x"]), {3, 4})}, name, 1e-6, 1e-7);
  }
}

CONFORMANCE_TEST(OpsConformance, BinaryRowsInFloat64MatchPyTorchTheReferenceAndFiniteDifferences) {
  const json& entries = golden()["float64"]["binary"];
  ASSERT_EQ(entries.size(), binary_rows().size());
  for (const json& e : entries) {
    const std::string name = e["name"];
    SCOPED_TRACE(name);
    const BinaryRow& row = binary_rows().at(name);
    Tensor a = tensor(doubles(e["a"]), {3, 4}), b = tensor(doubles(e["b"]), {4});
    a.set_requires_grad(true);
    b.set_requires_grad(true);
    const Tensor out = row.op(a, b);
    EXPECT_EQ(out.dtype(), kFloat64);
    EXPECT_TRUE(all_close(out.to_vector<double>(), doubles(e["out"]), 1e-12, 1e-12));
    std::vector<double> want;
    const std::vector<double> av = doubles(e["a"]), bv = doubles(e["b"]);
    for (std::size_t i = 0; i < av.size(); ++i) want.push_back(row.reference(av[i], bv[i % 4]));
    EXPECT_TRUE(all_close(out.to_vector<double>(), want, 1e-13, 1e-13));
    (out * tensor(doubles(e["w"]), out.shape())).sum().backward();
    EXPECT_TRUE(all_close(a.grad().to_vector<double>(), doubles(e["grad_a"]), 1e-12, 1e-12));
    EXPECT_TRUE(all_close(b.grad().to_vector<double>(), doubles(e["grad_b"]), 1e-12, 1e-12));
    testing::expect_gradients_match<double>(
        [&](const auto& v) { return row.op(v[0], v[1]); },
        {tensor(doubles(e["a"]), {3, 4}), tensor(doubles(e["b"]), {4})}, name, 1e-6, 1e-7);
  }
}

// Values inside the fixture's domain of each op, in any number: the fixture's x repeated.
Tensor inputs_like(const json& e, int64_t n) {
  const std::vector<float> x = floats(e["x"]);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = x[i % x.size()];
  return tensor(v, {n});
}

CONFORMANCE_TEST(OpsConformance, UnaryOnAwkwardShapesMatchesThePlainReference) {
  for (const json& e : golden()["unary"]) {
    const std::string name = e["name"];
    SCOPED_TRACE(name);
    const UnaryRow& row = unary_rows().at(name);
    EXPECT_EQ(row.op(zeros({0, 3})).shape(), Shape({0, 3}));
    const Tensor one = inputs_like(e, 1).reshape({});
    EXPECT_TRUE(all_close(row.op(one).to_vector<float>(),
                          reference_of(row.reference, one.to_vector<float>()), 1e-6, 1e-5));
    // A transposed (non-contiguous) view and more rows than a CUDA grid's y dimension holds.
    const Tensor many = inputs_like(e, 70001 * 2).reshape({70001, 2});
    const Tensor view = many.t();
    ASSERT_FALSE(view.is_contiguous());
    const Tensor got = row.op(view);
    EXPECT_TRUE(all_close(got.to_vector<float>(),
                          reference_of(row.reference, view.contiguous().to_vector<float>()), 1e-6,
                          1e-5));
    EXPECT_EQ(got.shape(), Shape({2, 70001}));
  }
}

CONFORMANCE_TEST(OpsConformance, BinaryOnAwkwardShapesMatchesThePlainReference) {
  for (const json& e : golden()["binary"]) {
    const std::string name = e["name"];
    SCOPED_TRACE(name);
    const BinaryRow& row = binary_rows().at(name);
    const std::vector<float> a = floats(e["a"]), b = floats(e["b"]);
    // [70001, 1] against [4]: both broadcast, 280,004 outputs.
    std::vector<float> col(70001);
    for (std::size_t i = 0; i < col.size(); ++i) col[i] = a[i % a.size()];
    const Tensor out = row.op(tensor(col, {70001, 1}), tensor(b, {4}));
    ASSERT_EQ(out.shape(), Shape({70001, 4}));
    std::vector<float> want;
    for (float x : col)
      for (float y : b) want.push_back(static_cast<float>(row.reference(x, y)));
    EXPECT_TRUE(all_close(out.to_vector<float>(), want, 1e-6, 1e-5));
    EXPECT_EQ(row.op(zeros({0, 4}), tensor(b, {4})).shape(), Shape({0, 4}));
  }
}

// The fixture writes special values as Python's str(): "nan", "inf", "-inf", "-0.0".
std::vector<float> special(const json& j) {
  std::vector<float> out;
  for (const json& v : j) out.push_back(std::stof(v.get<std::string>()));
  return out;
}

std::vector<bool> bools(const json& j) { return j.get<std::vector<bool>>(); }

CONFORMANCE_TEST(OpsConformance, ComparisonsAndSpecialValuesMatchPyTorch) {
  const json& s = golden()["special"];
  const Tensor x = tensor(special(s["x"])), y = tensor(special(s["y"]));
  EXPECT_EQ((x == y).to_vector<bool>(), bools(s["eq"]));
  EXPECT_EQ((x != y).to_vector<bool>(), bools(s["ne"]));
  EXPECT_EQ((x < y).to_vector<bool>(), bools(s["lt"]));
  EXPECT_EQ(le(x, y).to_vector<bool>(), bools(s["le"]));
  EXPECT_EQ(x.gt(y).to_vector<bool>(), bools(s["gt"]));
  EXPECT_EQ((x >= y).to_vector<bool>(), bools(s["ge"]));
  EXPECT_EQ(isnan(x).to_vector<bool>(), bools(s["isnan"]));
  EXPECT_EQ(x.isfinite().to_vector<bool>(), bools(s["isfinite"]));
  auto same = [](const std::vector<float>& got, const std::vector<float>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE((std::isnan(got[i]) && std::isnan(want[i])) || got[i] == want[i])
          << "element " << i << ": " << got[i] << " vs " << want[i];
  };
  same(nan_to_num(x).to_vector<float>(), special(s["nan_to_num"]));
  same(nan_to_num(x, 1.0, 2.0, -3.0).to_vector<float>(), special(s["nan_to_num_args"]));
  same(maximum(x, y).to_vector<float>(), special(s["maximum"]));
  same(minimum(x, y).to_vector<float>(), special(s["minimum"]));
  same(sign(x).to_vector<float>(), special(s["sign"]));
  same(sigmoid(x).to_vector<float>(), special(s["sigmoid"]));
}

CONFORMANCE_TEST(OpsConformance, LogicAndWhere) {
  const Tensor p = tensor({1, 0, 1, 0}).to(kBool), q = tensor({1, 1, 0, 0}).to(kBool);
  EXPECT_EQ((p & q).to_vector<bool>(), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(logical_or(p, q).to_vector<bool>(), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ((~p).to_vector<bool>(), (std::vector<bool>{false, true, false, true}));
  // where broadcasts all three operands, and its gradient goes to the branch it took.
  Tensor a = tensor({1.0f, 2.0f, 3.0f, 4.0f}, {2, 2}), b = tensor({-1.0f, -2.0f}, {2});
  a.set_requires_grad(true);
  b.set_requires_grad(true);
  const Tensor cond = tensor({1, 0}).to(kBool);
  Tensor out = where(cond, a, b);
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{1, -2, 3, -2}));
  out.sum().backward();
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{1, 0, 1, 0}));
  EXPECT_EQ(b.grad().to_vector<float>(), (std::vector<float>{0, 2}));
  EXPECT_EQ(masked_fill(a.detach(), cond, -7).to_vector<float>(),
            (std::vector<float>{-7, 2, -7, 4}));
  EXPECT_EQ(where(cond, 5, tensor({0, 0})).to_vector<int64_t>(), (std::vector<int64_t>{5, 0}));
}

CONFORMANCE_TEST(OpsConformance, TypePromotionFollowsPyTorch) {
  const Tensor i = tensor({1, 2, 3});
  EXPECT_EQ((i * 2).dtype(), kInt64);
  EXPECT_EQ((i * 2).to_vector<int64_t>(), (std::vector<int64_t>{2, 4, 6}));
  EXPECT_EQ((i * 2.5).dtype(), kFloat32);
  EXPECT_EQ((i * 2.5).to_vector<float>(), (std::vector<float>{2.5f, 5.0f, 7.5f}));
  EXPECT_EQ((i + tensor({0.5f, 0.5f, 0.5f})).dtype(), kFloat32);
  EXPECT_EQ((i / tensor({2, 2, 2})).to_vector<float>(), (std::vector<float>{0.5f, 1.0f, 1.5f}));
  EXPECT_EQ(pow(i, 2).to_vector<int64_t>(), (std::vector<int64_t>{1, 4, 9}));
  EXPECT_EQ(abs(-i).to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3}));
  const Tensor p = tensor({1, 2, 3}), q = tensor({1, 5, 3});
  const Tensor matches = (p == q).sum();
  EXPECT_EQ(matches.dtype(), kInt64);
  EXPECT_EQ(matches.item<int64_t>(), 2);
  EXPECT_EQ(matches.item<double>(), 2.0);
  EXPECT_EQ(tensor({1, 0}).to(kBool).sum().item<int64_t>(), 1);
  const Tensor t = tensor({1, 1}).to(kBool);
  EXPECT_EQ((t + t).dtype(), kBool);  // bool + bool is "or" in PyTorch
  EXPECT_EQ((t + 1).to_vector<int64_t>(), (std::vector<int64_t>{2, 2}));
}

CONFORMANCE_TEST(OpsConformance, ErrorsNameTheOpAndWhatWasExpected) {
  EXPECT_EQ(
      testing::error_of([] {
        silu(tensor({1, 2}));
      }),
      "silu: Expected a float32 or float64 tensor, but got int64 (convert it with .to(kFloat32))");
  EXPECT_EQ(testing::error_of([] { tensor({1.0f}).mean(); }), "(no error)");
  EXPECT_EQ(testing::error_of([] {
              tensor({1, 2}).mean();
            }),
            "mean: Expected a floating-point tensor (the mean of integers is not one), but got "
            "int64 (convert it with .to(kFloat32))");
  const Tensor t = tensor({1}).to(kBool);
  EXPECT_EQ(testing::error_of([&] { t - t; }),
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
            "or `logical_xor()` operator instead.");
  EXPECT_EQ(testing::error_of([] { where(tensor({1}), tensor({1.0f}), tensor({2.0f})); }),
            "where: Expected argument 'condition' to have dtype bool, but got int64");
  EXPECT_EQ(testing::error_of([] { gelu(tensor({1.0f}), "fast"); }),
            "gelu: Expected approximate 'none' or 'tanh', but got 'fast'");
}

}  // namespace
}  // namespace torchlet
