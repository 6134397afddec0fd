// float64 (kFloat64, kDouble): PyTorch's type promotion and the result dtypes of ops on mixed
// operands, 0-dim operands and the maths of integer and bool tensors (tests/fixtures/
// ops_golden.json "promotion", from torch.promote_types and torch.result_type), item<double>
// and to(dtype) round trips, the factories, autograd across dtypes, Module::to(kFloat64),
// optimizer state following its parameters' dtype, a converted model trained end to end, and the
// refusals.
#include <cmath>
#include <limits>
#include <map>

#include "ops_golden.h"
#include "testing.h"

namespace torchlet {
namespace {

using nlohmann::json;
using testing::all_close;

DType parse_dtype(const std::string& name) {
  for (DType d : {kBool, kInt64, kFloat32, kFloat64})
    if (name == dtype_name(d)) return d;
  ADD_FAILURE() << "unknown dtype " << name;
  return kFloat32;
}

const json& promotion() { return testing::ops_golden()["promotion"]; }

TEST(Float64, PromoteTypesMatchesPyTorch) {
  ASSERT_EQ(promotion()["promote_types"].size(), 16u);
  for (const json& row : promotion()["promote_types"]) {
    const DType a = parse_dtype(row[0]), b = parse_dtype(row[1]);
    EXPECT_EQ(promote_types(a, b), parse_dtype(row[2])) << a << " with " << b;
  }
}

// The operand of a row: ones of that dtype (a 0-dim one for `one_of`), or a Python-style
// scalar ("bool", "int", "float").
Tensor ones_of(const std::string& dtype) { return ones({3}, parse_dtype(dtype)); }
Tensor one_of(const std::string& dtype) { return ones({}, parse_dtype(dtype)); }

// The unary rows: the function of that name.
const std::map<std::string, Tensor (*)(const Tensor&)>& unary_functions() {
  static const std::map<std::string, Tensor (*)(const Tensor&)> table = {
      {"neg", neg},     {"abs", abs},
      {"sign", sign},   {"exp", exp},
      {"log", log},     {"sqrt", sqrt},
      {"rsqrt", rsqrt}, {"sigmoid", sigmoid},
      {"tanh", tanh},   {"erf", erf},
      {"sin", sin},     {"reciprocal", reciprocal},
      {"silu", silu},   {"gelu", [](const Tensor& x) { return gelu(x); }}};
  return table;
}

// The dtype name of the row's result, or "error" where torchlet refuses it.
std::string run_op(const std::string& a, const std::string& op, const std::string& b) {
  auto result = [&]() -> Tensor {
    if (op == "mul") return ones_of(a) * ones_of(b);
    if (op == "div") return ones_of(a) / ones_of(b);
    if (op == "eq") return ones_of(a) == ones_of(b);
    if (op == "where") return where(ones_of("bool"), ones_of(a), ones_of(b));
    if (op == "mul_0dim") {
      const Tensor ab = ones_of(a) * one_of(b), ba = one_of(b) * ones_of(a);
      EXPECT_EQ(ab.dtype(), ba.dtype()) << a << " and 0-dim " << b << " in either order";
      return ab;
    }
    if (op == "0dim_mul_0dim") return one_of(a) * one_of(b);
    if (op == "where_0dim") return where(ones_of("bool"), ones_of(a), one_of(b));
    if (op == "result_type_0dim") return ones({1}, result_type(ones_of(a), one_of(b)));
    if (op == "sum") return ones_of(a).sum();
    if (unary_functions().count(op)) return unary_functions().at(op)(ones_of(a));
    if (b == "bool") return ones_of(a) * true;
    if (b == "int") return ones_of(a) * 2;
    return ones_of(a) * 2.5;
  };
  try {
    return dtype_name(result().dtype());
  } catch (const Error&) {
    return "error";
  }
}

TEST(Float64, ResultDtypesOfMixedOperandsMatchPyTorch) {
  // Per dtype: 8 ops with each dtype, 3 scalars, sum, 14 functions of one tensor.
  ASSERT_EQ(promotion()["ops"].size(), 4u * (4 * 8 + 3 + 1 + 14));
  for (const json& row : promotion()["ops"]) {
    const std::string a = row[0], op = row[1], b = row[2];
    EXPECT_EQ(run_op(a, op, b), row[3].get<std::string>()) << a << " " << op << " " << b;
  }
}

TEST(Float64, AZeroDimTensorPromotesOnlyAcrossCategories) {
  const Tensor x = tensor({1.5f, 2.5f});
  const Tensor y = x * full({}, 2.0, kFloat64);  // float32, as in PyTorch
  EXPECT_EQ(y.dtype(), kFloat32);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{3.0f, 5.0f}));
  EXPECT_EQ((tensor({1, 2}) * full({}, 0.5, kFloat64)).dtype(), kFloat64);  // int64 -> float64
  EXPECT_EQ(result_type(tensor({1, 2}), 0.5), kFloat32);
  EXPECT_EQ(result_type(ones({2}, kBool), 3), kInt64);
  // The gradient goes back to the 0-dim operand in its own dtype.
  const Tensor s = full({}, 3.0, kFloat64).requires_grad_();
  (x * s).sum().backward();
  EXPECT_EQ(s.grad().dtype(), kFloat64);
  EXPECT_EQ(s.grad().item<double>(), 4.0);
}

