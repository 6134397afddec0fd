// Reductions beyond sum and mean: over several dims, max/min (values and indices), argmin, amax,
// prod, var/std, norm, logsumexp, all/any, cumsum. Max, Min, Prod and cumsum are backend kernels
// (backend::reduce_dim, cumsum_dim); the rest are composed from other ops, so their gradients
// come with them.
#include <algorithm>
#include <cmath>

#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

using backend::ReduceOp;

// dims made non-negative, sorted and unique; every dim when the list is empty.
std::vector<int> normalize_dims(const char* op, const std::vector<int64_t>& dims, int ndim) {
  std::vector<int> out;
  if (dims.empty())
    for (int d = 0; d < ndim; ++d) out.push_back(d);
  for (int64_t d : dims) out.push_back(normalize_dim(op, d, ndim));
  std::sort(out.begin(), out.end());
  for (std::size_t i = 1; i < out.size(); ++i)
    TORCHLET_CHECK(out[i] != out[i - 1], op, ": Expected each dim once, but got dim ", out[i],
                   " twice");
  return out;
}

// The shape with the reduced dims dropped (or kept as 1).
Shape reduced(const Shape& shape, const std::vector<int>& dims, bool keepdim) {
  std::vector<int64_t> out;
  for (int d = 0; d < shape.size(); ++d) {
    const bool r = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!r)
      out.push_back(shape[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return Shape(out);
}

// d(max or min along d)/dx: the gradient goes to the position the index names, as in PyTorch.
struct SelectReduceBackward final : autograd::Node {
  const char* name() const override { return "MaxBackward0"; }
  autograd::Grads apply(const Tensor& g) override {
    const Tensor positions = arange(size, TensorOptions(kInt64).with_device(g.device()));
    Shape along(std::vector<int64_t>(static_cast<std::size_t>(ndim), 1));
    along[dim] = size;
    const Tensor hit = positions.reshape(along) == (keepdim ? indices : indices.unsqueeze(dim));
    return {where(hit, keepdim ? g : g.unsqueeze(dim), 0.0)};
  }
  Tensor indices;
  int dim, ndim;
  int64_t size;
  bool keepdim;
};

struct ProdBackward final : autograd::Node {
  const char* name() const override { return "ProdBackward0"; }
  autograd::Grads apply(const Tensor& g) override {
    // Exact with zeros: a non-zero x gets out / x (0 if another x is 0); a zero gets the
    // product of the others when it is the only zero, else 0.
    const Tensor gk = keepdim ? g : g.unsqueeze(dim);
    const Tensor ok = keepdim ? out : out.unsqueeze(dim);
    const Tensor zero = x == 0;
    const Tensor others = where(zero, 1.0, x).prod(dim, true);
    const Tensor lone = zero.sum(dim, true) == 1;
    return {gk * where(zero, where(lone, others, 0.0), ok / where(zero, 1.0, x))};
  }
  Tensor x, out;
  int dim;
  bool keepdim;
};

struct CumsumBackward final : autograd::Node {
  const char* name() const override { return "CumsumBackward0"; }
  autograd::Grads apply(const Tensor& g) override {  // sum over k >= j of g[k]
    return {g.sum(dim, true) - g.cumsum(dim) + g};
  }
  int dim;
};

// The reduce_dim kernel along one dim: float32, float64 or int64 (bool as int64, as PyTorch's
// prod).
Tensor reduce_kernel(const char* name, ReduceOp op, const Tensor& x, int d, bool keepdim) {
  TORCHLET_CHECK(op == ReduceOp::Prod || x.dim() == 0 || x.shape()[d] > 0, name,
                 "(): Expected reduction dim ", d, " to have non-zero size, but got shape ",
                 x.shape());
  const DType dtype = is_floating_point(x.dtype()) ? x.dtype() : kInt64;
  const Tensor src = x.to(dtype).contiguous();
  const ops::Split3 s = ops::split_at(x.shape(), d);
  Tensor out = make_tensor(reduced(x.shape(), {d}, keepdim), dtype, x.device());
  backend_of(out).reduce_dim(op, dtype, src.impl()->data(), out.impl()->data(), s.outer, s.r,
                             s.inner);
  return out;
}

}  // namespace

Tensor sum(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  ops::check_defined("sum", {"input", x});
  const std::vector<int> ds = normalize_dims("sum", dims, x.dim());
  Tensor out = x;
  for (auto it = ds.rbegin(); it != ds.rend(); ++it) out = out.sum(*it, true);
  return keepdim ? out : out.reshape(reduced(x.shape(), ds, false));
}

Tensor mean(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  ops::check_defined("mean", {"input", x});
  const std::vector<int> ds = normalize_dims("mean", dims, x.dim());
  TORCHLET_CHECK(is_floating_point(x.dtype()),
                 "mean: Expected a floating-point tensor (the mean of "
                 "integers is not one), but got ",
                 x.dtype(), " (convert it with .to(kFloat32))");
  int64_t count = 1;
  for (int d : ds) count *= x.shape()[d];
  return sum(x, dims, keepdim) / static_cast<double>(count);
}

// max or min along dim: the kernel's values, argmax/argmin's indices, the gradient to those.
std::tuple<Tensor, Tensor> select_reduce(const char* name, ReduceOp op, const Tensor& x,
                                         int64_t dim, bool keepdim) {
  ops::check_defined(name, {"input", x});
  const int d = normalize_dim(name, dim, x.dim());
  Tensor values = reduce_kernel(name, op, x, d, keepdim).to(x.dtype());
  Tensor indices = op == ReduceOp::Max ? x.argmax(d, keepdim) : argmin(x, d, keepdim);
  if (autograd::needs_grad({&x})) {
    auto node = std::make_shared<SelectReduceBackward>();
    node->indices = indices, node->dim = d, node->ndim = std::max(x.dim(), 1);
    node->size = x.dim() ? x.shape()[d] : 1, node->keepdim = keepdim;
    autograd::connect(values, node, {&x});
  }
  return {values, indices};
}

std::tuple<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) {
  return select_reduce("max", ReduceOp::Max, x, dim, keepdim);
}

