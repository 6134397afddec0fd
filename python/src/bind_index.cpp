// Tensor indexing as PyTorch's: integers, slices (any positive step), None and Ellipsis give
// views; int64 and bool tensors (and lists of ints or bools) index as PyTorch's advanced
// indexing, giving copies. Each Python key becomes the library's TensorIndex list
// (torchlet/indexing.h), so the semantics and their errors are Tensor::index's.
// x[key] = value and x.index_put_(indices, values, accumulate) write through index_put_.
#include <string>

#include "bindings.h"
#include "torchlet/indexing.h"

namespace torchlet::python {
namespace {

namespace ti = torchlet::indexing;

std::string type_name(py::handle h) { return py::str(py::type::of(h).attr("__name__")); }

std::optional<int64_t> bound(PyObject* v) {
  if (v == Py_None) return std::nullopt;
  return py::handle(v).cast<int64_t>();
}

ti::TensorIndex index_item(py::handle item) {
  if (item.is_none()) return ti::None;
  if (item.ptr() == Py_Ellipsis) return ti::Ellipsis;
  if (PyBool_Check(item.ptr()))
    return ti::TensorIndex(from_data(item, py::none(), py::none(), false));
  if (PyLong_Check(item.ptr())) return ti::TensorIndex(item.cast<int64_t>());
  if (PySlice_Check(item.ptr())) {
    auto* s = reinterpret_cast<PySliceObject*>(item.ptr());
    const auto step = bound(s->step);
    if (step && *step <= 0) throw py::value_error("step must be greater than zero");
    auto as_bound = [](std::optional<int64_t> v) {
      return v ? ti::SliceBound(*v) : ti::SliceBound(ti::None);
    };
    return ti::Slice(as_bound(bound(s->start)), as_bound(bound(s->stop)), as_bound(step));
  }
  if (py::isinstance<Tensor>(item)) return ti::TensorIndex(item.cast<Tensor>());
  // A list, or a numpy array of at least one dimension (numpy's scalars index as integers).
  if (py::isinstance<py::list>(item) ||
      (PyObject_CheckBuffer(item.ptr()) && py::hasattr(item, "ndim") &&
       item.attr("ndim").cast<int>() > 0))
    return ti::TensorIndex(from_data(item, py::none(), py::none(), false));
  if (PyIndex_Check(item.ptr()))
    return ti::TensorIndex(
        py::reinterpret_steal<py::object>(PyNumber_Index(item.ptr())).cast<int64_t>());
  throw py::index_error(
      "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
      "indices (got " +
      type_name(item) + ")");
}

std::vector<ti::TensorIndex> indices_of(py::handle key) {
  std::vector<ti::TensorIndex> out;
  if (py::isinstance<py::tuple>(key)) {
    for (py::handle item : py::reinterpret_borrow<py::tuple>(key)) out.push_back(index_item(item));
  } else {
    out.push_back(index_item(key));
  }
  return out;
}

Tensor values_of(py::handle value, const Tensor& like) {
  if (py::isinstance<Tensor>(value)) return value.cast<Tensor>();
  return from_data(value, py::cast(like.dtype()), py::cast(like.device()), false);
}

}  // namespace

void bind_indexing(py::class_<Tensor>& cls) {
  cls.def("__getitem__", [](const Tensor& t, py::handle key) { return t.index(indices_of(key)); });
  cls.def("__setitem__", [](Tensor& t, py::handle key, py::handle value) {
    if (is_scalar(value))
      t.index_put_(indices_of(key), to_scalar(value));
    else
      t.index_put_(indices_of(key), values_of(value, t));
  });
  cls.def(
      "index_put_",
      [](py::object self, py::tuple indices, const Tensor& values, bool accumulate) {
        self.cast<Tensor&>().index_put_(indices_of(indices), values, accumulate);
        return self;
      },
      py::arg("indices"), py::arg("values"), py::arg("accumulate") = false);
  cls.def(
      "index_put",
      [](const Tensor& t, py::tuple indices, const Tensor& values, bool accumulate) {
        return t.index_put(indices_of(indices), values, accumulate);
      },
      py::arg("indices"), py::arg("values"), py::arg("accumulate") = false);
}

}  // namespace torchlet::python