TEST(Float64, FloatMathsOfIntegerAndBoolTensorsRunInFloat32) {
  const Tensor e = exp(tensor({0, 1}));
  EXPECT_EQ(e.dtype(), kFloat32);
  EXPECT_EQ(e.to_vector<float>(), (std::vector<float>{1.0f, std::exp(1.0f)}));
  EXPECT_EQ(sqrt(tensor({4, 9})).to_vector<float>(), (std::vector<float>{2, 3}));
  EXPECT_EQ(sigmoid(tensor({1, 0}).to(kBool)).to_vector<float>(),
            (std::vector<float>{1 / (1 + std::exp(-1.0f)), 0.5f}));
  EXPECT_EQ(abs(tensor({-3, 2})).to_vector<int64_t>(), (std::vector<int64_t>{3, 2}));
  const Tensor mask = tensor({1, 0}).to(kBool);
  EXPECT_EQ(sign(mask).dtype(), kBool);
  EXPECT_EQ(sign(mask).to_vector<bool>(), (std::vector<bool>{true, false}));
  EXPECT_EQ(testing::error_of([&] { -mask; }),
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
            "invert a mask, use the `~` or `logical_not()` operator instead.");
  EXPECT_EQ(testing::error_of([&] { abs(mask); }),
            "abs: Expected a float32, float64 or int64 tensor, but got bool");
  EXPECT_EQ(testing::error_of([] {
              gelu(tensor({1, 2}));
            }),
            "gelu: Expected a float32 or float64 tensor, but got int64 (convert it with "
            ".to(kFloat32))");
}

TEST(Float64, DtypePropertiesAndPrinting) {
  EXPECT_EQ(kDouble, kFloat64);
  EXPECT_EQ(element_size(kFloat64), 8u);
  EXPECT_TRUE(is_floating_point(kFloat64));
  EXPECT_EQ(std::string(dtype_name(kFloat64)), "float64");
  EXPECT_EQ(dtype_of<double>(), kFloat64);
  const Tensor t = tensor(std::vector<double>{0.25, -1.5});
  EXPECT_EQ(t.dtype(), kFloat64);
  EXPECT_EQ(t.str(), "tensor([0.25, -1.5], shape=[2], dtype=float64, device=cpu)");
}

