// Elementwise ops of two operands: arithmetic, pow, maximum/minimum, comparisons and logic,
// between tensors (broadcasting as PyTorch does) and with a Scalar, with PyTorch's type
// promotion. The backward formulas sit beside the forward.
#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

using backend::BinaryOp;

const char* op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "add";
    case BinaryOp::Sub: return "sub";
    case BinaryOp::Mul: return "mul";
    case BinaryOp::Div: return "div";
    case BinaryOp::Eq: return "eq";
    case BinaryOp::Ne: return "ne";
    case BinaryOp::Lt: return "lt";
    case BinaryOp::Le: return "le";
    case BinaryOp::Gt: return "gt";
    case BinaryOp::Ge: return "ge";
    case BinaryOp::Maximum: return "maximum";
    case BinaryOp::Minimum: return "minimum";
    case BinaryOp::Pow: return "pow";
    case BinaryOp::LogicalAnd: return "logical_and";
    case BinaryOp::LogicalOr: return "logical_or";
    case BinaryOp::GeluBackward:
    case BinaryOp::GeluTanhBackward: return "gelu_backward";
    case BinaryOp::SiluBackward: return "silu_backward";
  }
  return "?";
}

// The dtype an op computes in, given its operands' common dtype, and the op itself once bools are
// taken into account: / always divides as floating point (integers in the default float32); on
// two bools + is "or" and * "and" (PyTorch's results), - is refused as PyTorch refuses it.
std::pair<DType, BinaryOp> compute_dtype(BinaryOp op, DType common) {
  if (backend::is_predicate(op)) return {common, op};
  if (op == BinaryOp::Div) return {is_floating_point(common) ? common : kFloat32, op};
  if (common != kBool) return {common, op};
  TORCHLET_CHECK(op != BinaryOp::Sub,
                 "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                 "`^` or `logical_xor()` operator instead.");
  if (op == BinaryOp::Add || op == BinaryOp::Maximum) return {kBool, BinaryOp::LogicalOr};
  if (op == BinaryOp::Mul || op == BinaryOp::Minimum) return {kBool, BinaryOp::LogicalAnd};
  return {kInt64, op};  // pow of bools: computed as int64
}

// d(a op b)/da and /db times g, for the differentiable ops (floating-point operands).
std::pair<Tensor, Tensor> binary_grads(BinaryOp op, const Tensor& g, const Tensor& a,
                                       const Tensor& b, const Tensor& out, bool need_a,
                                       bool need_b) {
  Tensor ga, gb;
  switch (op) {
    case BinaryOp::Add: ga = g, gb = g; break;
    case BinaryOp::Sub: ga = g, gb = need_b ? -g : Tensor(); break;
    case BinaryOp::Mul:
      if (need_a) ga = g * b;
      if (need_b) gb = g * a;
      break;
    case BinaryOp::Div:
      if (need_a) ga = g / b;
      if (need_b) gb = -(g * a) / (b * b);
      break;
    case BinaryOp::Pow:  // PyTorch's masks: no gradient through b == 0, nor a == 0 for b
      if (need_a) ga = where(b == 0, 0.0, g * b * pow(a, b - 1.0));
      if (need_b) gb = where((a == 0) & (b >= 0), 0.0, g * out * log(a));
      break;
    case BinaryOp::Maximum:
    case BinaryOp::Minimum: {  // a tie splits the gradient in halves, as in PyTorch
      const Tensor a_wins = op == BinaryOp::Maximum ? a > b : a < b;
      const Tensor shared = where(a == b, g * 0.5, g);
      if (need_a) ga = where(a_wins | (a == b), shared, 0.0);
      if (need_b) gb = where(a_wins, 0.0, shared);
      break;
    }
    default: break;
  }
  return {ga, gb};
}

// PyTorch's grad_fn names, of tensor op tensor, tensor op scalar or scalar op tensor.
enum class Operands { Tensors, TensorScalar, ScalarTensor };
const char* backward_name(BinaryOp op, Operands operands) {
  const bool scalar_first = operands == Operands::ScalarTensor;
  switch (op) {
    case BinaryOp::Add: return "AddBackward0";
    case BinaryOp::Sub: return scalar_first ? "RsubBackward1" : "SubBackward0";
    case BinaryOp::Mul: return "MulBackward0";
    case BinaryOp::Div: return scalar_first ? "MulBackward0" : "DivBackward0";
    case BinaryOp::Pow: return operands == Operands::TensorScalar ? "PowBackward0" : "PowBackward1";
    case BinaryOp::Maximum: return "MaximumBackward0";
    case BinaryOp::Minimum: return "MinimumBackward0";
    default: return "BinaryBackward";
  }
}

struct BinaryBackward final : autograd::Node {
  const char* name() const override { return backward_name(op, Operands::Tensors); }
  autograd::Grads apply(const Tensor& g) override {
    auto [ga, gb] = binary_grads(op, g, a, b, out, needs_grad(0), needs_grad(1));
    autograd::Grads grads;
    if (needs_grad(0)) grads[0] = ops::sum_to(ga, a_shape);
    if (needs_grad(1)) grads[1] = ops::sum_to(gb, b_shape);
    return grads;
  }
  BinaryOp op;
  Tensor a, b, out;  // saved only for the ops whose gradients read them
  Shape a_shape, b_shape;
};

bool saves_operands(BinaryOp op) { return op != BinaryOp::Add && op != BinaryOp::Sub; }

}  // namespace

