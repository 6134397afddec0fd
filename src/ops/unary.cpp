// The elementwise maths of one tensor (exp, log, sqrt, sigmoid, tanh, erf, ..., and the
// activations gelu and silu): one backend call each (backends/elementwise.h holds the formulas),
// and each gradient written from the forward's saved input or output with other ops, except
// gelu's and silu's: one backend call over x and dy (BinaryOp::GeluBackward ...).
#include <cmath>
#include <numbers>

#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

using backend::BinaryOp;
using backend::UnaryOp;

const char* op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return "neg";
    case UnaryOp::Abs: return "abs";
    case UnaryOp::Sign: return "sign";
    case UnaryOp::Exp: return "exp";
    case UnaryOp::Log: return "log";
    case UnaryOp::Log1p: return "log1p";
    case UnaryOp::Expm1: return "expm1";
    case UnaryOp::Sqrt: return "sqrt";
    case UnaryOp::Rsqrt: return "rsqrt";
    case UnaryOp::Sigmoid: return "sigmoid";
    case UnaryOp::Tanh: return "tanh";
    case UnaryOp::Erf: return "erf";
    case UnaryOp::Sin: return "sin";
    case UnaryOp::Cos: return "cos";
    case UnaryOp::Reciprocal: return "reciprocal";
    case UnaryOp::Gelu:
    case UnaryOp::GeluTanh: return "gelu";
    case UnaryOp::Silu: return "silu";
  }
  return "?";
}

// dx = op(x, dy) in one pass (x contiguous; dy of x's shape and dtype).
Tensor fused_grad(BinaryOp op, const Tensor& g, const Tensor& x) {
  const Tensor dy = g.contiguous();
  Tensor dx = make_tensor(x.shape(), x.dtype(), x.device());
  backend_of(dx).binary(op, x.dtype(), x.impl()->data(), dy.impl()->data(), dx.impl()->data(),
                        backend::Loop{Shape{x.numel()}, Shape{1}, Shape{1}});
  return dx;
}

// d f(x)/dx times g, from x and y = f(x).
Tensor unary_grad(UnaryOp op, const Tensor& g, const Tensor& x, const Tensor& y) {
  switch (op) {
    case UnaryOp::Neg: return -g;
    case UnaryOp::Abs: return g * sign(x);
    case UnaryOp::Sign: return zeros(g.shape(), TensorOptions(g.dtype()).with_device(g.device()));
    case UnaryOp::Exp: return g * y;
    case UnaryOp::Log: return g / x;
    case UnaryOp::Log1p: return g / (x + 1.0);
    case UnaryOp::Expm1: return g * (y + 1.0);
    case UnaryOp::Sqrt: return g / (y * 2.0);
    case UnaryOp::Rsqrt: return g * (y * y * y) * -0.5;
    case UnaryOp::Sigmoid: return g * y * (1.0 - y);
    case UnaryOp::Tanh: return g * (1.0 - y * y);
    case UnaryOp::Erf: return g * exp(-(x * x)) * (2.0 / std::sqrt(std::numbers::pi));
    case UnaryOp::Sin: return g * cos(x);
    case UnaryOp::Cos: return -(g * sin(x));
    case UnaryOp::Reciprocal: return -(g * y * y);
    case UnaryOp::Gelu: return fused_grad(BinaryOp::GeluBackward, g, x);
    case UnaryOp::GeluTanh: return fused_grad(BinaryOp::GeluTanhBackward, g, x);
    case UnaryOp::Silu: return fused_grad(BinaryOp::SiluBackward, g, x);
  }
  return Tensor();
}

// Which of x and y the gradient reads (the node keeps only those alive).
bool grad_reads_input(UnaryOp op) {
  return op == UnaryOp::Abs || op == UnaryOp::Log || op == UnaryOp::Log1p || op == UnaryOp::Erf ||
         op == UnaryOp::Sin || op == UnaryOp::Cos || op == UnaryOp::Gelu ||
         op == UnaryOp::GeluTanh || op == UnaryOp::Silu;
}
bool grad_reads_output(UnaryOp op) {
  return op == UnaryOp::Exp || op == UnaryOp::Expm1 || op == UnaryOp::Sqrt ||
         op == UnaryOp::Rsqrt || op == UnaryOp::Sigmoid || op == UnaryOp::Tanh ||
         op == UnaryOp::Reciprocal;
}

// PyTorch's grad_fn names, in UnaryOp's order.
constexpr const char* kBackwardNames[backend::kUnaryOps] = {
    "NegBackward0",   "AbsBackward0",   "SignBackward0", "ExpBackward0",   "LogBackward0",
    "Log1PBackward0", "Expm1Backward0", "SqrtBackward0", "RsqrtBackward0", "SigmoidBackward0",
    "TanhBackward0",  "ErfBackward0",   "SinBackward0",  "CosBackward0",   "ReciprocalBackward0",
    "GeluBackward0",  "GeluBackward0",  "SiluBackward0"};

