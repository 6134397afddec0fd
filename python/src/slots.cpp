// The per-op fast path: +, -, *, / and float() as the Tensor type's CPython number slots (the
// interpreter calls them directly, without looking up __add__ or pybind11's overload dispatch), and
// the Tensor <-> PyObject conversions they and item() use, with the type's pybind11 record looked
// up once instead of by typeid at every call. Tensor.__add__ and friends stay bound by
// bind_ops.cpp for explicit calls; these slots give the same results.
#include "bindings.h"

namespace torchlet::python {
namespace {

PyTypeObject* tensor_type = nullptr;
const py::detail::type_info* tensor_info = nullptr;

template <typename F>
PyObject* binary_slot(PyObject* a, PyObject* b, F f) noexcept {
  try {
    const Tensor* x = tensor_of(a);
    const Tensor* y = tensor_of(b);
    if (x && y) return new_tensor(f(*x, *y));
    if (x && is_scalar(b)) return new_tensor(f(*x, to_scalar(b)));
    if (y && is_scalar(a)) return new_tensor(f(to_scalar(a), *y));
    Py_RETURN_NOTIMPLEMENTED;
  } catch (...) {
    set_python_error();
    return nullptr;
  }
}

PyObject* add(PyObject* a, PyObject* b) noexcept {
  return binary_slot(a, b, [](const auto& x, const auto& y) { return x + y; });
}
PyObject* subtract(PyObject* a, PyObject* b) noexcept {
  return binary_slot(a, b, [](const auto& x, const auto& y) { return x - y; });
}
PyObject* multiply(PyObject* a, PyObject* b) noexcept {
  return binary_slot(a, b, [](const auto& x, const auto& y) { return x * y; });
}
PyObject* divide(PyObject* a, PyObject* b) noexcept {
  return binary_slot(a, b, [](const auto& x, const auto& y) { return x / y; });
}

// float(x): the one element as a double (a float32 tensor's value exactly; others converted).
PyObject* to_float(PyObject* a) noexcept {
  try {
    const Tensor* x = tensor_of(a);
    if (x == nullptr) {
      PyErr_SetString(PyExc_TypeError, "float(): Expected a torchlet.Tensor");
      return nullptr;
    }
    check_one_element(*x);
    return PyFloat_FromDouble(x->dtype() == kFloat32 ? double(x->item<float>())
                                                     : x->item<double>());
  } catch (...) {
    set_python_error();
    return nullptr;
  }
}

}  // namespace

const Tensor* tensor_of(PyObject* o) noexcept {
  if (!PyObject_TypeCheck(o, tensor_type)) return nullptr;
  auto* inst = reinterpret_cast<py::detail::instance*>(o);
  return static_cast<const Tensor*>(inst->get_value_and_holder(tensor_info).value_ptr());
}

PyObject* new_tensor(Tensor&& t) {
  auto move = [](const void* p) -> void* {
    return new Tensor(std::move(*const_cast<Tensor*>(static_cast<const Tensor*>(p))));
  };
  return py::detail::type_caster_generic::cast(&t, py::return_value_policy::move, py::handle(),
                                               tensor_info, nullptr, move)
      .ptr();
}

void install_slots(py::class_<Tensor>& cls) {
  tensor_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  tensor_info = py::detail::get_type_info(typeid(Tensor));
  PyNumberMethods* number = tensor_type->tp_as_number;
  number->nb_add = &add;
  number->nb_subtract = &subtract;
  number->nb_multiply = &multiply;
  number->nb_true_divide = &divide;
  number->nb_float = &to_float;
  PyType_Modified(tensor_type);
}

}  // namespace torchlet::python
