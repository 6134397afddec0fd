// torchlet._C: the pybind11 extension behind `import torchlet`. Binds dtypes, devices, the
// global state (seed, grad mode, threads, CUDA queries) and maps torchlet::Error's kinds to
// the Python exceptions PyTorch raises; the Tensor, the ops and training live in bind_*.cpp.
#include <algorithm>
#include <deque>
#include <string>

#include "bindings.h"
#include "torchlet/autograd.h"
#include "torchlet/cuda.h"
#include "torchlet/error.h"
#include "torchlet/hw/gpu.h"
#include "torchlet/random.h"
#include "torchlet/threads.h"

namespace torchlet::python {
namespace {

std::string device_repr(const Device& d) {
  std::string text = "device(type='";
  text += d.is_cpu() ? "cpu" : "cuda";
  text += "'";
  if (d.index() >= 0) text += ", index=" + std::to_string(d.index());
  return text + ")";
}

void bind_types(py::module_& m) {
  py::class_<DType>(m, "dtype")
      .def_property_readonly("is_floating_point", [](DType d) { return is_floating_point(d); })
      .def_property_readonly("itemsize", [](DType d) { return element_size(d); })
      .def("__repr__", [](DType d) { return std::string("torchlet.") + dtype_name(d); })
      .def("__eq__",
           [](DType a, py::object b) { return py::isinstance<DType>(b) && a == b.cast<DType>(); })
      .def("__hash__", [](DType d) { return static_cast<int>(d); });
  m.attr("float32") = kFloat32;
  m.attr("float") = kFloat32;
  m.attr("float64") = kFloat64;
  m.attr("double") = kFloat64;
  m.attr("int64") = kInt64;
  m.attr("long") = kInt64;
  m.attr("bool") = kBool;

  py::class_<Device>(m, "device", "Where a tensor lives: torchlet.device('cpu'), ('cuda:1').")
      .def(py::init<const std::string&>(), py::arg("type"))
      .def(py::init([](const std::string& type, int index) {
             return Device(type + ":" + std::to_string(index));
           }),
           py::arg("type"), py::arg("index"))
      .def(py::init([](const Device& d) { return d; }))
      .def_property_readonly("type", [](const Device& d) { return d.is_cpu() ? "cpu" : "cuda"; })
      .def_property_readonly("index",
                             [](const Device& d) -> py::object {
                               return d.index() < 0 ? py::object(py::none())
                                                    : py::object(py::int_(d.index()));
                             })
      .def("__str__", &Device::str)
      .def("__repr__", &device_repr)
      .def("__eq__",
           [](const Device& a, py::handle b) {
             if (py::isinstance<py::str>(b)) return a == Device(b.cast<std::string>());
             return py::isinstance<Device>(b) && a == b.cast<Device>();
           })
      .def("__hash__", [](const Device& d) { return py::hash(py::str(d.str())); });
  py::implicitly_convertible<py::str, Device>();
}

void bind_state(py::module_& m) {
  m.def(
      "manual_seed", [](uint64_t seed) { manual_seed(seed); }, py::arg("seed"),
      "Reseeds torchlet's C++ generator (randn, dropout).");
  m.def("is_grad_enabled", &is_grad_enabled);
  m.def("set_grad_enabled", &set_grad_enabled, py::arg("mode"));
  m.def("set_num_threads", &set_num_threads, py::arg("n"));
  m.def("get_num_threads", &get_num_threads);
  py::module_ cuda = m.def_submodule("cuda", "CUDA devices (torch.cuda's names).");
  cuda.def("is_available", &cuda::is_available);
  cuda.def("device_count", &cuda::device_count);
  cuda.def("synchronize", &cuda::synchronize, py::arg("device") = 0,
           py::call_guard<py::gil_scoped_release>());
  cuda.def("current_device", [] {
    TORCHLET_CHECK(cuda::is_available(),
                   "Expected a CUDA device, but got none (cuda.is_available() is False)");
    return 0;
  });
  cuda.def(
      "get_device_name",
      [](py::object device) {
        const int index = device.is_none() ? 0
                          : py::isinstance<py::int_>(device)
                              ? device.cast<int>()
                              : std::max(0, device_of(device).index());
        for (const hw::GpuDevice& d : hw::gpu_report().devices)
          if (d.index == index) return d.name;
        TORCHLET_CHECK(false, "Expected a CUDA device index below ", cuda::device_count(),
                       ", but got ", index);
        return std::string();
      },
      py::arg("device") = py::none());
  cuda.def("empty_cache", &cuda::empty_cache, py::arg("device") = 0);
  cuda.def(
      "memory_allocated", [](int d) { return cuda::memory_stats(d).allocated; },
      py::arg("device") = 0);
  cuda.def(
      "memory_reserved", [](int d) { return cuda::memory_stats(d).reserved; },
      py::arg("device") = 0);
  cuda.def(
      "max_memory_allocated", [](int d) { return cuda::memory_stats(d).peak_allocated; },
      py::arg("device") = 0);
}

void translate_errors() {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error&) {
      set_python_error();
    }
  });
}

}  // namespace

// PyTorch's kinds: shape, dtype and device mistakes are RuntimeError, a bad index IndexError,
// a file OSError; the rest (memory, the device, internal) RuntimeError.
void set_python_error() noexcept {
  try {
    throw;
  } catch (const Error& e) {
    PyObject* type = PyExc_RuntimeError;
    if (e.kind() == ErrorKind::Index) type = PyExc_IndexError;
    if (e.kind() == ErrorKind::IO) type = PyExc_OSError;
    PyErr_SetString(type, e.what());
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
}

void def_raw(py::handle cls, const char* name, PyCFunction fn, int flags, const char* doc) {
  static std::deque<PyMethodDef> defs;  // CPython keeps pointers to them: they live forever
  defs.push_back(PyMethodDef{name, fn, flags, doc});
  PyObject* method = PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), &defs.back());
  if (method == nullptr) throw py::error_already_set();
  py::setattr(cls, name, py::reinterpret_steal<py::object>(method));
}

}  // namespace torchlet::python

PYBIND11_MODULE(_C, m) {
  using namespace torchlet::python;
  m.doc() = "torchlet's C++ engine: tensors, ops, autograd, optimizers, compile.";
  translate_errors();
  bind_types(m);
  bind_state(m);
  bind_tensor(m);
  bind_layers(m);
  bind_training(m);
  bind_train(m);
}
