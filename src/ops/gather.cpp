// Indexing along one dimension: index_select, gather, scatter (tensor and value), scatter_add and
// index_add, on the backend's two kernels gather_dim and scatter_dim. Each one's backward is
// another of them: gather's is a scatter_add, scatter_add's (to src) a gather, index_select's an
// index_add, as PyTorch defines them.
#include <string>

#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

// Runs a backend call, naming op in front of the index error it may throw.
template <typename F>
void naming(const char* op, F&& call) {
  try {
    call();
  } catch (const Error& e) {
    throw e.with_context(std::string(op) + ": ");
  }
}

void check_index(const char* op, const Tensor& x, const Tensor& index) {
  ops::check_defined(op, {"self", x});
  ops::check_defined(op, {"index", index});
  ops::check_same_device(op, {{"self", x}, {"index", index}});
  ops::check_dtype(op, {"index", index}, kInt64);
}

// gather's and scatter's shape rules: index has x's number of dimensions and no size larger
// than x's (except along dim) or src's.
void check_sizes(const char* op, const Tensor& x, int d, const Tensor& index, const Tensor* src) {
  TORCHLET_CHECK(index.dim() == x.dim(), op, ": Expected an index with ", x.dim(),
                 " dimensions (the input's), but got shape ", index.shape());
  for (int k = 0; k < x.dim(); ++k) {
    const bool fits_x = k == d || index.shape()[k] <= x.shape()[k];
    const bool fits_src = !src || index.shape()[k] <= src->shape()[k];
    TORCHLET_CHECK(fits_x && fits_src, op, ": Expected index ", index.shape(),
                   " to be no larger than self ", x.shape(), " apart from dimension ", d,
                   src ? " and no larger than src " + src->shape().str() : std::string(),
                   ", but it is larger in dimension ", k);
  }
}

// t, zero-padded to `shape` (a gradient for a src larger than its index).
Tensor padded(const Tensor& t, const Shape& shape) {
  if (t.shape() == shape) return t;
  Tensor out = zeros(shape, TensorOptions(t.dtype()).with_device(t.device()));
  Tensor part = out;
  for (int k = 0; k < t.dim(); ++k) part = part.slice(k, 0, t.shape()[k]);
  part.copy_(t);
  return out;
}

// index viewed over `shape`: its values run along dim, repeated (stride 0) along the others.
Shape spread_strides(const Tensor& index, const Shape& shape, int dim) {
  Shape strides = shape;
  for (int k = 0; k < shape.size(); ++k) strides[k] = 0;
  strides[dim] = index.dim() == 0 ? 0 : index.strides()[0];
  return strides;
}

Tensor gather_kernel(const char* op, const Tensor& x, int d, const Tensor& index,
                     const Shape& index_strides, const Shape& out_shape) {
  Tensor out = make_tensor(out_shape, x.dtype(), x.device());
  const backend::IndexLoop loop{out_shape, index_strides, x.strides(), out.strides(),
                                d,         x.shape()[d]};
  naming(op, [&] {
    backend_of(out).gather_dim(x.dtype(), x.impl()->data(), index.data_ptr<int64_t>(),
                               out.impl()->data(), loop);
  });
  return out;
}

// A contiguous copy of x with src scattered into it (accumulated, or written).
Tensor scatter_kernel(const char* op, bool accumulate, const Tensor& x, int d, const Tensor& index,
                      const Shape& index_strides, const Shape& loop_shape, const Tensor& src) {
  TORCHLET_CHECK(!accumulate || x.dtype() != kBool, op,
                 ": Expected a float32 or int64 tensor to add into, but got bool");
  Tensor out = x.detach().clone();
  const Tensor s = src.detach().to(x.dtype());
  const backend::IndexLoop loop{loop_shape, index_strides, s.strides(), out.strides(),
                                d,          x.shape()[d]};
  naming(op, [&] {
    backend_of(out).scatter_dim(accumulate, x.dtype(), s.impl()->data(), index.data_ptr<int64_t>(),
                                out.impl()->data(), loop);
  });
  return out;
}

