// Argument checks shared by every op, and expand / sum_to for broadcasting.
#include "ops/common.h"

#include "torchlet/functional.h"

namespace torchlet::ops {

void check_defined(const char* op, const Arg& arg) {
  TORCHLET_CHECK(arg.tensor.defined(), op, ": Expected argument '", arg.name,
                 "' to be a defined tensor, but got an undefined Tensor()");
}

void check_same_device(const char* op,
                       std::initializer_list<std::pair<const char*, Device>> devices) {
  const Device* first = nullptr;
  for (const auto& [name, device] : devices) {
    if (!first) {
      first = &device;
      continue;
    }
    TORCHLET_CHECK(device == *first,
                   "Expected all tensors to be on the same device, but found "
                   "at least two devices, ",
                   *first, " and ", device, "! (argument '", name, "' of ", op, ")");
  }
}

void check_same_device(const char* op, std::initializer_list<Arg> args) {
  const Tensor* first = nullptr;
  for (const Arg& arg : args) {
    if (!arg.tensor.defined()) continue;
    if (!first) {
      first = &arg.tensor;
    } else if (arg.tensor.device() != first->device()) {
      check_same_device(op, {{"", first->device()}, {arg.name, arg.tensor.device()}});
    }
  }
}

void check_dtype(const char* op, const Arg& arg, DType expected) {
  TORCHLET_CHECK(arg.tensor.dtype() == expected, op, ": Expected argument '", arg.name,
                 "' to have dtype ", expected, ", but got ", arg.tensor.dtype());
}

void check_dim(const char* op, const Arg& arg, int expected_dim) {
  TORCHLET_CHECK(arg.tensor.dim() == expected_dim, op, ": Expected argument '", arg.name,
                 "' to be ", expected_dim, "-D, but got shape ", arg.tensor.shape());
}

int normalize_dim(const char* op, int64_t dim, int ndim) {
  const int64_t lo = ndim == 0 ? -1 : -ndim, hi = ndim == 0 ? 0 : ndim - 1;
  TORCHLET_CHECK(dim >= lo && dim <= hi, op, ": Expected dim in [", lo, ", ", hi, "], but got ",
                 dim);
  return static_cast<int>(dim < 0 ? dim + (ndim == 0 ? 1 : ndim) : dim);
}

Split3 split_at(const Shape& shape, int d) {
  Split3 s{1, shape.empty() ? 1 : shape[d], 1};
  for (int i = 0; i < d; ++i) s.outer *= shape[i];
  for (int i = d + 1; i < shape.size(); ++i) s.inner *= shape[i];
  return s;
}

Tensor expand(const Tensor& t, const Shape& shape) {
  const int lead = shape.size() - t.dim();
  TORCHLET_ASSERT(lead >= 0);
  Shape strides = shape;
  for (int d = 0; d < shape.size(); ++d) {
    const int src = d - lead;
    const bool broadcast = src < 0 || (t.shape()[src] == 1 && shape[d] != 1);
    TORCHLET_ASSERT(broadcast || t.shape()[src] == shape[d]);
    strides[d] = broadcast ? 0 : t.strides()[src];
  }
  TensorImpl& impl = *t.impl();
  return Tensor(std::make_shared<TensorImpl>(impl.storage, impl.offset, shape, strides, t.dtype()));
}

Tensor sum_to(const Tensor& t, const Shape& shape) {
  if (t.shape() == shape) return t;
  Tensor out = t;
  const int lead = t.dim() - shape.size();
  for (int d = 0; d < lead; ++d) out = out.sum(0);
  for (int d = 0; d < shape.size(); ++d)
    if (shape[d] == 1 && out.shape()[d] != 1) out = out.sum(d, /*keepdim=*/true);
  return out;
}

}  // namespace torchlet::ops

namespace torchlet::ops {

backend::Loop coalesce(const backend::Loop& loop) {
  backend::Loop out;
  int n = 0;
  int64_t sizes[Shape::kMaxDims], sa[Shape::kMaxDims], sb[Shape::kMaxDims];
  for (int d = 0; d < loop.shape.size(); ++d) {
    const int64_t size = loop.shape[d];
    if (size == 1) continue;
    if (n > 0 && sa[n - 1] == loop.stride_a[d] * size && sb[n - 1] == loop.stride_b[d] * size) {
      sizes[n - 1] *= size;
      sa[n - 1] = loop.stride_a[d];
      sb[n - 1] = loop.stride_b[d];
      continue;
    }
    sizes[n] = size;
    sa[n] = loop.stride_a[d];
    sb[n] = loop.stride_b[d];
    ++n;
  }
  if (n == 0 && loop.shape.numel() == 1) {  // a single element still runs once
    sizes[0] = 1, sa[0] = 1, sb[0] = 1, n = 1;
  }
  out.shape = Shape(std::span<const int64_t>(sizes, n));
  out.stride_a = Shape(std::span<const int64_t>(sa, n));
  out.stride_b = Shape(std::span<const int64_t>(sb, n));
  return out;
}

}  // namespace torchlet::ops
