// In-place arithmetic, as PyTorch's: x.add_(y, alpha), sub_, mul_, div_ and the operators +=,
// -=, *=, /=. Each computes the out-of-place op (so broadcasting, promotion and gradients are
// the ops' own) and then writes the result into this tensor's memory, where its views see it;
// when autograd records the op, this handle takes the result instead (a new tensor: views made
// before see the old values, and nothing a backward pass saved is overwritten). index_put_ ends
// the same way (ops/indexing.cpp).
#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/autograd.h"

namespace torchlet {

namespace {

bool is_one(const Scalar& s) {
  return s.is_floating_point() ? s.to_double() == 1.0 : s.to_int64() == 1;
}

// alpha * other as a Scalar that stays integral when both are (an int64 tensor stays int64).
Scalar times(const Scalar& alpha, const Scalar& other) {
  if (alpha.is_floating_point() || other.is_floating_point())
    return alpha.to_double() * other.to_double();
  return alpha.to_int64() * other.to_int64();
}

}  // namespace

namespace ops {

Tensor& assign_in_place(Tensor& self, const char* op, const Tensor& result) {
  TORCHLET_CHECK(result.shape() == self.shape(), op, ": Expected a result of this tensor's shape ",
                 self.shape(),
                 " (only the other operand broadcasts in place), but got the broadcast shape ",
                 result.shape());
  // A result may be cast down within its category, never across (PyTorch's "result type Float
  // can't be cast to the desired output type Long").
  TORCHLET_CHECK(dtype_category(result.dtype()) <= dtype_category(self.dtype()), op,
                 ": Expected a result that can be cast to this tensor's dtype ", self.dtype(),
                 ", but got a result of dtype ", result.dtype());
  if (is_grad_enabled() && result.requires_grad()) {
    // Autograd records the op: this handle takes the differentiable result, a new tensor.
    TORCHLET_CHECK(!(self.is_leaf() && self.requires_grad()), op,
                   ": Expected a tensor that does not require grad, but got a leaf that requires "
                   "grad; change parameters under NoGradGuard");
    self = result.dtype() == self.dtype() ? result : result.to(self.dtype());
    return self;
  }
  return self.copy_(result);
}

}  // namespace ops

using ops::assign_in_place;

Tensor& Tensor::add_(const Tensor& other, const Scalar& alpha) {
  return assign_in_place(*this, "add_", *this + (is_one(alpha) ? other : other * alpha));
}
Tensor& Tensor::add_(const Scalar& other, const Scalar& alpha) {
  return assign_in_place(*this, "add_", *this + times(alpha, other));
}
Tensor& Tensor::sub_(const Tensor& other, const Scalar& alpha) {
  return assign_in_place(*this, "sub_", *this - (is_one(alpha) ? other : other * alpha));
}
Tensor& Tensor::sub_(const Scalar& other, const Scalar& alpha) {
  return assign_in_place(*this, "sub_", *this - times(alpha, other));
}
Tensor& Tensor::mul_(const Tensor& other) { return assign_in_place(*this, "mul_", *this * other); }
Tensor& Tensor::mul_(const Scalar& other) { return assign_in_place(*this, "mul_", *this * other); }
Tensor& Tensor::div_(const Tensor& other) { return assign_in_place(*this, "div_", *this / other); }
Tensor& Tensor::div_(const Scalar& other) { return assign_in_place(*this, "div_", *this / other); }

Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
Tensor& operator+=(Tensor& a, const Scalar& s) { return a.add_(s); }
Tensor& operator-=(Tensor& a, const Scalar& s) { return a.sub_(s); }
Tensor& operator*=(Tensor& a, const Scalar& s) { return a.mul_(s); }
Tensor& operator/=(Tensor& a, const Scalar& s) { return a.div_(s); }

}  // namespace torchlet