namespace ops {

// PyTorch's broadcasting: align shapes at the right; each pair of sizes must match or be 1.
Shape broadcast_shape(const char* op, const Shape& a, const Shape& b) {
  const int n = std::max(a.size(), b.size());
  std::vector<int64_t> out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const int ia = a.size() - n + i, ib = b.size() - n + i;
    const int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
    TORCHLET_CHECK(sa == sb || sa == 1 || sb == 1, op,
                   ": Expected shapes that broadcast (equal "
                   "sizes or 1, aligned at the right), but got ",
                   a, " and ", b, " (dimension ", i, ": ", sa, " vs ", sb, ")");
    out[i] = sa == 1 ? sb : sa;
  }
  return Shape(out);
}

Tensor binary(BinaryOp requested, const Tensor& a_in, const Tensor& b_in) {
  const char* name = op_name(requested);
  check_defined(name, {"self", a_in});
  check_defined(name, {"other", b_in});
  check_same_device(name, {{"self", a_in}, {"other", b_in}});
  const auto [dtype, op] = compute_dtype(requested, result_type(a_in, b_in));
  const Tensor a = a_in.to(dtype), b = b_in.to(dtype);
  const Shape shape = broadcast_shape(name, a.shape(), b.shape());
  const Tensor ea = a.shape() == shape ? a : expand(a, shape);
  const Tensor eb = b.shape() == shape ? b : expand(b, shape);
  Tensor out = make_tensor(shape, backend::is_predicate(op) ? kBool : dtype, a.device());
  backend::Loop loop{shape, ea.strides(), eb.strides()};
  backend_of(out).binary(op, dtype, ea.impl()->data(), eb.impl()->data(), out.impl()->data(),
                         coalesce(loop));
  if (!backend::is_predicate(op) && autograd::needs_grad({&a_in, &b_in})) {
    auto node = std::make_shared<BinaryBackward>();
    node->op = op;
    if (saves_operands(op)) node->a = a.detach(), node->b = b.detach();
    if (op == BinaryOp::Pow) node->out = out.detach();
    node->a_shape = a.shape();
    node->b_shape = b.shape();
    autograd::connect(out, node, {&a_in, &b_in});
  }
  return out;
}

}  // namespace ops

