// The elementwise maths of one tensor (exp, log, sqrt, sigmoid, tanh, erf, ..., and the
// activations gelu and silu), made from the lines of torchlet/unary_ops.def: one backend call
// each (backends/elementwise.h instantiates the formulas), and each gradient written from the
// forward's saved input or output with other ops, except gelu's and silu's: one backend call
// over x and dy (BinaryOp::GeluBackward ...).
#include <cmath>
#include <numbers>
#include <string_view>

#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

using backend::BinaryOp;
using backend::UnaryOp;

const char* op_name(UnaryOp op) {
  switch (op) {
#define TORCHLET_UNARY(op, name, ...) \
  case UnaryOp::op:                   \
    return #name;
#include "torchlet/unary_ops.def"
#undef TORCHLET_UNARY
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
#define TORCHLET_UNARY(op, name, api, backward, reads, f32, f64, grad) \
  case UnaryOp::op:                                                    \
    return grad;
#include "torchlet/unary_ops.def"
#undef TORCHLET_UNARY
  }
  return Tensor();
}

// What the gradient reads: "input", "output" or "none" (the node keeps only what it reads).
constexpr std::string_view grad_reads(UnaryOp op) {
  switch (op) {
#define TORCHLET_UNARY(op, name, api, backward, reads, ...) \
  case UnaryOp::op:                                         \
    return #reads;
#include "torchlet/unary_ops.def"
#undef TORCHLET_UNARY
  }
  return "none";
}

// Whether the op is an activation (an `own` line: gelu, silu), which takes floating point only.
constexpr bool is_activation(UnaryOp op) {
  switch (op) {
#define TORCHLET_UNARY(op, name, api, ...) \
  case UnaryOp::op:                        \
    return std::string_view(#api) == "own";
#include "torchlet/unary_ops.def"
#undef TORCHLET_UNARY
  }
  return false;
}

// The dtype an op computes in for an input of dtype `in`, as PyTorch's: floating point stays;
// neg, abs and sign keep int64; the other maths of an int64 or bool tensor run in float32 (exp of
// an int64 tensor is float32); the activations and neg and abs of bool tensors are refused.
DType compute_dtype(UnaryOp op, DType in) {
  if (is_floating_point(in)) return in;
  const char* name = op_name(op);
  TORCHLET_CHECK(!(op == UnaryOp::Neg && in == kBool),
                 "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                 "to invert a mask, use the `~` or `logical_not()` operator instead.");
  if (backend::unary_takes_int64(op)) {
    TORCHLET_CHECK(in == kInt64, name, ": Expected a float32, float64 or int64 tensor, but got ",
                   in);
    return kInt64;
  }
  TORCHLET_CHECK(!is_activation(op), name, ": Expected a float32 or float64 tensor, but got ", in,
                 " (convert it with .to(kFloat32))");
  return kFloat32;
}

// PyTorch's grad_fn names, in UnaryOp's order.
constexpr const char* kBackwardNames[backend::kUnaryOps] = {
#define TORCHLET_UNARY(op, name, api, backward, ...) #backward,
#include "torchlet/unary_ops.def"
#undef TORCHLET_UNARY
};

struct UnaryBackward final : autograd::Node {
  const char* name() const override { return kBackwardNames[static_cast<int>(op)]; }
  autograd::Grads apply(const Tensor& g) override { return {unary_grad(op, g, x, y)}; }
  UnaryOp op;
  Tensor x, y;
};

Tensor unary(UnaryOp op, const Tensor& input) {
  const char* name = op_name(op);
  ops::check_defined(name, {"input", input});
  // The sign of a bool is itself (PyTorch keeps the dtype).
  if (op == UnaryOp::Sign && input.dtype() == kBool) return input.clone();
  const Tensor x = input.to(compute_dtype(op, input.dtype())).contiguous();
  Tensor y = make_tensor(x.shape(), x.dtype(), x.device());
  backend_of(y).unary(op, x.dtype(), x.impl()->data(), y.impl()->data(), x.numel());
  if (autograd::needs_grad({&input})) {
    auto node = std::make_shared<UnaryBackward>();
    node->op = op;
    const std::string_view reads = grad_reads(op);
    if (reads == "input") node->x = x.detach();
    if (reads == "output") node->y = y.detach();
    autograd::connect(y, node, {&input});
  }
  return y;
}

}  // namespace

// The functions and Tensor methods of unary_ops.def's `function` lines.
#define TORCHLET_UNARY_function(op, name)                        \
  Tensor name(const Tensor& x) { return unary(UnaryOp::op, x); } \
  Tensor Tensor::name() const { return torchlet::name(*this); }
#define TORCHLET_UNARY_own(op, name)
#define TORCHLET_UNARY(op, name, api, ...) TORCHLET_UNARY_##api(op, name)
#include "torchlet/unary_ops.def"
#undef TORCHLET_UNARY
#undef TORCHLET_UNARY_own
#undef TORCHLET_UNARY_function

Tensor operator-(const Tensor& a) { return neg(a); }

Tensor gelu(const Tensor& x, const std::string& approximate) {
  TORCHLET_CHECK(approximate == "none" || approximate == "tanh",
                 "gelu: Expected approximate 'none' or 'tanh', but got '", approximate, "'");
  return unary(approximate == "tanh" ? UnaryOp::GeluTanh : UnaryOp::Gelu, x);
}
Tensor silu(const Tensor& x) { return unary(UnaryOp::Silu, x); }

}  // namespace torchlet