std::tuple<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) {
  return select_reduce("min", ReduceOp::Min, x, dim, keepdim);
}

// The first smallest: the first largest of -x (NaN still wins, as in PyTorch).
Tensor argmin(const Tensor& x, int64_t dim, bool keepdim) {
  ops::check_defined("argmin", {"input", x});
  NoGradGuard no_grad;
  return (-x.to(x.dtype() == kBool ? kInt64 : x.dtype())).argmax(dim, keepdim);
}

namespace {

// amax/amin over dims, the last first. Without a gradient to keep, only the values (the first
// pass reads every element, the others what is left); with one, through max/min(dim) and their
// indices.
Tensor extreme(const char* name, ReduceOp op, const Tensor& x, const std::vector<int64_t>& dims,
               bool keepdim) {
  ops::check_defined(name, {"input", x});
  const std::vector<int> ds = normalize_dims(name, dims, x.dim());
  const bool grad = autograd::needs_grad({&x});
  Tensor out = x;
  for (auto it = ds.rbegin(); it != ds.rend(); ++it)
    out = grad ? std::get<0>(select_reduce(name, op, out, *it, true))
               : reduce_kernel(name, op, out, *it, true).to(x.dtype());
  return keepdim ? out : out.reshape(reduced(x.shape(), ds, false));
}

}  // namespace

Tensor amax(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  return extreme("amax", ReduceOp::Max, x, dims, keepdim);
}

Tensor amin(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  return extreme("amin", ReduceOp::Min, x, dims, keepdim);
}

Tensor max(const Tensor& x) { return extreme("max", ReduceOp::Max, x, {}, false); }
Tensor min(const Tensor& x) { return extreme("min", ReduceOp::Min, x, {}, false); }

Tensor prod(const Tensor& x, int64_t dim, bool keepdim) {
  ops::check_defined("prod", {"input", x});
  const int d = normalize_dim("prod", dim, x.dim());
  Tensor out = reduce_kernel("prod", ReduceOp::Prod, x.dim() ? x : x.reshape({1}), x.dim() ? d : 0,
                             keepdim && x.dim());
  if (is_floating_point(x.dtype()) && autograd::needs_grad({&x})) {
    auto node = std::make_shared<ProdBackward>();
    node->x = x.detach(), node->out = out.detach(), node->dim = d, node->keepdim = keepdim;
    autograd::connect(out, node, {&x});
  }
  return out;
}

