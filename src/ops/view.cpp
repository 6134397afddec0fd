// Views that share storage: t(), slice(), narrow(), reshape(), flatten(). Each is differentiable.
#include <algorithm>
#include <optional>
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
  const char* name() const override { return "TransposeBackward0"; }
  autograd::Grads apply(const Tensor& g) override { return {g.t()}; }
};

struct SliceBackward final : autograd::Node {
  SliceBackward(const Shape& s, int d, int64_t b, int64_t e)
      : input_shape(s), dim(d), start(b), end(e) {}
  const char* name() const override { return "SliceBackward0"; }
  autograd::Grads apply(const Tensor& g) override {
    Tensor dx = zeros(input_shape, TensorOptions(g.dtype()).with_device(g.device()));
    dx.slice(dim, start, end).copy_(g);
    return {dx};
  }
  Shape input_shape;
  int dim;
  int64_t start, end;
};

struct ReshapeBackward final : autograd::Node {
  explicit ReshapeBackward(const Shape& s) : input_shape(s) {}
  const char* name() const override { return "ViewBackward0"; }
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
  const int d = normalize_dim("slice", dim, this->dim());
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
  const int d = normalize_dim("narrow", dim, this->dim());
  TORCHLET_CHECK(start >= 0 && length >= 0 && start + length <= shape()[d],
                 "narrow: Expected start >= 0, length >= 0 and start + length <= ", shape()[d],
                 " (the size of dim ", d, "), but got start ", start, " and length ", length);
  return slice(d, start, start + length);
}

// The requested shape with its -1 filled in, checked against the tensor's element count.
static Shape inferred_shape(const char* op, const Tensor& t, const Shape& requested) {
  Shape s = requested;
  int infer = -1;
  int64_t known = 1;
  for (int d = 0; d < s.size(); ++d) {
    if (s[d] == -1) {
      TORCHLET_CHECK(infer < 0, op, ": Expected at most one -1 in the shape, but got ", requested);
      infer = d;
    } else {
      TORCHLET_CHECK(s[d] >= 0, op, ": Expected sizes >= 0 or -1, but got ", requested);
      known *= s[d];
    }
  }
  if (infer >= 0 && known > 0) s[infer] = t.numel() / known;
  TORCHLET_CHECK(s.numel() == t.numel(), op, ": Expected a shape with ", t.numel(),
                 " elements to reshape ", t.shape(), " into, but got ", requested);
  return s;
}

Tensor Tensor::reshape(const Shape& requested) const {
  const Shape s = inferred_shape("reshape", *this, requested);
  if (is_contiguous()) {  // the common case, without the stride search of view()
    Tensor out = make_view(*this, impl()->offset, s, contiguous_strides(s));
    if (autograd::needs_grad({this}))
      autograd::connect(out, std::make_shared<ReshapeBackward>(shape()), {this});
    return out;
  }
  return can_view(s) ? view(s) : contiguous().reshape(s);
}

