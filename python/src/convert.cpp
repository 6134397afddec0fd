// Python values to torchlet's: numbers to Scalars, sizes and dims, devices and dtypes, and
// new tensors from numbers, nested sequences and buffers (numpy arrays, read without
// importing numpy).
#include <cstring>
#include <string>

#include "bindings.h"
#include "torchlet/error.h"
#include "torchlet/from_blob.h"
#include "torchlet/functional.h"

namespace torchlet::python {

bool is_scalar(py::handle value) {
  return PyBool_Check(value.ptr()) || PyLong_Check(value.ptr()) || PyFloat_Check(value.ptr());
}

Scalar to_scalar(py::handle value) {
  if (PyBool_Check(value.ptr())) return Scalar(value.cast<bool>());
  if (PyLong_Check(value.ptr())) return Scalar(value.cast<int64_t>());
  if (PyFloat_Check(value.ptr())) return Scalar(value.cast<double>());
  throw py::type_error("Expected a number (bool, int or float), but got " +
                       std::string(py::str(py::type::of(value).attr("__name__"))));
}

Shape shape_of(const py::args& args) {
  if (args.size() == 1 && !PyLong_Check(args[0].ptr()))
    return Shape(args[0].cast<std::vector<int64_t>>());
  return Shape(args.cast<std::vector<int64_t>>());
}

Tensor optional_tensor(py::handle t) { return t.is_none() ? Tensor() : t.cast<Tensor>(); }

Size2 size2_of(py::handle v) {
  if (PyLong_Check(v.ptr())) return Size2(v.cast<int64_t>());
  const auto hw = v.cast<std::vector<int64_t>>();
  TORCHLET_CHECK(hw.size() == 2, "Expected an int or a pair of ints, but got ", hw.size(),
                 " values");
  return Size2(hw[0], hw[1]);
}

std::vector<int64_t> dims_of(py::handle dim) {
  if (dim.is_none()) return {};
  if (PyLong_Check(dim.ptr())) return {dim.cast<int64_t>()};
  return dim.cast<std::vector<int64_t>>();
}

Device device_of(py::handle device) {
  if (py::isinstance<Device>(device)) return device.cast<Device>();
  if (py::isinstance<py::str>(device)) return Device(device.cast<std::string>());
  if (PyLong_Check(device.ptr())) return Device(DeviceType::CUDA, device.cast<int>());
  throw py::type_error("Expected a torchlet.device or a string such as 'cuda:0', but got " +
                       std::string(py::str(py::type::of(device).attr("__name__"))));
}

TensorOptions options_of(py::handle dtype, py::handle device, bool requires_grad) {
  TensorOptions options;
  if (!dtype.is_none()) options.dtype = dtype.cast<DType>();
  if (!device.is_none()) options.device = device_of(device);
  options.requires_grad = requires_grad;
  return options;
}

namespace {

// The leaves of a nested sequence, row-major, and the sizes its nesting gives.
struct Nested {
  std::vector<py::handle> leaves;
  std::vector<int64_t> sizes;
  DType inferred = kBool;
};

void collect(py::handle item, std::size_t depth, Nested& out) {
  if (is_scalar(item) || py::isinstance<Tensor>(item)) {
    TORCHLET_CHECK(depth == out.sizes.size(), "tensor: Expected a sequence at depth ", depth,
                   ", but got a number (the nesting is ragged)");
    DType kind = kBool;
    if (py::isinstance<Tensor>(item)) {
      const auto& t = item.cast<const Tensor&>();
      TORCHLET_CHECK(t.numel() == 1,
                     "tensor: Expected only one-element tensors in a list, but got one of shape ",
                     t.shape());
      kind = t.dtype();
    } else if (PyFloat_Check(item.ptr())) {
      kind = kFloat32;
    } else if (!PyBool_Check(item.ptr())) {
      kind = kInt64;
    }
    out.inferred = promote_types(out.inferred, kind);
    out.leaves.push_back(item);
    return;
  }
  if (!PySequence_Check(item.ptr()) || py::isinstance<py::str>(item))
    throw py::type_error("tensor: Expected numbers or sequences of numbers, but got " +
                         std::string(py::str(py::type::of(item).attr("__name__"))));
  const auto seq = py::reinterpret_borrow<py::sequence>(item);
  const auto n = static_cast<int64_t>(seq.size());
  if (depth == out.sizes.size() && out.leaves.empty()) {
    out.sizes.push_back(n);
  } else {
    TORCHLET_CHECK(
        depth < out.sizes.size() && out.sizes[depth] == n, "tensor: Expected a sequence of length ",
        depth < out.sizes.size() ? out.sizes[depth] : 0, " at dim ", depth, ", but got ", n);
  }
  for (py::handle element : seq) collect(element, depth + 1, out);
}

template <typename T>
T leaf_value(py::handle leaf) {
  if (py::isinstance<Tensor>(leaf)) {
    const auto& t = leaf.cast<const Tensor&>();
    if constexpr (std::is_same_v<T, double>)
      return t.to(kFloat64).item<double>();
    else
      return t.to(kInt64).item<int64_t>();
  }
  return leaf.cast<T>();
}

// Floating values are read as doubles (a float64 tensor), then rounded once to the dtype.
Tensor from_values(const std::vector<double>& f, const std::vector<int64_t>& i, bool floating,
                   const Shape& shape, DType dtype, const Device& device) {
  Tensor t = floating ? tensor(f, shape) : tensor(i, shape);
  return t.to(dtype).to(device);
}

// Element i of a strided buffer, as T.
template <typename T>
std::vector<T> read_buffer(const py::buffer_info& info, char format) {
  std::vector<T> out(static_cast<std::size_t>(info.size));
  std::vector<py::ssize_t> index(static_cast<std::size_t>(info.ndim), 0);
  const char* base = static_cast<const char*>(info.ptr);
  for (std::size_t n = 0; n < out.size(); ++n) {
    py::ssize_t offset = 0;
    for (py::ssize_t d = 0; d < info.ndim; ++d) offset += index[d] * info.strides[d];
    const char* p = base + offset;
    switch (format) {
#define TORCHLET_READ(code, type) \
  case code: {                    \
    type v;                       \
    std::memcpy(&v, p, sizeof v); \
    out[n] = static_cast<T>(v);   \
    break;                        \
  }
      TORCHLET_READ('f', float)
      TORCHLET_READ('d', double)
      TORCHLET_READ('b', int8_t)
      TORCHLET_READ('B', uint8_t)
      TORCHLET_READ('h', int16_t)
      TORCHLET_READ('H', uint16_t)
      TORCHLET_READ('i', int32_t)
      TORCHLET_READ('I', uint32_t)
      TORCHLET_READ('l', int64_t)
      TORCHLET_READ('L', uint64_t)
      TORCHLET_READ('q', int64_t)
      TORCHLET_READ('Q', uint64_t)
      TORCHLET_READ('?', bool)
#undef TORCHLET_READ
    }
    for (auto d = info.ndim - 1; d >= 0; --d) {
      if (++index[d] < info.shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

Tensor from_buffer(const py::buffer& buffer, py::handle dtype, const Device& device) {
  const py::buffer_info info = buffer.request();
  const char format = info.format.empty() ? '?' : info.format.back();
  const std::string known = "fdbBhHiIlLqQ?";
  if (known.find(format) == std::string::npos || info.format.size() > 2)
    throw py::type_error(
        "tensor: Expected a buffer of bool, integers, float32 or float64, but got format '" +
        info.format + "'");
  const Shape shape(std::vector<int64_t>(info.shape.begin(), info.shape.end()));
  const bool floating = format == 'f' || format == 'd';
  DType target = format == 'f'   ? kFloat32
                 : format == 'd' ? kFloat64
                 : format == '?' ? kBool
                                 : kInt64;
  if (!dtype.is_none()) target = dtype.cast<DType>();
  if (floating)
    return from_values(read_buffer<double>(info, format), {}, true, shape, target, device);
  return from_values({}, read_buffer<int64_t>(info, format), false, shape, target, device);
}

// The dtype a buffer format shares as (kBool when there is none: those are copied).
bool shared_dtype(const py::buffer_info& info, DType& dtype) {
  const std::string& f = info.format;
  const char code = f.empty() ? 0 : f.back();
  if (f.size() > 2 || (f.size() == 2 && std::string("@=<").find(f[0]) == std::string::npos))
    return false;
  if (code == 'f')
    dtype = kFloat32;
  else if (code == 'd')
    dtype = kFloat64;
  else if ((code == 'l' || code == 'q') && info.itemsize == 8)
    dtype = kInt64;
  else if (code == '?')
    dtype = kBool;
  else
    return false;
  return true;
}

}  // namespace

Tensor share_buffer(const py::buffer& array) {
  py::buffer_info info = array.request();
  if (!info.format.empty() && (info.format[0] == '>' || info.format[0] == '!'))
    throw py::value_error(
        "given numpy array has byte order different from the native byte order. Conversion "
        "between byte orders is currently not supported.");
  DType dtype = kBool;
  if (!shared_dtype(info, dtype))  // int8 ... uint32: torchlet has int64 only, so a copy
    return from_buffer(array, py::none(), kCPU);
  std::vector<int64_t> strides;
  for (py::ssize_t stride : info.strides) {
    if (stride < 0)
      throw py::value_error(
          "At least one stride in the given numpy array is negative, and tensors with negative "
          "strides are not currently supported. (You can probably work around this by making a "
          "copy of your array  with array.copy().) ");
    if (stride % info.itemsize != 0)
      throw py::value_error(
          "given numpy array strides not a multiple of the element byte size. Copy the numpy "
          "array to reallocate the memory.");
    strides.push_back(stride / info.itemsize);
  }
  if (info.readonly &&
      PyErr_WarnEx(PyExc_UserWarning,
                   "The given NumPy array is not writable, and torchlet does not support "
                   "non-writable tensors. This means writing to this tensor will result in "
                   "undefined behavior. You may want to copy the array to protect its data or "
                   "make it writable before converting it to a tensor.",
                   1) != 0)
    throw py::error_already_set();
  void* data = info.ptr;
  const Shape shape(std::vector<int64_t>(info.shape.begin(), info.shape.end()));
  // The buffer view keeps the array alive; it is released, under the GIL, with the storage.
  std::shared_ptr<py::buffer_info> view(new py::buffer_info(std::move(info)),
                                        [](py::buffer_info* b) {
                                          if (!Py_IsInitialized()) return;  // at exit
                                          py::gil_scoped_acquire gil;
                                          delete b;
                                        });
  return from_blob(
      data, shape, Shape(strides), [view](void*) {}, dtype);
}

Tensor from_data(py::handle data, py::handle dtype, py::handle device, bool requires_grad) {
  const Device where = device.is_none() ? kCPU : device_of(device);
  Tensor out;
  if (py::isinstance<Tensor>(data)) {
    const auto& t = data.cast<const Tensor&>();
    out = t.detach().clone();
    if (!dtype.is_none()) out = out.to(dtype.cast<DType>());
    out = out.to(where);
  } else if (PyObject_CheckBuffer(data.ptr()) && !py::isinstance<py::bytes>(data)) {
    out = from_buffer(py::reinterpret_borrow<py::buffer>(data), dtype, where);
  } else {
    Nested nested;
    collect(data, 0, nested);
    if (nested.leaves.empty()) nested.inferred = kFloat32;  // torch.tensor([]) is float32
    const DType target = dtype.is_none() ? nested.inferred : dtype.cast<DType>();
    const bool floating = is_floating_point(nested.inferred) || is_floating_point(target);
    std::vector<double> f;
    std::vector<int64_t> i;
    for (py::handle leaf : nested.leaves) {
      if (floating)
        f.push_back(leaf_value<double>(leaf));
      else
        i.push_back(leaf_value<int64_t>(leaf));
    }
    out = from_values(f, i, floating, Shape(nested.sizes), target, where);
  }
  if (requires_grad) out.requires_grad_(true);
  return out;
}

}  // namespace torchlet::python