struct GatherBackward final : autograd::Node {
  const char* name() const override { return "GatherBackward"; }
  autograd::Grads apply(const Tensor& g) override {
    return {scatter_add(zeros(input_shape, TensorOptions(g.dtype()).with_device(g.device())), dim,
                        index, g)};
  }
  Shape input_shape;
  int dim;
  Tensor index;
};

struct ScatterBackward final : autograd::Node {
  const char* name() const override { return add ? "ScatterAddBackward" : "ScatterBackward"; }
  autograd::Grads apply(const Tensor& g) override {
    autograd::Grads grads;
    if (needs_grad(0)) grads[0] = add ? g : scatter(g, dim, index, 0.0);
    if (needs_grad(1)) grads[1] = padded(gather(g, dim, index), src_shape);
    return grads;
  }
  bool add;
  int dim;
  Tensor index;
  Shape src_shape;
};

struct IndexSelectBackward final : autograd::Node {
  const char* name() const override { return "IndexSelectBackward"; }
  autograd::Grads apply(const Tensor& g) override {
    return {index_add(zeros(input_shape, TensorOptions(g.dtype()).with_device(g.device())), dim,
                      index, g)};
  }
  Shape input_shape;
  int dim;
  Tensor index;
};

struct IndexAddBackward final : autograd::Node {
  const char* name() const override { return "IndexAddBackward"; }
  autograd::Grads apply(const Tensor& g) override {
    autograd::Grads grads;
    if (needs_grad(0)) grads[0] = g;
    if (needs_grad(1)) grads[1] = index_select(g, dim, index) * alpha;
    return grads;
  }
  int dim;
  Tensor index;
  Scalar alpha = 1;
};

// The 1-D index of index_select and index_add (a 0-dim one counts as one element).
void check_vector_index(const char* op, const Tensor& index) {
  TORCHLET_CHECK(index.dim() <= 1, op, ": Expected an index with at most one dimension, but got ",
                 "shape ", index.shape());
}

}  // namespace

Tensor gather(const Tensor& x_in, int64_t dim, const Tensor& index_in) {
  const char* op = "gather";
  check_index(op, x_in, index_in);
  if (x_in.dim() == 0) return gather(x_in.reshape({1}), dim, index_in.reshape({1})).reshape({});
  const int d = normalize_dim(op, dim, x_in.dim());
  check_sizes(op, x_in, d, index_in, nullptr);
  const Tensor index = index_in.detach();
  Tensor out = gather_kernel(op, x_in.detach(), d, index, index.strides(), index.shape());
  if (autograd::needs_grad({&x_in})) {
    auto node = std::make_shared<GatherBackward>();
    node->input_shape = x_in.shape(), node->dim = d, node->index = index;
    autograd::connect(out, node, {&x_in});
  }
  return out;
}

namespace {

Tensor scatter_impl(const char* op, bool add, const Tensor& x, int64_t dim, const Tensor& index_in,
                    const Tensor& src, bool src_is_value) {
  check_index(op, x, index_in);
  ops::check_same_device(op, {{"self", x}, {"src", src}});
  if (x.dim() == 0)
    return scatter_impl(op, add, x.reshape({1}), dim, index_in.reshape({1}),
                        src_is_value ? src : src.reshape({1}), src_is_value)
        .reshape({});
  const int d = normalize_dim(op, dim, x.dim());
  check_sizes(op, x, d, index_in, src_is_value ? nullptr : &src);
  const Tensor index = index_in.detach();
  const Tensor s = src_is_value ? ops::expand(src, index.shape()) : src;
  Tensor out = scatter_kernel(op, add, x, d, index, index.strides(), index.shape(), s);
  const Tensor none;
  const Tensor& src_arg = src_is_value ? none : src;  // a value gets no gradient
  if (autograd::needs_grad({&x, &src_arg})) {
    auto node = std::make_shared<ScatterBackward>();
    node->add = add, node->dim = d, node->index = index, node->src_shape = src.shape();
    autograd::connect(out, node, {&x, &src_arg});
  }
  return out;
}

}  // namespace

Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  ops::check_defined("scatter", {"src", src});
  return scatter_impl("scatter", false, x, dim, index, src, false);
}

Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value) {
  ops::check_defined("scatter", {"self", x});
  const double v = x.dtype() == kInt64 ? static_cast<double>(value.to_int64()) : value.to_double();
  return scatter_impl("scatter", false, x, dim, index,
                      full({}, v, TensorOptions(x.dtype()).with_device(x.device())), true);
}

Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  ops::check_defined("scatter_add", {"src", src});
  return scatter_impl("scatter_add", true, x, dim, index, src, false);
}