Tensor prod(const Tensor& x) { return prod(x.reshape({-1}), 0, false); }

Tensor var(const Tensor& x, const std::vector<int64_t>& dims, double correction, bool keepdim) {
  ops::check_defined("var", {"input", x});
  const std::vector<int> ds = normalize_dims("var", dims, x.dim());
  int64_t count = 1;
  for (int d : ds) count *= x.shape()[d];
  const Tensor centred = x - mean(x, dims, true);
  return sum(centred * centred, dims, keepdim) /
         std::max(static_cast<double>(count) - correction, 0.0);
}

Tensor std(const Tensor& x, const std::vector<int64_t>& dims, double correction, bool keepdim) {
  return sqrt(var(x, dims, correction, keepdim));
}

Tensor norm(const Tensor& x, double p, const std::vector<int64_t>& dims, bool keepdim) {
  ops::check_defined("norm", {"input", x});
  TORCHLET_CHECK(p > 0, "norm: Expected p > 0 (or infinity), but got ", p);
  if (std::isinf(p)) return amax(abs(x), dims, keepdim);
  if (p == 2) return sqrt(sum(x * x, dims, keepdim));
  if (p == 1) return sum(abs(x), dims, keepdim);
  return pow(sum(pow(abs(x), p), dims, keepdim), 1.0 / p);
}

Tensor logsumexp(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  ops::check_defined("logsumexp", {"input", x});
  // m + log(sum(exp(x - m))), m the largest element (0 where it is infinite); its gradient is
  // softmax, as PyTorch's.
  Tensor m = amax(x, dims, true).detach();
  m = where(isfinite(m), m, 0.0);
  Tensor out = log(sum(exp(x - m), dims, true)) + m;
  return keepdim
             ? out
             : out.reshape(reduced(x.shape(), normalize_dims("logsumexp", dims, x.dim()), false));
}

Tensor all(const Tensor& x) { return (x == 0).sum() == 0; }
Tensor any(const Tensor& x) { return (x != 0).sum() > 0; }
Tensor all(const Tensor& x, int64_t dim, bool keepdim) { return (x == 0).sum(dim, keepdim) == 0; }
Tensor any(const Tensor& x, int64_t dim, bool keepdim) { return (x != 0).sum(dim, keepdim) > 0; }

Tensor cumsum(const Tensor& x, int64_t dim) {
  ops::check_defined("cumsum", {"input", x});
  const int d = normalize_dim("cumsum", dim, x.dim());
  const DType dtype = is_floating_point(x.dtype()) ? x.dtype() : kInt64;
  const Tensor src = x.to(dtype).contiguous();
  const ops::Split3 s = ops::split_at(x.shape(), d);
  Tensor out = make_tensor(x.shape(), dtype, x.device());
  backend_of(out).cumsum_dim(dtype, src.impl()->data(), out.impl()->data(), s.outer, s.r, s.inner);
  if (autograd::needs_grad({&x})) {
    auto node = std::make_shared<CumsumBackward>();
    node->dim = d;
    autograd::connect(out, node, {&x});
  }
  return out;
}

Tensor Tensor::sum(const std::vector<int64_t>& dims, bool keepdim) const {
  return torchlet::sum(*this, dims, keepdim);
}
Tensor Tensor::mean(const std::vector<int64_t>& dims, bool keepdim) const {
  return torchlet::mean(*this, dims, keepdim);
}
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return torchlet::max(*this, dim, keepdim);
}
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  return torchlet::min(*this, dim, keepdim);
}
Tensor Tensor::max() const { return torchlet::max(*this); }
Tensor Tensor::min() const { return torchlet::min(*this); }
Tensor Tensor::argmin(int64_t dim, bool keepdim) const {
  return torchlet::argmin(*this, dim, keepdim);
}
Tensor Tensor::prod() const { return torchlet::prod(*this); }
Tensor Tensor::prod(int64_t dim, bool keepdim) const { return torchlet::prod(*this, dim, keepdim); }
Tensor Tensor::cumsum(int64_t dim) const { return torchlet::cumsum(*this, dim); }
Tensor Tensor::all() const { return torchlet::all(*this); }
Tensor Tensor::any() const { return torchlet::any(*this); }

}  // namespace torchlet
