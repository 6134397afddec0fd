// Views that share storage: t(), slice(), narrow(), reshape(). Each is differentiable.
#include <algorithm>

#include "autograd/node.h"
#include "ops/common.h"

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

}  // namespace torchlet
