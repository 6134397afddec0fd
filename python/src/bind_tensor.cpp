// torchlet._C.Tensor: creation, metadata, conversion (dtype, device, numpy through the buffer
// protocol, sharing CPU memory), autograd, views and the factories. The ops are in
// bind_ops.cpp, indexing in bind_index.cpp; printing is Python's (torchlet/_tensor_str.py).
#include <pybind11/numpy.h>

#include <string>

#include "bindings.h"
#include "torchlet/error.h"
#include "torchlet/functional.h"

namespace torchlet::python {
namespace {

// torchlet.Size, set by torchlet/__init__.py; a handle that is never released, as the type
// outlives every tensor.
py::handle size_type;

py::object as_size(const Shape& shape) {
  py::tuple sizes(shape.size());
  for (int i = 0; i < shape.size(); ++i) sizes[i] = shape[i];
  return size_type ? size_type(sizes) : py::object(sizes);
}

}  // namespace

void check_one_element(const Tensor& t) {
  if (t.numel() != 1)
    throw py::value_error(
        "only one element tensors can be converted to Python scalars, but got "
        "shape " +
        t.shape().str());
}

namespace {

py::object item(const Tensor& t) {
  check_one_element(t);
  switch (t.dtype()) {
    case DType::Float32: return py::float_(t.item<float>());
    case DType::Int64: return py::int_(t.item<int64_t>());
    case DType::Bool: return py::bool_(t.item<bool>());
    case DType::Float64: return py::float_(t.item<double>());
  }
  return py::none();
}

PyObject* raw_item(PyObject* self, PyObject*) noexcept {
  try {
    const Tensor* t = tensor_of(self);
    if (t != nullptr && t->dtype() == kFloat32 && t->numel() == 1)
      return PyFloat_FromDouble(t->item<float>());
    return item(py::handle(self).cast<const Tensor&>()).release().ptr();
  } catch (...) {
    set_python_error();
    return nullptr;
  }
}

const char* buffer_format(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "f";
    case DType::Float64: return "d";
    case DType::Int64: return "q";
    case DType::Bool: return "?";
  }
  return "?";
}

py::buffer_info buffer_of(const Tensor& t) {
  TORCHLET_CHECK(t.device().is_cpu(), "Expected a CPU tensor to share its memory, but got one on ",
                 t.device(), " (use .cpu() first)");
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  std::vector<py::ssize_t> strides;
  const auto size = static_cast<py::ssize_t>(element_size(t.dtype()));
  for (int64_t s : t.strides()) strides.push_back(s * size);
  void* data = t.dtype() == kFloat32   ? static_cast<void*>(t.data_ptr<float>())
               : t.dtype() == kFloat64 ? static_cast<void*>(t.data_ptr<double>())
               : t.dtype() == kInt64   ? static_cast<void*>(t.data_ptr<int64_t>())
                                       : static_cast<void*>(t.data_ptr<bool>());
  return py::buffer_info(data, size, buffer_format(t.dtype()), t.dim(), shape, strides);
}

py::object numpy(py::object self) {
  const auto& t = self.cast<const Tensor&>();
  if (!t.device().is_cpu())
    throw py::type_error(
        "can't convert " + t.device().str() +
        " device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
  if (t.requires_grad())
    throw py::value_error(
        "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.");
  return py::array(buffer_of(t), self);  // keeps the tensor (and its storage) alive
}

py::object tolist(const Tensor& t) {
  if (t.dim() == 0) return item(t);
  py::list out;
  for (int64_t i = 0; i < t.size(0); ++i) out.append(tolist(t.select(0, i)));
  return out;
}

Tensor to(const Tensor& t, const py::args& args, const py::kwargs& kwargs) {
  Tensor out = t;
  auto apply = [&out](py::handle value) {
    if (value.is_none()) return;
    if (py::isinstance<DType>(value))
      out = out.to(value.cast<DType>());
    else if (py::isinstance<Tensor>(value)) {
      const auto& other = value.cast<const Tensor&>();
      out = out.to(other.device()).to(other.dtype());
    } else
      out = out.to(device_of(value));
  };
  for (py::handle a : args) apply(a);
  if (kwargs.contains("device")) apply(kwargs["device"]);
  if (kwargs.contains("dtype")) apply(kwargs["dtype"]);
  return out;
}

Tensor factory(Tensor (*make)(const Shape&, const TensorOptions&), const py::args& size,
               py::handle dtype, py::handle device, bool requires_grad) {
  return make(shape_of(size), options_of(dtype, device, requires_grad));
}

void bind_factories(py::module_& m) {
  auto sized = [&m](const char* name, Tensor (*make)(const Shape&, const TensorOptions&),
                    const char* doc) {
    m.def(
        name,
        [make](const py::args& size, py::object dtype, py::object device, bool requires_grad) {
          return factory(make, size, dtype, device, requires_grad);
        },
        py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
        py::arg("requires_grad") = false, doc);
  };
  sized("empty", &empty, "A tensor of the given size with uninitialised values.");
  sized("zeros", &zeros, "A tensor of the given size filled with 0.");
  sized("ones", &ones, "A tensor of the given size filled with 1.");
  sized("randn", &randn, "Standard normal values from torchlet's generator.");
  m.def(
      "full",
      [](const std::vector<int64_t>& size, double value, py::object dtype, py::object device,
         bool rg) { return full(Shape(size), value, options_of(dtype, device, rg)); },
      py::arg("size"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def(
      "arange",
      [](py::object a, py::object b, py::object step, py::object dtype, py::object device,
         bool rg) {
        // As PyTorch's: a float bound or step gives float32 values (unless dtype says).
        const bool floating =
            PyFloat_Check(a.ptr()) || PyFloat_Check(b.ptr()) || PyFloat_Check(step.ptr());
        TensorOptions options = options_of(
            dtype.is_none() ? py::cast(floating ? kFloat32 : kInt64) : dtype, device, rg);
        if (floating)
          return b.is_none() ? arange_floating(0.0, a.cast<double>(), step.cast<double>(), options)
                             : arange_floating(a.cast<double>(), b.cast<double>(),
                                               step.cast<double>(), options);
        if (b.is_none()) return arange(a.cast<int64_t>(), options);
        return arange(a.cast<int64_t>(), b.cast<int64_t>(), step.cast<int64_t>(), options);
      },
      py::arg("start"), py::arg("end") = py::none(), py::arg("step") = 1, py::kw_only(),
      py::arg("dtype") = py::none(), py::arg("device") = py::none(),
      py::arg("requires_grad") = false,
      "0, 1, ..., end - 1 (or start, start + step, ... below end): int64 for integer bounds and "
      "step, float32 if any is a float, unless dtype says otherwise.");
  m.def(
      "tensor",
      [](py::object data, py::object dtype, py::object device, bool rg) {
        return from_data(data, dtype, device, rg);
      },
      py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
      py::arg("requires_grad") = false,
      "A new tensor copying data (a number, nested sequence or numpy array), as torch.tensor.");
  m.def("_set_size_type", [](py::object type) { size_type = type.release(); });
}

}  // namespace

void bind_tensor(py::module_& m) {
  py::class_<Tensor> cls(m, "Tensor", py::buffer_protocol(), py::dynamic_attr());
  cls.def(py::init([](const Tensor& other) { return other; }), py::arg("other"))
      .def(py::init(
          [](py::object data) { return from_data(data, py::cast(kFloat32), py::none(), false); }))
      .def_buffer([](const Tensor& t) { return buffer_of(t); })
      // --- metadata
      .def_property_readonly("shape", [](const Tensor& t) { return as_size(t.shape()); })
      .def(
          "size",
          [](const Tensor& t, py::object dim) -> py::object {
            if (dim.is_none()) return as_size(t.shape());
            return py::int_(t.size(dim.cast<int64_t>()));
          },
          py::arg("dim") = py::none())
      .def("stride", [](const Tensor& t) { return py::tuple(py::cast(t.strides().vec())); })
      .def("dim", &Tensor::dim)
      .def_property_readonly("ndim", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("nelement", &Tensor::numel)
      .def("element_size", [](const Tensor& t) { return element_size(t.dtype()); })
      .def_property_readonly("dtype", &Tensor::dtype)
      .def_property_readonly("device", &Tensor::device)
      .def_property_readonly("is_cuda", [](const Tensor& t) { return t.device().is_cuda(); })
      .def("is_floating_point", [](const Tensor& t) { return is_floating_point(t.dtype()); })
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("__len__",
           [](const Tensor& t) {
             if (t.dim() == 0) throw py::type_error("len() of a 0-d tensor");
             return t.size(0);
           })
      .def("__hash__", [](py::handle self) { return reinterpret_cast<intptr_t>(self.ptr()); })
      // --- conversion
      .def("to", &to,
           "A copy on another device and/or dtype: to(device), to(dtype), to(device, dtype).")
      .def("cpu", [](const Tensor& t) { return t.to(kCPU); })
      .def(
          "cuda",
          [](const Tensor& t, py::object device) {
            return t.to(device.is_none() ? Device("cuda") : device_of(device));
          },
          py::arg("device") = py::none())
      .def("float", [](const Tensor& t) { return t.to(kFloat32); })
      .def("double", [](const Tensor& t) { return t.to(kFloat64); })
      .def("long", [](const Tensor& t) { return t.to(kInt64); })
      .def("bool", [](const Tensor& t) { return t.to(kBool); })
      .def("type_as", [](const Tensor& t, const Tensor& o) { return t.to(o.dtype()); })
      .def("tolist", &tolist)
      .def("numpy", &numpy, "A numpy array sharing this CPU tensor's memory.")
      .def("__float__",
           [](const Tensor& t) {
             check_one_element(t);
             return t.dtype() == kFloat32 ? double(t.item<float>()) : t.to(kFloat64).item<double>();
           })
      .def("__int__",
           [](const Tensor& t) {
             check_one_element(t);
             return t.to(kInt64).item<int64_t>();
           })
      .def("__index__",
           [](const Tensor& t) {
             if (is_floating_point(t.dtype()))
               throw py::type_error(
                   "only integer tensors of a single element can be converted to an index");
             check_one_element(t);
             return t.to(kInt64).item<int64_t>();
           })
      .def("__bool__",
           [](const Tensor& t) {
             TORCHLET_CHECK(t.numel() == 1,
                            "Boolean value of Tensor with more than one value is ambiguous");
             return t.to(kBool).item<bool>();
           })
      .def("detach", &Tensor::detach)
      .def("clone", &Tensor::clone)
      .def("contiguous", &Tensor::contiguous)
      .def("copy_", &Tensor::copy_, py::arg("src"), py::return_value_policy::reference_internal)
      .def(
          "fill_", [](Tensor& t, double v) { return t.fill_(v); }, py::arg("value"))
      .def("zero_", [](Tensor& t) { return t.zero_(); })
      .def_property_readonly("data", &Tensor::detach)
      // --- autograd
      .def_property("requires_grad", &Tensor::requires_grad,
                    [](Tensor& t, bool on) { t.set_requires_grad(on); })
      .def(
          "requires_grad_", [](Tensor& t, bool on) { return t.requires_grad_(on); },
          py::arg("requires_grad") = true)
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def_property_readonly("_has_grad_fn", [](const Tensor& t) { return !t.is_leaf(); })
      .def_property(
          "grad",
          [](const Tensor& t) -> py::object {
            Tensor g = t.grad();
            return g.defined() ? py::cast(g) : py::none();
          },
          [](const Tensor& t, py::object g) {
            t.set_grad(g.is_none() ? Tensor() : g.cast<Tensor>());
          })
      .def(
          "backward",
          [](const Tensor& t, py::object gradient, bool retain_graph, bool create_graph) {
            const Tensor g = gradient.is_none() ? Tensor() : gradient.cast<Tensor>();
            py::gil_scoped_release release;
            t.backward(g, retain_graph, create_graph);
          },
          py::arg("gradient") = py::none(), py::arg("retain_graph") = false,
          py::arg("create_graph") = false, "Accumulates d(self)/d(leaf) into every leaf's .grad.")
      // --- views
      .def("view", [](const Tensor& t, const py::args& s) { return t.view(shape_of(s)); })
      .def("reshape", [](const Tensor& t, const py::args& s) { return t.reshape(shape_of(s)); })
      .def("expand", [](const Tensor& t, const py::args& s) { return t.expand(shape_of(s)); })
      .def("repeat", [](const Tensor& t, const py::args& s) { return t.repeat(shape_of(s).vec()); })
      .def("permute",
           [](const Tensor& t, const py::args& s) { return t.permute(shape_of(s).vec()); })
      .def("view_as", [](const Tensor& t, const Tensor& o) { return t.view(o.shape()); })
      .def("reshape_as", [](const Tensor& t, const Tensor& o) { return t.reshape(o.shape()); })
      .def("expand_as", [](const Tensor& t, const Tensor& o) { return t.expand(o.shape()); })
      .def("t", &Tensor::t)
      .def_property_readonly("T", &Tensor::t)
      .def("transpose", &Tensor::transpose, py::arg("dim0"), py::arg("dim1"))
      .def("unsqueeze", &Tensor::unsqueeze, py::arg("dim"))
      .def(
          "squeeze",
          [](const Tensor& t, py::object dim) {
            return dim.is_none() ? t.squeeze() : t.squeeze(dim.cast<int64_t>());
          },
          py::arg("dim") = py::none())
      .def("narrow", &Tensor::narrow, py::arg("dim"), py::arg("start"), py::arg("length"))
      .def("select", &Tensor::select, py::arg("dim"), py::arg("index"))
      .def("unflatten", &Tensor::unflatten, py::arg("dim"), py::arg("sizes"))
      .def("split", &Tensor::split, py::arg("split_size"), py::arg("dim") = 0)
      .def("chunk", &Tensor::chunk, py::arg("chunks"), py::arg("dim") = 0)
      .def(
          "flatten", [](const Tensor& t, int64_t s, int64_t e) { return flatten(t, s, e); },
          py::arg("start_dim") = 0, py::arg("end_dim") = -1);
  def_raw(cls, "item", &raw_item, METH_NOARGS,
          "The single value as a Python number (waits for the device).");
  bind_indexing(cls);
  bind_ops(m, cls);
  bind_autograd(m, cls);
  bind_dlpack(m, cls);
  install_slots(cls);
  bind_factories(m);
  m.def("from_numpy", &share_buffer, py::arg("ndarray"),
        "A CPU tensor sharing the array's memory (float32, float64, int64, bool; other integer "
        "arrays are copied into int64), keeping the array alive while it lives.");
  m.def("is_tensor", [](py::handle o) { return py::isinstance<Tensor>(o); });
}

}  // namespace torchlet::python