TEST(Float64, ItemAndToRoundTripsAreExact) {
  const double third = 1.0 / 3.0, tiny = 1e-300, big = 0x1p60 + 0x1p8;
  const Tensor t = tensor(std::vector<double>{third, tiny, big});
  EXPECT_EQ(t[0].item<double>(), third);  // not float32's 1/3
  EXPECT_NE(t[0].item<double>(), static_cast<double>(static_cast<float>(third)));
  EXPECT_EQ(t.to(kFloat32).to_vector<float>(),
            (std::vector<float>{static_cast<float>(third), 0.0f, static_cast<float>(big)}));
  EXPECT_EQ(t.to(kFloat32).to(kFloat64)[0].item<double>(), static_cast<float>(third));
  EXPECT_EQ(t.to(kInt64)[2].item<int64_t>(), static_cast<int64_t>(big));
  EXPECT_EQ(tensor(std::vector<int64_t>{int64_t{1} << 52}).to(kFloat64).item<double>(), 0x1p52);
  EXPECT_EQ(tensor({0.1f}).to(kFloat64).item<double>(), static_cast<double>(0.1f));
  EXPECT_EQ(t.to(kBool).to_vector<bool>(), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(t.to_vector<double>(), (std::vector<double>{third, tiny, big}));
}

TEST(Float64, FactoriesTakeTheDtype) {
  EXPECT_EQ(zeros({2}, kFloat64).to_vector<double>(), (std::vector<double>{0, 0}));
  EXPECT_EQ(full({1}, 0.1, kFloat64).item<double>(), 0.1);  // not 0.1f
  EXPECT_EQ(arange(3, kFloat64).to_vector<double>(), (std::vector<double>{0, 1, 2}));
  manual_seed(7);
  const std::vector<double> u = rand({1000}, kFloat64).to_vector<double>();
  int finer = 0;  // draws that float32 could not hold
  for (double v : u) {
    EXPECT_TRUE(v >= 0.0 && v < 1.0);
    finer += v != static_cast<double>(static_cast<float>(v));
  }
  EXPECT_GT(finer, 990);
  EXPECT_EQ(randn({4}, kFloat64).dtype(), kFloat64);
  Tensor p = zeros({3}, kFloat64);
  p.normal_(0.0, 1.0);
  EXPECT_EQ(p.dtype(), kFloat64);
}

TEST(Float64, GradientsTakeEachLeafsDtype) {
  // A float32 leaf used in a float64 graph gets a float32 gradient, as in PyTorch.
  Tensor x = tensor({1.5f, -2.0f});
  Tensor y = tensor(std::vector<double>{0.1, 0.2});
  x.set_requires_grad(true);
  y.set_requires_grad(true);
  const Tensor z = x * y;
  EXPECT_EQ(z.dtype(), kFloat64);
  z.sum().backward();
  EXPECT_EQ(x.grad().dtype(), kFloat32);
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{0.1f, 0.2f}));
  EXPECT_EQ(y.grad().dtype(), kFloat64);
  EXPECT_EQ(y.grad().to_vector<double>(), (std::vector<double>{1.5, -2.0}));
  // to(kFloat64) is differentiable and hands back a float32 gradient.
  Tensor w = tensor({3.0f});
  w.set_requires_grad(true);
  (w.to(kFloat64) * 0.1).sum().backward();
  EXPECT_EQ(w.grad().dtype(), kFloat32);
  EXPECT_EQ(w.grad().item<float>(), 0.1f);
}

TEST(Float64, ModuleToFloat64ConvertsParametersAndRunsInDouble) {
  manual_seed(3);
  nn::Linear layer(4, 2);
  const std::vector<float> before = layer.parameters()[0].to_vector<float>();
  const Tensor held = layer.parameters()[0];  // handles held elsewhere see the conversion
  layer.to(kFloat64);
  EXPECT_EQ(held.dtype(), kFloat64);
  const std::vector<double> after = held.to_vector<double>();
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_EQ(after[i], before[i]);
  const Tensor x = tensor(std::vector<double>{0.1, 0.2, 0.3, 0.4}, {1, 4});
  const Tensor y = layer.forward(x);
  EXPECT_EQ(y.dtype(), kFloat64);
  const Tensor want = matmul(x, held.t()) + layer.parameters()[1];
  EXPECT_EQ(y.to_vector<double>(), want.to_vector<double>());
  y.sum().backward();
  EXPECT_EQ(held.grad().dtype(), kFloat64);
  layer.to(kFloat32);
  EXPECT_EQ(held.dtype(), kFloat32);
  EXPECT_EQ(held.grad().dtype(), kFloat32);
}