struct UnaryBackward final : autograd::Node {
  const char* name() const override { return kBackwardNames[static_cast<int>(op)]; }
  autograd::Grads apply(const Tensor& g) override { return {unary_grad(op, g, x, y)}; }
  UnaryOp op;
  Tensor x, y;
};

Tensor unary(UnaryOp op, const Tensor& input) {
  const char* name = op_name(op);
  ops::check_defined(name, {"input", input});
  TORCHLET_CHECK(is_floating_point(input.dtype()) ||
                     (input.dtype() == kInt64 && backend::unary_takes_int64(op)),
                 name, ": Expected a float32 or float64 tensor",
                 backend::unary_takes_int64(op) ? " or int64" : "", ", but got ", input.dtype(),
                 is_floating_point(input.dtype()) ? "" : " (convert it with .to(kFloat32))");
  const Tensor x = input.contiguous();
  Tensor y = make_tensor(x.shape(), x.dtype(), x.device());
  backend_of(y).unary(op, x.dtype(), x.impl()->data(), y.impl()->data(), x.numel());
  if (autograd::needs_grad({&input})) {
    auto node = std::make_shared<UnaryBackward>();
    node->op = op;
    if (grad_reads_input(op)) node->x = x.detach();
    if (grad_reads_output(op)) node->y = y.detach();
    autograd::connect(y, node, {&input});
  }
  return y;
}

}  // namespace

Tensor exp(const Tensor& x) { return unary(UnaryOp::Exp, x); }
Tensor log(const Tensor& x) { return unary(UnaryOp::Log, x); }
Tensor log1p(const Tensor& x) { return unary(UnaryOp::Log1p, x); }
Tensor expm1(const Tensor& x) { return unary(UnaryOp::Expm1, x); }
Tensor sqrt(const Tensor& x) { return unary(UnaryOp::Sqrt, x); }
Tensor rsqrt(const Tensor& x) { return unary(UnaryOp::Rsqrt, x); }
Tensor abs(const Tensor& x) { return unary(UnaryOp::Abs, x); }
Tensor neg(const Tensor& x) { return unary(UnaryOp::Neg, x); }
Tensor sign(const Tensor& x) { return unary(UnaryOp::Sign, x); }
Tensor sigmoid(const Tensor& x) { return unary(UnaryOp::Sigmoid, x); }
Tensor tanh(const Tensor& x) { return unary(UnaryOp::Tanh, x); }
Tensor erf(const Tensor& x) { return unary(UnaryOp::Erf, x); }
Tensor sin(const Tensor& x) { return unary(UnaryOp::Sin, x); }
Tensor cos(const Tensor& x) { return unary(UnaryOp::Cos, x); }
Tensor reciprocal(const Tensor& x) { return unary(UnaryOp::Reciprocal, x); }
Tensor operator-(const Tensor& a) { return neg(a); }

Tensor gelu(const Tensor& x, const std::string& approximate) {
  TORCHLET_CHECK(approximate == "none" || approximate == "tanh",
                 "gelu: Expected approximate 'none' or 'tanh', but got '", approximate, "'");
  return unary(approximate == "tanh" ? UnaryOp::GeluTanh : UnaryOp::Gelu, x);
}
Tensor silu(const Tensor& x) { return unary(UnaryOp::Silu, x); }

Tensor Tensor::exp() const { return torchlet::exp(*this); }
Tensor Tensor::log() const { return torchlet::log(*this); }
Tensor Tensor::log1p() const { return torchlet::log1p(*this); }
Tensor Tensor::expm1() const { return torchlet::expm1(*this); }
Tensor Tensor::sqrt() const { return torchlet::sqrt(*this); }
Tensor Tensor::rsqrt() const { return torchlet::rsqrt(*this); }
Tensor Tensor::abs() const { return torchlet::abs(*this); }
Tensor Tensor::neg() const { return torchlet::neg(*this); }
Tensor Tensor::sign() const { return torchlet::sign(*this); }
Tensor Tensor::sigmoid() const { return torchlet::sigmoid(*this); }
Tensor Tensor::tanh() const { return torchlet::tanh(*this); }
Tensor Tensor::erf() const { return torchlet::erf(*this); }
Tensor Tensor::sin() const { return torchlet::sin(*this); }
Tensor Tensor::cos() const { return torchlet::cos(*this); }
Tensor Tensor::reciprocal() const { return torchlet::reciprocal(*this); }

}  // namespace torchlet
