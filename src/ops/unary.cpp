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
