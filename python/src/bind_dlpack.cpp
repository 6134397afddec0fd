// DLPack (Debian's libdlpack-dev, version 0.6), the array-exchange protocol of numpy >= 1.22,
// PyTorch, JAX and CuPy: Tensor.__dlpack__() / __dlpack_device__() let np.from_dlpack(t) and
// torch.from_dlpack(t) view a torchlet tensor without a copy, and torchlet.from_dlpack(x) views
// theirs. The tensor (or the producer's buffer) stays alive while the other side holds it.
#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "torchlet/from_blob.h"

namespace torchlet::python {

namespace {

constexpr const char* kCapsule = "dltensor";           // a capsule not yet consumed
constexpr const char* kUsedCapsule = "used_dltensor";  // renamed by its consumer

// What the DLManagedTensor of an exported tensor points into: the tensor (its storage) and
// its shape and strides, freed together by the consumer's call of the deleter.
struct Export {
  Tensor tensor;
  std::vector<int64_t> shape, strides;
  DLManagedTensor managed{};
};

DLDataType dl_dtype(DType dtype) {
  switch (dtype) {
    case DType::Float32: return {kDLFloat, 32, 1};
    case DType::Float64: return {kDLFloat, 64, 1};
    case DType::Int64: return {kDLInt, 64, 1};
    case DType::Bool: break;
  }
  // DLPack 0.6 has no bool type (kDLBool came in 0.8): numpy would read bytes as uint8.
  throw py::type_error("__dlpack__: Expected a float32, float64 or int64 tensor, but got bool");
}

DType torchlet_dtype(const DLDataType& t) {
  if (t.lanes == 1 && t.code == kDLFloat && t.bits == 32) return kFloat32;
  if (t.lanes == 1 && t.code == kDLFloat && t.bits == 64) return kFloat64;
  if (t.lanes == 1 && t.code == kDLInt && t.bits == 64) return kInt64;
  throw py::type_error("from_dlpack: Expected float32, float64 or int64 data, but got type code " +
                       std::to_string(t.code) + " of " + std::to_string(t.bits) + " bits x " +
                       std::to_string(t.lanes));
}

DLDevice dl_device(const Device& device) {
  return device.is_cpu() ? DLDevice{kDLCPU, 0} : DLDevice{kDLCUDA, device.index()};
}

void* data_of(const Tensor& t) {
  switch (t.dtype()) {
    case DType::Float32: return t.data_ptr<float>();
    case DType::Float64: return t.data_ptr<double>();
    case DType::Int64: return t.data_ptr<int64_t>();
    case DType::Bool: break;
  }
  return t.data_ptr<bool>();
}

py::capsule to_dlpack(const Tensor& t, const py::object& stream) {
  if (t.requires_grad())
    throw py::value_error(
        "Can't export tensors that require gradient, use tensor.detach() (torchlet's "
        "__dlpack__, as PyTorch's)");
  if (!stream.is_none() && t.device().is_cpu())
    throw py::value_error("__dlpack__: Expected stream=None for a CPU tensor, but got " +
                          std::string(py::str(stream)));
  auto e = std::make_unique<Export>();
  const DLDataType dtype = dl_dtype(t.dtype());
  e->tensor = t;
  e->shape.assign(t.shape().begin(), t.shape().end());
  e->strides.assign(t.strides().begin(), t.strides().end());
  DLTensor& dl = e->managed.dl_tensor;
  dl.data = data_of(t);
  dl.device = dl_device(t.device());
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.dtype = dtype;
  dl.shape = e->shape.data();
  dl.strides = e->strides.data();
  dl.byte_offset = 0;
  e->managed.manager_ctx = e.get();
  e->managed.deleter = [](DLManagedTensor* m) { delete static_cast<Export*>(m->manager_ctx); };
  DLManagedTensor* managed = &e.release()->managed;
  // A capsule dropped unconsumed frees the export itself; a consumer renames it and calls the
  // deleter when it is done.
  PyObject* capsule = PyCapsule_New(managed, kCapsule, [](PyObject* c) {
    if (!PyCapsule_IsValid(c, kCapsule)) return;  // consumed
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, kCapsule));
    m->deleter(m);
  });
  if (capsule == nullptr) {
    managed->deleter(managed);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

Tensor from_dlpack(const py::object& source) {
  py::object capsule = source;
  if (py::hasattr(source, "__dlpack__")) {
    const py::tuple device = source.attr("__dlpack_device__")();
    if (device[0].cast<int>() != kDLCPU)
      throw py::type_error("from_dlpack: Expected data on the CPU (device type 1), but got type " +
                           std::string(py::str(device[0])) +
                           "; copy it to the host first (torchlet shares CPU memory only)");
    capsule = source.attr("__dlpack__")();
  }
  if (!PyCapsule_IsValid(capsule.ptr(), kCapsule))
    throw py::type_error(
        "from_dlpack: Expected an object with __dlpack__ (a numpy array, a tensor) or an unused "
        "DLPack capsule, but got " +
        std::string(Py_TYPE(source.ptr())->tp_name));
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kCapsule));
  const DLTensor& dl = managed->dl_tensor;
  if (dl.device.device_type != kDLCPU)
    throw py::type_error("from_dlpack: Expected a CPU capsule, but got device type " +
                         std::to_string(dl.device.device_type));
  const DType dtype = torchlet_dtype(dl.dtype);
  std::vector<int64_t> shape(dl.shape, dl.shape + dl.ndim), strides;
  if (dl.strides != nullptr) {
    strides.assign(dl.strides, dl.strides + dl.ndim);
  } else {  // compact row-major
    strides.assign(static_cast<std::size_t>(dl.ndim), 1);
    for (int d = dl.ndim - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  }
  for (int64_t s : strides)
    if (s < 0)
      throw py::value_error("from_dlpack: Expected non-negative strides, but got " +
                            std::to_string(s) + " (copy the array first)");
  // From here the tensor owns the producer's memory: the deleter runs when its last view goes.
  PyCapsule_SetName(capsule.ptr(), kUsedCapsule);
  void* data = static_cast<char*>(dl.data) + dl.byte_offset;
  return from_blob(
      data, Shape(shape), Shape(strides),
      [managed](void*) {
        if (managed->deleter == nullptr) return;
        if (!Py_IsInitialized()) return;  // at exit
        py::gil_scoped_acquire gil;       // numpy's deleter drops a reference to its array
        managed->deleter(managed);
      },
      dtype);
}

}  // namespace

void bind_dlpack(py::module_& m, py::class_<Tensor>& cls) {
  cls.def("__dlpack__", &to_dlpack, py::kw_only(), py::arg("stream") = py::none(),
          "A DLPack capsule viewing this tensor's memory (np.from_dlpack, torch.from_dlpack).");
  cls.def(
      "__dlpack_device__",
      [](const Tensor& t) {
        const DLDevice d = dl_device(t.device());
        return py::make_tuple(static_cast<int>(d.device_type), d.device_id);
      },
      "(device type, index) as DLPack numbers them: (1, 0) for the CPU, (2, i) for cuda:i.");
  m.def("from_dlpack", &from_dlpack, py::arg("ext_tensor"),
        "A tensor viewing the memory of an object with __dlpack__ (a numpy array, a PyTorch CPU "
        "tensor) or of a DLPack capsule, without a copy (float32, float64, int64 on the CPU).");
}

}  // namespace torchlet::python
