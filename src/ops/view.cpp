// Views that share storage: t(), slice(), narrow(), reshape(), flatten(). Each is differentiable.
#include <algorithm>
#include <vector>

#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

Tensor make_view(const Tensor& base, int64_t offset, const Shape& shape, const Shape& strides) {
  const TensorImpl& impl = *base.impl();
  return Tensor(std::make_shared<TensorImpl>(impl.storage, offset, shape, strides, impl.dtype));
}

struct TransposeBackward final : autograd::Node {
  const char* name() const override { return "TransposeBackward"; }
  autograd::Grads apply(const Tensor& g) override { return {g.t()}; }
};

struct SliceBackward final : autograd::Node {
  SliceBackward(const Shape& s, int d, int64_t b, int64_t e)
      : input_shape(s), dim(d), start(b), end(e) {}
  const char* name() const override { return "SliceBackward"; }
  autograd::Grads apply(const Tensor& g) override {
    Tensor dx = zeros(input_shape, TensorOptions(g.device()));
    dx.slice(dim, start, end).copy_(g);
    return {dx};
  }
  Shape input_shape;
  int dim;
  int64_t start, end;
};

struct ReshapeBackward final : autograd::Node {
  explicit ReshapeBackward(const Shape& s) : input_shape(s) {}
  const char* name() const override { return "ReshapeBackward"; }
  autograd::Grads apply(const Tensor& g) override { return {g.reshape(input_shape)}; }
  Shape input_shape;
};

}  // namespace

Tensor Tensor::t() const {
  TORCHLET_CHECK(dim() <= 2, "t: Expected a tensor with at most 2 dimensions, but got shape ",
                 shape());
  if (dim() < 2) return *this;
  Tensor out = make_view(*this, impl()->offset, Shape{shape()[1], shape()[0]},
                         Shape{strides()[1], strides()[0]});
  if (autograd::needs_grad({this}))
    autograd::connect(out, std::make_shared<TransposeBackward>(), {this});
  return out;
}

Tensor Tensor::slice(int64_t dim, int64_t start, int64_t end) const {
  const int d = ops::normalize_dim("slice", dim, this->dim());
  const int64_t size = shape()[d];
  // Python's rules: negative bounds count from the end, out-of-range bounds are clamped.
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  Shape s = shape();
  s[d] = end - start;
  Tensor out = make_view(*this, impl()->offset + start * strides()[d], s, strides());
  if (autograd::needs_grad({this}))
    autograd::connect(out, std::make_shared<SliceBackward>(shape(), d, start, end), {this});
  return out;
}

Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  const int d = ops::normalize_dim("narrow", dim, this->dim());
  TORCHLET_CHECK(start >= 0 && length >= 0 && start + length <= shape()[d],
                 "narrow: Expected start >= 0, length >= 0 and start + length <= ", shape()[d],
                 " (the size of dim ", d, "), but got start ", start, " and length ", length);
  return slice(d, start, start + length);
}

Tensor Tensor::reshape(const Shape& requested) const {
  Shape s = requested;
  int infer = -1;
  int64_t known = 1;
  for (int d = 0; d < s.size(); ++d) {
    if (s[d] == -1) {
      TORCHLET_CHECK(infer < 0, "reshape: Expected at most one -1 in the shape, but got ",
                     requested);
      infer = d;
    } else {
      TORCHLET_CHECK(s[d] >= 0, "reshape: Expected sizes >= 0 or -1, but got ", requested);
      known *= s[d];
    }
  }
  if (infer >= 0 && known > 0) s[infer] = numel() / known;
  TORCHLET_CHECK(s.numel() == numel(), "reshape: Expected a shape with ", numel(),
                 " elements to reshape ", shape(), " into, but got ", requested);
  Tensor src = contiguous();
  Tensor out = make_view(src, src.impl()->offset, s, contiguous_strides(s));
  if (autograd::needs_grad({this}))
    autograd::connect(out, std::make_shared<ReshapeBackward>(shape()), {this});
  return out;
}

Tensor flatten(const Tensor& input, int64_t start_dim, int64_t end_dim) {
  ops::check_defined("flatten", {"input", input});
  const int nd = input.dim();
  if (nd == 0) return input.reshape(Shape{1});
  const int start = ops::normalize_dim("flatten", start_dim, nd);
  const int end = ops::normalize_dim("flatten", end_dim, nd);
  TORCHLET_CHECK(start <= end, "flatten: Expected start_dim <= end_dim, but got start_dim ",
                 start_dim, " and end_dim ", end_dim, " for input of shape ", input.shape());
  std::vector<int64_t> sizes;
  int64_t merged = 1;
  for (int d = 0; d < nd; ++d) {
    if (d < start || d > end) {
      sizes.push_back(input.shape()[d]);
    } else {
      merged *= input.shape()[d];
      if (d == end) sizes.push_back(merged);
    }
  }
  return input.reshape(Shape(sizes));
}

}  // namespace torchlet
