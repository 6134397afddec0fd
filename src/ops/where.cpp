// where(condition, a, b) and what is built on it: masked_fill and nan_to_num. The three operands
// broadcast together; a and b promote as in PyTorch. The gradient goes to a where the condition
// holds and to b elsewhere.
#include <limits>

#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

struct WhereBackward final : autograd::Node {
  const char* name() const override { return "WhereBackward0"; }
  autograd::Grads apply(const Tensor& g) override {
    autograd::Grads grads;
    const Tensor zero = zeros({}, TensorOptions(g.dtype()).with_device(g.device()));
    if (needs_grad(0)) grads[0] = ops::sum_to(where(condition, g, zero), a_shape);
    if (needs_grad(1)) grads[1] = ops::sum_to(where(condition, zero, g), b_shape);
    return grads;
  }
  Tensor condition;
  Shape a_shape, b_shape;
};

// A 0-dim tensor holding s, of the dtype PyTorch gives it beside the tensor `other`.
Tensor scalar_tensor(const Scalar& s, const Tensor& other) {
  const DType dtype = result_type(other, s);
  const double value = dtype == kInt64 ? static_cast<double>(s.to_int64()) : s.to_double();
  return full({}, value, TensorOptions(dtype).with_device(other.device()));
}

}  // namespace

Tensor where(const Tensor& condition, const Tensor& a_in, const Tensor& b_in) {
  const char* op = "where";
  ops::check_defined(op, {"condition", condition});
  ops::check_defined(op, {"self", a_in});
  ops::check_defined(op, {"other", b_in});
  ops::check_same_device(op, {{"condition", condition}, {"self", a_in}, {"other", b_in}});
  ops::check_dtype(op, {"condition", condition}, kBool);
  const DType dtype = result_type(a_in, b_in);
  const Tensor a = a_in.to(dtype), b = b_in.to(dtype);
  const Shape shape =
      ops::broadcast_shape(op, ops::broadcast_shape(op, condition.shape(), a.shape()), b.shape());
  auto spread = [&](const Tensor& t) {
    return t.shape() == shape ? t.contiguous() : ops::expand(t, shape).contiguous();
  };
  const Tensor c = spread(condition), ea = spread(a), eb = spread(b);
  Tensor out = make_tensor(shape, dtype, a.device());
  backend_of(out).where(c.data_ptr<bool>(), dtype, ea.impl()->data(), eb.impl()->data(),
                        out.impl()->data(), out.numel());
  if (autograd::needs_grad({&a_in, &b_in})) {
    auto node = std::make_shared<WhereBackward>();
    node->condition = condition.detach();
    node->a_shape = a.shape();
    node->b_shape = b.shape();
    autograd::connect(out, node, {&a_in, &b_in});
  }
  return out;
}

Tensor where(const Tensor& condition, const Tensor& a, const Scalar& b) {
  ops::check_defined("where", {"self", a});
  return where(condition, a, scalar_tensor(b, a));
}

Tensor where(const Tensor& condition, const Scalar& a, const Tensor& b) {
  ops::check_defined("where", {"other", b});
  return where(condition, scalar_tensor(a, b), b);
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value) {
  ops::check_defined("masked_fill", {"self", x});
  ops::check_defined("masked_fill", {"mask", mask});
  ops::check_dtype("masked_fill", {"mask", mask}, kBool);
  TORCHLET_CHECK(ops::broadcast_shape("masked_fill", x.shape(), mask.shape()) == x.shape(),
                 "masked_fill: Expected a mask that broadcasts to the tensor's shape ", x.shape(),
                 ", but got ", mask.shape());
  // The result keeps x's dtype, as PyTorch's masked_fill does.
  const double v = x.dtype() == kInt64 ? static_cast<double>(value.to_int64()) : value.to_double();
  return where(mask, full({}, v, TensorOptions(x.dtype()).with_device(x.device())), x);
}

Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  return torchlet::masked_fill(*this, mask, value);
}

Tensor nan_to_num(const Tensor& x, double nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  ops::check_defined("nan_to_num", {"input", x});
  if (!is_floating_point(x.dtype())) return x;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const double hi = posinf.value_or(std::numeric_limits<float>::max());
  const double lo = neginf.value_or(std::numeric_limits<float>::lowest());
  return where(x != x, nan, where(x == kInf, hi, where(x == -kInf, lo, x)));
}

}  // namespace torchlet
