// Reductions: sum and mean (whole tensor or one dimension) and argmax.
#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

// d(out)/d(x) of a sum or mean: the gradient spread back over the reduced dimension.
struct SumBackward final : autograd::Node {
  const char* name() const override {  // PyTorch's: over all dimensions (0) or some (1)
    const bool all = kept_shape.numel() == 1;
    if (scale == 1.0) return all ? "SumBackward0" : "SumBackward1";
    return all ? "MeanBackward0" : "MeanBackward1";
  }
  autograd::Grads apply(const Tensor& g) override {
    Tensor spread = ops::expand(g.reshape(kept_shape), input_shape);
    return {scale == 1.0 ? spread.contiguous() : spread.contiguous() * scale};
  }
  Shape input_shape, kept_shape;  // kept_shape: the output with the reduced dims as 1
  double scale;                   // 1 / r for a mean
};

Shape reduced_shape(const Shape& shape, int d, bool keepdim) {
  std::vector<int64_t> out;
  for (int i = 0; i < shape.size(); ++i) {
    if (i != d)
      out.push_back(shape[i]);
    else if (keepdim)
      out.push_back(1);
  }
  return Shape(out);
}

// Sums x over dimension d (every dimension when d < 0), times scale.
Tensor reduce_sum(const char* op, const Tensor& x, int64_t dim, bool all, bool keepdim, bool mean) {
  ops::check_defined(op, {"self", x});
  TORCHLET_CHECK(!mean || is_floating_point(x.dtype()), op,
                 ": Expected a floating-point tensor (the mean of integers is not one), but got ",
                 x.dtype(), " (convert it with .to(kFloat32))");
  // Sums of int64 and bool tensors are int64 and exact, as in PyTorch.
  const bool integral = !is_floating_point(x.dtype());
  Tensor src = integral ? x.to(kInt64).contiguous() : x.contiguous();
  ops::Split3 s{1, x.numel(), 1};
  Shape out_shape, kept_shape;
  if (all) {
    kept_shape = Shape(std::vector<int64_t>(static_cast<std::size_t>(x.dim()), 1));
  } else {
    const int d = normalize_dim(op, dim, x.dim());
    s = ops::split_at(x.shape(), d);
    out_shape = reduced_shape(x.shape(), d, keepdim);
    kept_shape = reduced_shape(x.shape(), d, true);
  }
  if (all && keepdim) out_shape = kept_shape;
  // 1 / r in the tensor's precision (float32's quotient held exactly in the double).
  const double scale = !mean                   ? 1.0
                       : x.dtype() == kFloat64 ? 1.0 / static_cast<double>(s.r)
                                               : 1.0f / static_cast<float>(s.r);
  Tensor out = make_tensor(out_shape, integral ? kInt64 : x.dtype(), x.device());
  if (x.dtype() == kFloat64)
    backend_of(out).sum_dim_float64(src.data_ptr<double>(), out.data_ptr<double>(), s.outer, s.r,
                                    s.inner, scale);
  else if (integral)
    backend_of(out).sum_dim_int64(src.data_ptr<int64_t>(), out.data_ptr<int64_t>(), s.outer, s.r,
                                  s.inner);
  else
    backend_of(out).sum_dim(src.data_ptr<float>(), out.data_ptr<float>(), s.outer, s.r, s.inner,
                            static_cast<float>(scale));
  if (autograd::needs_grad({&x})) {
    auto node = std::make_shared<SumBackward>();
    node->input_shape = x.shape();
    node->kept_shape = kept_shape;
    node->scale = scale;
    autograd::connect(out, node, {&x});
  }
  return out;
}

}  // namespace

Tensor Tensor::sum() const { return reduce_sum("sum", *this, 0, true, false, false); }
Tensor Tensor::sum(int64_t dim, bool keepdim) const {
  return reduce_sum("sum", *this, dim, false, keepdim, false);
}
Tensor Tensor::mean() const { return reduce_sum("mean", *this, 0, true, false, true); }
Tensor Tensor::mean(int64_t dim, bool keepdim) const {
  return reduce_sum("mean", *this, dim, false, keepdim, true);
}
Tensor sum(const Tensor& x) { return x.sum(); }
Tensor mean(const Tensor& x) { return x.mean(); }

Tensor Tensor::argmax(int64_t dim, bool keepdim) const {
  ops::check_defined("argmax", {"self", *this});
  TORCHLET_CHECK(dtype() != kBool,
                 "argmax: Expected a float32, float64 or int64 tensor, but got bool");
  const int d = normalize_dim("argmax", dim, this->dim());
  TORCHLET_CHECK(numel() > 0, "argmax: Expected a non-empty tensor, but got shape ", shape());
  Tensor src = contiguous();
  const ops::Split3 s = ops::split_at(shape(), d);
  Tensor out = make_tensor(reduced_shape(shape(), d, keepdim), kInt64, device());
  backend_of(out).argmax_dim(src.impl()->data(), dtype(), out.data_ptr<int64_t>(), s.outer, s.r,
                             s.inner);
  return out;
}
Tensor argmax(const Tensor& x, int64_t dim, bool keepdim) { return x.argmax(dim, keepdim); }

}  // namespace torchlet
