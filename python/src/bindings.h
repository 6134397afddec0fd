// Shared helpers of the torchlet._C extension: Python values to torchlet's (shapes, dims,
// scalars, devices) and the bind_* entry points, one per area (tensor, ops, training).
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <vector>

#include "torchlet/functional.h"
#include "torchlet/tensor.h"

namespace torchlet::python {

namespace py = pybind11;

// A Python bool, int or float as a Scalar that keeps its kind (int64 * 2 stays int64).
Scalar to_scalar(py::handle value);
bool is_scalar(py::handle value);
// Sizes given as f(2, 3), f((2, 3)) or f([2, 3]).
Shape shape_of(const py::args& args);
// dim=None (every dim), an int or a sequence of ints.
std::vector<int64_t> dims_of(py::handle dim);
// None as an undefined tensor (an optional weight or bias), else the tensor.
Tensor optional_tensor(py::handle t);
// An int or a pair of ints (kernel sizes, strides, paddings) as PyTorch's arguments.
Size2 size2_of(py::handle v);
// A torchlet.device, or a string such as "cuda:0".
Device device_of(py::handle device);
// The TensorOptions of a factory's dtype=, device= and requires_grad= keywords.
TensorOptions options_of(py::handle dtype, py::handle device, bool requires_grad);
// A tensor from a Python number, nested sequence or buffer (a numpy array); dtype None infers
// it as PyTorch does (float32 for floats, int64 for ints, bool for bools).
Tensor from_data(py::handle data, py::handle dtype, py::handle device, bool requires_grad);
// A CPU tensor sharing a buffer's memory (torch.from_numpy): float32, float64, int64 and bool
// arrays are shared and kept alive while the tensor lives; other integer arrays are copied into
// int64; a negative stride or a non-native byte order is a ValueError, as in PyTorch.
Tensor share_buffer(const py::buffer& array);

// Sets the Python error for the exception being handled (torchlet::Error by its kind, pybind11's
// own, anything else a RuntimeError): what a plain CPython function returns nullptr after.
void set_python_error() noexcept;
// Throws ValueError (as PyTorch) unless t has one element: for item(), float(), int().
void check_one_element(const Tensor& t);
// Installs fn as the method `name` of cls without pybind11's dispatcher (about 2x cheaper a
// call): for the hottest methods (item, the arithmetic operators). flags: METH_NOARGS, METH_O.
void def_raw(py::handle cls, const char* name, PyCFunction fn, int flags,
             const char* doc = nullptr);

// The Tensor inside a Python object (nullptr when it is not one), and a new Python Tensor
// owning t: the fast conversions of slots.cpp, for the hottest calls.
const Tensor* tensor_of(PyObject* o) noexcept;
PyObject* new_tensor(Tensor&& t);
// +, -, *, / as the Tensor type's number slots (after bind_ops has bound the operators).
void install_slots(py::class_<Tensor>& cls);

void bind_tensor(py::module_& m);
void bind_indexing(py::class_<Tensor>& cls);
void bind_ops(py::module_& m, py::class_<Tensor>& cls);
void bind_functional(py::module_& m);
void bind_training(py::module_& m);
void bind_layers(py::module_& m);
void bind_autograd(py::module_& m, py::class_<Tensor>& cls);
void bind_train(py::module_& m);
void bind_dlpack(py::module_& m, py::class_<Tensor>& cls);

}  // namespace torchlet::python