Tensor index_select(const Tensor& x_in, int64_t dim, const Tensor& index_in) {
  const char* op = "index_select";
  check_index(op, x_in, index_in);
  check_vector_index(op, index_in);
  if (x_in.dim() == 0) return index_select(x_in.reshape({1}), dim, index_in).reshape({});
  const int d = normalize_dim(op, dim, x_in.dim());
  const Tensor x = x_in.detach(), index = index_in.detach().reshape({-1});
  Shape shape = x.shape();
  shape[d] = index.numel();
  Tensor out;
  if (d == 0) {  // whole rows: the data loader's batches, one copy per row
    const Tensor src = x.contiguous();
    out = make_tensor(shape, x.dtype(), x.device());
    const int64_t rows = x.shape()[0];
    const std::size_t row_bytes = (rows ? x.numel() / rows : 0) * element_size(x.dtype());
    // The backend checks the indices (a GPU without waiting for them: see backend.h).
    backend_of(out).gather_rows(src.impl()->data(), rows, index.data_ptr<int64_t>(),
                                out.impl()->data(), index.numel(), row_bytes);
  } else {
    out = gather_kernel(op, x, d, index, spread_strides(index, shape, d), shape);
  }
  if (autograd::needs_grad({&x_in})) {
    auto node = std::make_shared<IndexSelectBackward>();
    node->input_shape = x_in.shape(), node->dim = d, node->index = index;
    autograd::connect(out, node, {&x_in});
  }
  return out;
}

Tensor index_select(const Tensor& x, const Tensor& index) { return index_select(x, 0, index); }

Tensor index_add(const Tensor& x_in, int64_t dim, const Tensor& index_in, const Tensor& source,
                 const Scalar& alpha) {
  const char* op = "index_add";
  check_index(op, x_in, index_in);
  ops::check_defined(op, {"source", source});
  ops::check_same_device(op, {{"self", x_in}, {"source", source}});
  check_vector_index(op, index_in);
  if (x_in.dim() == 0)
    return index_add(x_in.reshape({1}), dim, index_in, source.reshape({1}), alpha).reshape({});
  const int d = normalize_dim(op, dim, x_in.dim());
  const Tensor index = index_in.detach().reshape({-1});
  Shape expected = x_in.shape();
  expected[d] = index.numel();
  TORCHLET_CHECK(source.shape() == expected, op, ": Expected a source of shape ", expected,
                 " (self's, with the index's length in dimension ", d, "), but got ",
                 source.shape());
  const bool unit = alpha.is_integral() ? alpha.to_int64() == 1 : alpha.to_double() == 1.0;
  const Tensor s = unit ? source.detach() : source.detach() * alpha;
  Tensor out =
      scatter_kernel(op, true, x_in, d, index, spread_strides(index, expected, d), expected, s);
  if (autograd::needs_grad({&x_in, &source})) {
    auto node = std::make_shared<IndexAddBackward>();
    node->dim = d, node->index = index, node->alpha = alpha;
    autograd::connect(out, node, {&x_in, &source});
  }
  return out;
}

Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return torchlet::index_select(*this, dim, index);
}
Tensor Tensor::gather(int64_t dim, const Tensor& index) const {
  return torchlet::gather(*this, dim, index);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  return torchlet::scatter(*this, dim, index, src);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  return torchlet::scatter(*this, dim, index, value);
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return torchlet::scatter_add(*this, dim, index, src);
}
Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source,
                         const Scalar& alpha) const {
  return torchlet::index_add(*this, dim, index, source, alpha);
}

}  // namespace torchlet
