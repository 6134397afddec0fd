// from_blob: a tensor over memory torchlet does not own (a numpy array's, a caller's buffer),
// without a copy, as LibTorch's torch::from_blob.
#pragma once

#include <functional>

#include "torchlet/tensor.h"

namespace torchlet {

// `data` is on options.device; `shape` and `strides` are in elements (non-negative strides;
// row-major when omitted). Writes through the tensor or through the memory are seen by the
// other. deleter(data) runs once, on the thread that drops the last view of the memory; until
// then the caller keeps it valid (with an empty deleter, for as long as the tensor is used).
Tensor from_blob(void* data, const Shape& shape, const Shape& strides,
                 const std::function<void(void*)>& deleter, const TensorOptions& options = {});
Tensor from_blob(void* data, const Shape& shape, const std::function<void(void*)>& deleter = {},
                 const TensorOptions& options = {});

}  // namespace torchlet
