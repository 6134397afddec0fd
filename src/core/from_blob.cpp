// from_blob: a tensor over memory torchlet does not own (a numpy array's, a caller's buffer),
// as LibTorch's. The Storage keeps the pointer and the deleter; no allocator is involved.
#include "torchlet/from_blob.h"

#include "core/tensor_impl.h"
#include "torchlet/error.h"

namespace torchlet {

Tensor from_blob(void* data, const Shape& shape, const Shape& strides,
                 const std::function<void(void*)>& deleter, const TensorOptions& options) {
  TORCHLET_CHECK(strides.size() == shape.size(), "from_blob: Expected ", shape.size(),
                 " strides for shape ", shape, ", but got ", strides.size());
  // Elements spanned: one past the furthest element (none when a size is 0).
  int64_t extent = shape.numel() == 0 ? 0 : 1;
  for (int d = 0; d < shape.size(); ++d) {
    TORCHLET_CHECK(shape[d] >= 0, "from_blob: Expected non-negative sizes, but got shape ", shape);
    TORCHLET_CHECK(strides[d] >= 0, "from_blob: Expected non-negative strides, but got strides ",
                   strides);
    if (extent > 0) extent += (shape[d] - 1) * strides[d];
  }
  TORCHLET_CHECK(data != nullptr || extent == 0,
                 "from_blob: Expected a data pointer, but got nullptr for shape ", shape);
  auto storage = std::make_shared<Storage>(
      backend::get(options.device), data,
      static_cast<std::size_t>(extent) * element_size(options.dtype), deleter);
  Tensor t(std::make_shared<TensorImpl>(std::move(storage), 0, shape, strides, options.dtype));
  if (options.requires_grad) t.set_requires_grad(true);
  return t;
}

Tensor from_blob(void* data, const Shape& shape, const std::function<void(void*)>& deleter,
                 const TensorOptions& options) {
  return from_blob(data, shape, contiguous_strides(shape), deleter, options);
}

}  // namespace torchlet
