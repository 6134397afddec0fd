// TensorImpl and Storage: what a Tensor handle points to. Storage owns device memory (given
// back to its backend's allocator when the last view dies); TensorImpl is a view of it
// (offset, sizes, strides, dtype) plus the autograd fields. Internal: not installed.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "backends/backend.h"
#include "torchlet/tensor.h"

namespace torchlet {

namespace autograd {
class Node;
}
namespace backend {
class RecordingPool;
}

// While torchlet::compile records on this thread, memory comes from the recording's pool
// and memory freed goes to it (backends/recorder.h says why). Memory from from_blob is not
// the backend's: its deleter (if any) is all the destructor runs.
struct Storage {
  Storage(backend::Backend& owner, std::size_t size);
  Storage(backend::Backend& owner, void* foreign_data, std::size_t size,
          std::function<void(void*)> deleter);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  backend::Backend* backend;
  std::size_t nbytes;
  void* data;
  std::shared_ptr<backend::RecordingPool> pool;  // set when made during a recording
  bool foreign = false;                          // from_blob's memory
  std::function<void(void*)> deleter;            // from_blob's, run on foreign memory
};

class TensorImpl {
 public:
  TensorImpl(std::shared_ptr<Storage> storage, int64_t offset, const Shape& shape,
             const Shape& strides, DType dtype)
      : storage(std::move(storage)), offset(offset), shape(shape), strides(strides), dtype(dtype) {}

  void* data() const {
    return static_cast<char*>(storage->data) + offset * static_cast<int64_t>(element_size(dtype));
  }
  backend::Backend& backend() const { return *storage->backend; }
  Device device() const { return storage->backend->device(); }

  std::shared_ptr<Storage> storage;
  int64_t offset;  // in elements
  Shape shape;
  Shape strides;  // in elements
  DType dtype;

  // Autograd: a leaf that requires_grad accumulates into grad; a result of a recorded op has
  // grad_fn, the node that computes its inputs' gradients.
  bool requires_grad = false;
  Tensor grad;
  std::shared_ptr<autograd::Node> grad_fn;
  // A leaf's register_hook hooks (a non-leaf's are its grad_fn's pre_hooks).
  std::vector<std::function<Tensor(const Tensor&)>> hooks;
};

// Row-major strides of a contiguous tensor of this shape.
Shape contiguous_strides(const Shape& shape);
// A new contiguous tensor with uninitialised memory.
Tensor make_tensor(const Shape& shape, DType dtype, const Device& device);
// Moves t's data (and gradient) to `device` in place: every handle to t sees the new device.
// How nn::Module::to() moves parameters.
void move_in_place(const Tensor& t, const Device& device);
// Converts t's data (and gradient) to `dtype` in place, the same way (nn::Module::to(DType)).
void convert_in_place(const Tensor& t, DType dtype);
// The backend to run t's kernels on (the recorder while torchlet::compile records them).
inline backend::Backend& backend_of(const Tensor& t) {
  return backend::routed(t.impl()->backend());
}

}  // namespace torchlet