TEST(Float64, MixedAndUnsupportedDtypesSayWhatTheyExpect) {
  const Tensor image = zeros({1, 1, 3, 3}, kFloat64), kernel = zeros({1, 1, 2, 2});
  EXPECT_EQ(testing::error_of([&] { conv2d(image, kernel); }),
            "conv2d: Expected argument 'weight' to have dtype float64, but got float32");
  EXPECT_EQ(testing::error_of([] { optim::SGD({zeros({2}, kInt64)}, 0.1); }),
            "Optimizer: Expected float32 or float64 leaf tensors as parameters, but parameter 0 "
            "is not (a leaf of dtype int64)");
  EXPECT_EQ(testing::error_of([] {
              matmul(zeros({2, 2}, kFloat64), zeros({2, 2}));
            }),
            "matmul: Expected argument 'other' to have dtype float64, but got float32");
  EXPECT_EQ(testing::error_of([] { nn::Linear(2, 2).to(kInt64); }),
            "Module::to: Expected dtype float32 or float64, but got int64");
}

// A PyTorch user's model.to(torch.float64) program: a small CNN (Conv2d, BatchNorm2d, ReLU,
// MaxPool2d, Dropout, Flatten, Linear) whose optimizer was made before the conversion, trained
// with AdamW, StepLR and clip_grad_norm_ on a fixed batch: everything stays float64
// (parameters, gradients, optimizer state, running statistics) and the loss falls.
TEST(Float64, AModelConvertedToFloat64TrainsEndToEnd) {
  manual_seed(11);
  nn::Sequential model(std::make_shared<nn::Conv2d>(1, 4, 3, 1, 1),
                       std::make_shared<nn::BatchNorm2d>(4), std::make_shared<nn::ReLU>(),
                       std::make_shared<nn::MaxPool2d>(2), std::make_shared<nn::Dropout>(0.1),
                       std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(36, 3));
  optim::AdamW opt(model.parameters(), 0.05);
  optim::StepLR scheduler(opt, 10, 0.5);
  model.to(kFloat64);
  const Tensor x = randn({8, 1, 6, 6}).to(kFloat64);
  const Tensor y = randint(0, 3, {8});
  double first = 0.0, last = 0.0;
  for (int step = 0; step < 30; ++step) {
    opt.zero_grad();
    const Tensor loss = cross_entropy(model(x), y);
    ASSERT_EQ(loss.dtype(), kFloat64);
    loss.backward();
    EXPECT_EQ(nn::utils::clip_grad_norm_(model.parameters(), 5.0).dtype(), kFloat64);
    opt.step();
    scheduler.step();
    (step == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_LT(last, 0.25 * first);
  for (const Tensor& p : model.parameters()) {
    EXPECT_EQ(p.dtype(), kFloat64);
    EXPECT_EQ(p.grad().dtype(), kFloat64);
  }
  for (const auto& [name, b] : model.named_buffers())
    EXPECT_EQ(b.dtype(), name.ends_with("num_batches_tracked") ? kInt64 : kFloat64) << name;
  for (const auto& entry : opt.state_dict())
    for (const auto& [key, t] : entry) EXPECT_EQ(t.dtype(), key == "step" ? kInt64 : kFloat64);
}

// Optimizer state made in float32 follows its parameter to float64 (and back) with the model.
TEST(Float64, OptimizerStateFollowsTheParametersDtype) {
  manual_seed(12);
  nn::Linear layer(3, 2);
  optim::SGD opt(layer.parameters(), 0.1, 0.9);
  const auto step = [&](DType dtype) {
    opt.zero_grad();
    layer(ones({4, 3}, dtype)).sum().backward();
    opt.step();
    for (const auto& entry : opt.state_dict())
      EXPECT_EQ(entry.at("momentum_buffer").dtype(), dtype);
  };
  step(kFloat32);  // every gradient element is 4 (four rows of ones): the buffer is 4
  layer.to(kFloat64);
  step(kFloat64);  // carried over, not restarted: 0.9 * 4 + 4
  for (double b : opt.state_dict()[0].at("momentum_buffer").to_vector<double>())
    EXPECT_NEAR(b, 7.6, 1e-12);
  layer.to(kFloat32);
  step(kFloat32);
}

}  // namespace
}  // namespace torchlet