namespace {

struct ScalarBackward final : autograd::Node {
  const char* name() const override {
    return backward_name(op, scalar_first ? Operands::ScalarTensor : Operands::TensorScalar);
  }
  autograd::Grads apply(const Tensor& g) override {
    // The same formulas as between tensors, with the scalar as a 0-dim tensor.
    const Tensor st = full({}, s, TensorOptions(g.dtype()).with_device(g.device()));
    auto [ga, gb] = scalar_first ? binary_grads(op, g, st, a, out, false, true)
                                 : binary_grads(op, g, a, st, out, true, false);
    return {scalar_first ? gb : ga};
  }
  BinaryOp op;
  double s;
  bool scalar_first;
  Tensor a, out;
};

Tensor binary_scalar(BinaryOp requested, const Tensor& a_in, const Scalar& s, bool scalar_first) {
  const char* name = op_name(requested);
  ops::check_defined(name, {"self", a_in});
  const auto [dtype, op] = compute_dtype(requested, result_type(a_in, s));
  const Tensor a = a_in.to(dtype).contiguous();
  Tensor out = make_tensor(a.shape(), backend::is_predicate(op) ? kBool : dtype, a.device());
  const double value = dtype == kInt64 ? static_cast<double>(s.to_int64()) : s.to_double();
  backend_of(out).binary_scalar(op, dtype, a.impl()->data(), value, scalar_first,
                                out.impl()->data(), a.numel());
  if (!backend::is_predicate(op) && autograd::needs_grad({&a_in})) {
    auto node = std::make_shared<ScalarBackward>();
    node->op = op;
    node->s = value;
    node->scalar_first = scalar_first;
    if (saves_operands(op)) node->a = a.detach();
    if (op == BinaryOp::Pow) node->out = out.detach();
    autograd::connect(out, node, {&a_in});
  }
  return out;
}

}  // namespace

using ops::binary;

DType result_type(const Tensor& a, const Tensor& b) {
  return result_type(a.dtype(), a.dim() == 0, b.dtype(), b.dim() == 0);
}

DType result_type(const Tensor& a, const Scalar& s) {
  const DType t = a.dtype();
  if (s.is_floating_point() && !is_floating_point(t)) return kFloat32;
  if (s.is_integral() && t == kBool) return kInt64;
  return t;
}

Tensor operator+(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Add, a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Sub, a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Mul, a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Div, a, b); }
Tensor operator+(const Tensor& a, const Scalar& s) {
  return binary_scalar(BinaryOp::Add, a, s, false);
}
Tensor operator-(const Tensor& a, const Scalar& s) {
  return binary_scalar(BinaryOp::Sub, a, s, false);
}
Tensor operator*(const Tensor& a, const Scalar& s) {
  return binary_scalar(BinaryOp::Mul, a, s, false);
}
Tensor operator/(const Tensor& a, const Scalar& s) {
  return binary_scalar(BinaryOp::Div, a, s, false);
}
Tensor operator+(const Scalar& s, const Tensor& a) {
  return binary_scalar(BinaryOp::Add, a, s, true);
}
Tensor operator-(const Scalar& s, const Tensor& a) {
  return binary_scalar(BinaryOp::Sub, a, s, true);
}
Tensor operator*(const Scalar& s, const Tensor& a) {
  return binary_scalar(BinaryOp::Mul, a, s, true);
}
Tensor operator/(const Scalar& s, const Tensor& a) {
  return binary_scalar(BinaryOp::Div, a, s, true);
}

Tensor operator==(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Eq, a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Ne, a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Lt, a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Le, a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Gt, a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Ge, a, b); }
Tensor operator==(const Tensor& a, const Scalar& s) {
  return binary_scalar(BinaryOp::Eq, a, s, false);
}
Tensor operator!=(const Tensor& a, const Scalar& s) {
  return binary_scalar(BinaryOp::Ne, a, s, false);
}
Tensor operator<(const Tensor& a, const Scalar& s) {
  return binary_scalar(BinaryOp::Lt, a, s, false);
}
Tensor operator<=(const Tensor& a, const Scalar& s) {
  return binary_scalar(BinaryOp::Le, a, s, false);
}
Tensor operator>(const Tensor& a, const Scalar& s) {
  return binary_scalar(BinaryOp::Gt, a, s, false);
}
Tensor operator>=(const Tensor& a, const Scalar& s) {
  return binary_scalar(BinaryOp::Ge, a, s, false);
}
Tensor operator&(const Tensor& a, const Tensor& b) { return binary(BinaryOp::LogicalAnd, a, b); }
Tensor operator|(const Tensor& a, const Tensor& b) { return binary(BinaryOp::LogicalOr, a, b); }
Tensor operator~(const Tensor& a) { return logical_not(a); }

