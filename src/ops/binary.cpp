// Elementwise + - * / and == between tensors (broadcasting as PyTorch does) and with scalars.
#include "autograd/node.h"
#include "ops/common.h"

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
  }
  return "?";
}

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

struct BinaryBackward final : autograd::Node {
  const char* name() const override { return "BinaryBackward"; }
  autograd::Grads apply(const Tensor& g) override {
    autograd::Grads grads;
    Tensor ga, gb;
    switch (op) {
      case BinaryOp::Add: ga = g, gb = g; break;
      case BinaryOp::Sub: ga = g, gb = needs_grad(1) ? -g : Tensor(); break;
      case BinaryOp::Mul:
        if (needs_grad(0)) ga = g * b;
        if (needs_grad(1)) gb = g * a;
        break;
      case BinaryOp::Div:
        if (needs_grad(0)) ga = g / b;
        if (needs_grad(1)) gb = -(g * a) / (b * b);
        break;
      case BinaryOp::Eq: break;
    }
    if (needs_grad(0)) grads[0] = ops::sum_to(ga, a_shape);
    if (needs_grad(1)) grads[1] = ops::sum_to(gb, b_shape);
    return grads;
  }
  BinaryOp op;
  Tensor a, b;  // saved only for mul and div
  Shape a_shape, b_shape;
};

struct ScalarBackward final : autograd::Node {
  const char* name() const override { return "ScalarBackward"; }
  autograd::Grads apply(const Tensor& g) override {
    switch (op) {
      case BinaryOp::Add: return {g};
      case BinaryOp::Sub: return {scalar_first ? -g : g};
      case BinaryOp::Mul: return {g * s};
      case BinaryOp::Div: return {scalar_first ? -(g * s) / (a * a) : g / s};
      case BinaryOp::Eq: break;
    }
    return {};
  }
  BinaryOp op;
  float s;
  bool scalar_first;
  Tensor a;  // saved only for s / a
};

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  const char* name = op_name(op);
  ops::check_defined(name, {"self", a});
  ops::check_defined(name, {"other", b});
  ops::check_same_device(name, {{"self", a}, {"other", b}});
  TORCHLET_CHECK(a.dtype() == b.dtype(), name,
                 ": Expected both tensors to have the same dtype, "
                 "but got ",
                 a.dtype(), " and ", b.dtype(), " (convert one with .to(dtype))");
  if (op != BinaryOp::Eq) {
    TORCHLET_CHECK(a.dtype() != kBool, name, ": Expected float32 or int64 tensors, but got bool");
    TORCHLET_CHECK(op != BinaryOp::Div || a.dtype() == kFloat32, name,
                   ": Expected float32 tensors, but got ", a.dtype());
  }
  const Shape shape = broadcast_shape(name, a.shape(), b.shape());
  const Tensor ea = a.shape() == shape ? a : ops::expand(a, shape);
  const Tensor eb = b.shape() == shape ? b : ops::expand(b, shape);
  Tensor out = make_tensor(shape, op == BinaryOp::Eq ? kBool : a.dtype(), a.device());
  backend::Loop loop{shape, ea.strides(), eb.strides()};
  backend_of(out).binary(op, a.dtype(), ea.impl()->data(), eb.impl()->data(), out.impl()->data(),
                         ops::coalesce(loop));
  if (op != BinaryOp::Eq && autograd::needs_grad({&a, &b})) {
    auto node = std::make_shared<BinaryBackward>();
    node->op = op;
    if (op == BinaryOp::Mul || op == BinaryOp::Div) node->a = a.detach(), node->b = b.detach();
    node->a_shape = a.shape();
    node->b_shape = b.shape();
    autograd::connect(out, node, {&a, &b});
  }
  return out;
}

Tensor binary_scalar(BinaryOp op, const Tensor& a, float s, bool scalar_first) {
  const char* name = op_name(op);
  ops::check_defined(name, {"self", a});
  ops::check_dtype(name, {"self", a}, kFloat32);
  Tensor src = a.contiguous();
  Tensor out = make_tensor(a.shape(), kFloat32, a.device());
  backend_of(out).binary_scalar(op, src.data_ptr<float>(), s, scalar_first, out.data_ptr<float>(),
                                a.numel());
  if (autograd::needs_grad({&a})) {
    auto node = std::make_shared<ScalarBackward>();
    node->op = op;
    node->s = s;
    node->scalar_first = scalar_first;
    if (op == BinaryOp::Div && scalar_first) node->a = a.detach();
    autograd::connect(out, node, {&a});
  }
  return out;
}

}  // namespace

Tensor operator+(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Add, a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Sub, a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Mul, a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Div, a, b); }
Tensor operator==(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Eq, a, b); }
Tensor operator+(const Tensor& a, float s) { return binary_scalar(BinaryOp::Add, a, s, false); }
Tensor operator-(const Tensor& a, float s) { return binary_scalar(BinaryOp::Sub, a, s, false); }
Tensor operator*(const Tensor& a, float s) { return binary_scalar(BinaryOp::Mul, a, s, false); }
Tensor operator/(const Tensor& a, float s) { return binary_scalar(BinaryOp::Div, a, s, false); }
Tensor operator+(float s, const Tensor& a) { return binary_scalar(BinaryOp::Add, a, s, true); }
Tensor operator-(float s, const Tensor& a) { return binary_scalar(BinaryOp::Sub, a, s, true); }
Tensor operator*(float s, const Tensor& a) { return binary_scalar(BinaryOp::Mul, a, s, true); }
Tensor operator/(float s, const Tensor& a) { return binary_scalar(BinaryOp::Div, a, s, true); }
Tensor operator-(const Tensor& a) { return binary_scalar(BinaryOp::Mul, a, -1.0f, false); }

}  // namespace torchlet