Tensor flatten(const Tensor& input, int64_t start_dim, int64_t end_dim) {
  ops::check_defined("flatten", {"input", input});
  const int nd = input.dim();
  if (nd == 0) return input.reshape(Shape{1});
  const int start = normalize_dim("flatten", start_dim, nd);
  const int end = normalize_dim("flatten", end_dim, nd);
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

// --- permute, transpose, unsqueeze, squeeze, expand, select, view, unflatten -------------------

namespace torchlet {

namespace {

struct PermuteBackward final : autograd::Node {
  const char* name() const override { return "PermuteBackward0"; }
  autograd::Grads apply(const Tensor& g) override { return {g.permute(inverse)}; }
  std::vector<int64_t> inverse;
};

struct ExpandBackward final : autograd::Node {
  explicit ExpandBackward(const Shape& s) : input_shape(s) {}
  const char* name() const override { return "ExpandBackward0"; }
  autograd::Grads apply(const Tensor& g) override { return {ops::sum_to(g, input_shape)}; }
  Shape input_shape;
};

// A view of `t` with new sizes and strides whose gradient is the output's, reshaped back.
Tensor restride(const Tensor& t, const Shape& shape, const Shape& strides) {
  Tensor out = make_view(t, t.impl()->offset, shape, strides);
  if (autograd::needs_grad({&t}))
    autograd::connect(out, std::make_shared<ReshapeBackward>(t.shape()), {&t});
  return out;
}

// PyTorch's computeStride: the strides that let `shape` view `t` without a copy, or nothing when
// some new dimension would span two runs of memory that are not evenly spaced.
std::optional<Shape> view_strides(const Tensor& t, const Shape& shape) {
  const Shape& old = t.shape();
  const Shape& old_strides = t.strides();
  Shape strides = shape;
  if (old.numel() == 0 || old.empty()) return contiguous_strides(shape);
  int view_d = shape.size() - 1;
  int64_t chunk_base_stride = old_strides[old.size() - 1], tensor_numel = 1, view_numel = 1;
  for (int d = old.size() - 1; d >= 0; --d) {
    tensor_numel *= old[d];
    if (d == 0 || (old[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return strides;
}

}  // namespace

Tensor Tensor::permute(const std::vector<int64_t>& dims) const {
  const int nd = dim();
  TORCHLET_CHECK(static_cast<int>(dims.size()) == nd, "permute: Expected ", nd,
                 " dimensions (the tensor's), but got ", dims.size());
  Shape shape = this->shape(), strides = this->strides();
  std::vector<int64_t> inverse(dims.size(), -1);
  for (int i = 0; i < nd; ++i) {
    const int d = normalize_dim("permute", dims[i], nd);
    TORCHLET_CHECK(inverse[d] < 0, "permute: Expected each dimension once, but got ", d, " twice");
    inverse[d] = i;
    shape[i] = this->shape()[d];
    strides[i] = this->strides()[d];
  }
  Tensor out = make_view(*this, impl()->offset, shape, strides);
  if (autograd::needs_grad({this})) {
    auto node = std::make_shared<PermuteBackward>();
    node->inverse = inverse;
    autograd::connect(out, node, {this});
  }
  return out;
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  const int nd = std::max(dim(), 1);
  const int a = normalize_dim("transpose", dim0, dim()),
            b = normalize_dim("transpose", dim1, dim());
  if (dim() < 2 || a == b) return *this;
  std::vector<int64_t> order(static_cast<std::size_t>(nd));
  for (int i = 0; i < nd; ++i) order[i] = i;
  std::swap(order[a], order[b]);
  return permute(order);
}

Tensor Tensor::unsqueeze(int64_t dim) const {
  const int d = normalize_dim("unsqueeze", dim, this->dim() + 1);
  TORCHLET_CHECK(this->dim() < Shape::kMaxDims, "unsqueeze: Expected at most ", Shape::kMaxDims,
                 " dimensions in the result, but got shape ", shape(), " and one more");
  std::vector<int64_t> sizes = shape().vec(), strides = this->strides().vec();
  const int64_t stride = d < this->dim() ? strides[d] * sizes[d] : 1;
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return restride(*this, Shape(sizes), Shape(strides));
}

Tensor Tensor::squeeze() const {
  std::vector<int64_t> sizes, strides;
  for (int d = 0; d < dim(); ++d)
    if (shape()[d] != 1) sizes.push_back(shape()[d]), strides.push_back(this->strides()[d]);
  return restride(*this, Shape(sizes), Shape(strides));
}

Tensor Tensor::squeeze(int64_t dim) const {
  const int d = normalize_dim("squeeze", dim, this->dim());
  if (this->dim() == 0 || shape()[d] != 1) return *this;  // PyTorch: a no-op, not an error
  std::vector<int64_t> sizes = shape().vec(), strides = this->strides().vec();
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return restride(*this, Shape(sizes), Shape(strides));
}

Tensor Tensor::expand(const Shape& requested) const {
  const int lead = requested.size() - dim();
  TORCHLET_CHECK(lead >= 0, "expand: Expected at least ", dim(),
                 " sizes (the tensor's dimensions), but got ", requested);
  Shape shape = requested;
  for (int d = 0; d < shape.size(); ++d) {
    const int src = d - lead;
    if (shape[d] == -1) {
      TORCHLET_CHECK(src >= 0, "expand: Expected -1 only for existing dimensions, but got ",
                     requested, " for shape ", this->shape());
      shape[d] = this->shape()[src];
    }
    TORCHLET_CHECK(src < 0 || this->shape()[src] == 1 || this->shape()[src] == shape[d],
                   "expand: Expected the expanded size ", shape[d], " to match the existing size ",
                   src >= 0 ? this->shape()[src] : 1, " at non-singleton dimension ", d,
                   ", target sizes ", requested, ", tensor sizes ", this->shape());
  }
  Tensor out = ops::expand(*this, shape);
  if (autograd::needs_grad({this}))
    autograd::connect(out, std::make_shared<ExpandBackward>(this->shape()), {this});
  return out;
}

Tensor Tensor::select(int64_t dim, int64_t index) const {
  const int d = normalize_dim("select", dim, this->dim());
  TORCHLET_CHECK(this->dim() > 0,
                 "select: Expected a tensor with at least one dimension, but got "
                 "a 0-dim tensor");
  const int64_t size = shape()[d];
  TORCHLET_CHECK(index >= -size && index < size, "select: Expected an index in [", -size, ", ",
                 size, ") for dimension ", d, " of size ", size, ", but got ", index);
  const int64_t i = index < 0 ? index + size : index;
  return slice(d, i, i + 1).squeeze(d);
}

Tensor Tensor::operator[](int64_t index) const { return select(0, index); }

Tensor Tensor::view(const Shape& requested) const {
  const Shape shape = inferred_shape("view", *this, requested);
  const std::optional<Shape> strides = view_strides(*this, shape);
  TORCHLET_CHECK(strides.has_value(),
                 "view size is not compatible with input tensor's size and stride (at least one "
                 "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  return restride(*this, shape, *strides);
}

bool Tensor::can_view(const Shape& shape) const { return view_strides(*this, shape).has_value(); }

Tensor Tensor::unflatten(int64_t dim, const std::vector<int64_t>& sizes) const {
  const int d = normalize_dim("unflatten", dim, this->dim());
  std::vector<int64_t> shape = this->shape().vec();
  shape.erase(shape.begin() + d);
  shape.insert(shape.begin() + d, sizes.begin(), sizes.end());
  int64_t product = 1, infer = -1;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] == -1)
      infer = static_cast<int64_t>(i);
    else
      product *= sizes[i];
  if (infer >= 0 && product > 0) shape[d + infer] = this->shape()[d] / product;
  int64_t total = 1;
  for (std::size_t i = 0; i < sizes.size(); ++i) total *= shape[d + i];
  TORCHLET_CHECK(total == this->shape()[d], "unflatten: Expected sizes whose product is ",
                 this->shape()[d], " (the size of dimension ", d, "), but got ", Shape(sizes));
  return view(Shape(shape));
}

}  // namespace torchlet
