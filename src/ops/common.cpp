// What ops share: split_at, expand / sum_to for broadcasting, and coalesce. The argument
// checks are core's (core/checks.cpp).
#include "ops/common.h"

#include "torchlet/functional.h"

namespace torchlet::ops {

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