Tensor eq(const Tensor& a, const Tensor& b) { return a == b; }
Tensor ne(const Tensor& a, const Tensor& b) { return a != b; }
Tensor lt(const Tensor& a, const Tensor& b) { return a < b; }
Tensor le(const Tensor& a, const Tensor& b) { return a <= b; }
Tensor gt(const Tensor& a, const Tensor& b) { return a > b; }
Tensor ge(const Tensor& a, const Tensor& b) { return a >= b; }
Tensor logical_and(const Tensor& a, const Tensor& b) { return a & b; }
Tensor logical_or(const Tensor& a, const Tensor& b) { return a | b; }
Tensor logical_not(const Tensor& x) { return x == 0; }
Tensor isnan(const Tensor& x) { return x != x; }
Tensor isfinite(const Tensor& x) {  // x - x is 0 for every finite x, NaN for inf and NaN
  return is_floating_point(x.dtype())
             ? (x - x) == 0
             : full(x.shape(), 1.0, TensorOptions(kBool).with_device(x.device()));
}

Tensor pow(const Tensor& x, const Scalar& exponent) {
  return binary_scalar(BinaryOp::Pow, x, exponent, false);
}
Tensor pow(const Tensor& x, const Tensor& exponent) { return binary(BinaryOp::Pow, x, exponent); }
Tensor pow(const Scalar& x, const Tensor& exponent) {
  return binary_scalar(BinaryOp::Pow, exponent, x, true);
}
Tensor maximum(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Maximum, a, b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Minimum, a, b); }

Tensor clamp(const Tensor& x, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  TORCHLET_CHECK(min || max, "clamp: Expected at least one of min or max, but got neither");
  Tensor out = x;
  if (min) out = binary_scalar(BinaryOp::Maximum, out, *min, false);
  if (max) out = binary_scalar(BinaryOp::Minimum, out, *max, false);
  return out;
}
Tensor clamp_min(const Tensor& x, const Scalar& min) { return clamp(x, min, std::nullopt); }
Tensor clamp_max(const Tensor& x, const Scalar& max) { return clamp(x, std::nullopt, max); }

Tensor Tensor::pow(const Scalar& exponent) const { return torchlet::pow(*this, exponent); }
Tensor Tensor::pow(const Tensor& exponent) const { return torchlet::pow(*this, exponent); }
Tensor Tensor::clamp(const std::optional<Scalar>& min, const std::optional<Scalar>& max) const {
  return torchlet::clamp(*this, min, max);
}
Tensor Tensor::clamp_min(const Scalar& min) const { return torchlet::clamp_min(*this, min); }
Tensor Tensor::clamp_max(const Scalar& max) const { return torchlet::clamp_max(*this, max); }
Tensor Tensor::maximum(const Tensor& other) const { return torchlet::maximum(*this, other); }
Tensor Tensor::minimum(const Tensor& other) const { return torchlet::minimum(*this, other); }
Tensor Tensor::eq(const Tensor& other) const { return *this == other; }
Tensor Tensor::eq(const Scalar& other) const { return *this == other; }
Tensor Tensor::ne(const Tensor& other) const { return *this != other; }
Tensor Tensor::ne(const Scalar& other) const { return *this != other; }
Tensor Tensor::lt(const Tensor& other) const { return *this < other; }
Tensor Tensor::lt(const Scalar& other) const { return *this < other; }
Tensor Tensor::le(const Tensor& other) const { return *this <= other; }
Tensor Tensor::le(const Scalar& other) const { return *this <= other; }
Tensor Tensor::gt(const Tensor& other) const { return *this > other; }
Tensor Tensor::gt(const Scalar& other) const { return *this > other; }
Tensor Tensor::ge(const Tensor& other) const { return *this >= other; }
Tensor Tensor::ge(const Scalar& other) const { return *this >= other; }
Tensor Tensor::logical_and(const Tensor& other) const { return *this & other; }
Tensor Tensor::logical_or(const Tensor& other) const { return *this | other; }
Tensor Tensor::logical_not() const { return torchlet::logical_not(*this); }
Tensor Tensor::isnan() const { return torchlet::isnan(*this); }
Tensor Tensor::isfinite() const { return torchlet::isfinite(*this); }

}  // namespace torchlet
