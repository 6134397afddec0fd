// Tensor indexing as PyTorch's basic indexing: integers, slices (step 1), None, Ellipsis and
// tuples of them give views; a 1-D int64 tensor first picks rows (index_select, a copy).
// x[index] = value writes through the view (copy_ or fill_).
#include <string>

#include "bindings.h"
#include "torchlet/error.h"
#include "torchlet/functional.h"

namespace torchlet::python {
namespace {

std::string type_name(py::handle h) { return py::str(py::type::of(h).attr("__name__")); }

Tensor index(const Tensor& self, py::handle key, bool for_write) {
  py::tuple items =
      py::isinstance<py::tuple>(key) ? py::reinterpret_borrow<py::tuple>(key) : py::make_tuple(key);
  int64_t consuming = 0;  // how many of self's dims the items address
  for (py::handle item : items)
    if (!item.is_none() && item.ptr() != Py_Ellipsis) ++consuming;
  if (consuming > self.dim())
    throw py::index_error("too many indices for tensor of dimension " + std::to_string(self.dim()));
  Tensor out = self;
  int64_t dim = 0;  // the dim of `out` the next item addresses
  bool seen_ellipsis = false;
  for (py::handle item : items) {
    if (item.is_none()) {
      out = out.unsqueeze(dim++);
    } else if (item.ptr() == Py_Ellipsis) {
      if (seen_ellipsis) throw py::index_error("an index can only have a single ellipsis ('...')");
      seen_ellipsis = true;
      dim += self.dim() - consuming;
    } else if (PyLong_Check(item.ptr()) && !PyBool_Check(item.ptr())) {
      const int64_t size = out.size(dim), i = item.cast<int64_t>();
      if (i < -size || i >= size)
        throw py::index_error("index " + std::to_string(i) + " is out of bounds for dimension " +
                              std::to_string(dim) + " with size " + std::to_string(size));
      out = out.select(dim, i < 0 ? i + size : i);
    } else if (PySlice_Check(item.ptr())) {
      Py_ssize_t start = 0, stop = 0, step = 0;
      if (PySlice_Unpack(item.ptr(), &start, &stop, &step) < 0) throw py::error_already_set();
      if (step <= 0) throw py::value_error("step must be greater than zero");
      if (step != 1)
        throw py::value_error("torchlet: slices with a step other than 1 are not supported yet");
      PySlice_AdjustIndices(out.size(dim), &start, &stop, step);
      out = out.slice(dim++, start, std::max(start, stop));
    } else if (py::isinstance<Tensor>(item) && !for_write) {
      const auto& idx = item.cast<const Tensor&>();
      TORCHLET_CHECK(idx.dtype() == kInt64 && idx.dim() == 1 && dim == 0 && items.size() == 1,
                     "indexing: Expected one 1-D int64 tensor as the whole index, but got a ",
                     dtype_name(idx.dtype()), " tensor of shape ", idx.shape(),
                     " (other tensor indices are not supported yet)");
      out = index_select(out, idx);
      ++dim;
    } else {
      throw py::index_error(
          "only integers, slices (`:`), ellipsis (`...`), None and 1-D int64 tensors are "
          "valid indices, but got " +
          type_name(item));
    }
  }
  return out;
}

}  // namespace

void bind_indexing(py::class_<Tensor>& cls) {
  cls.def("__getitem__", [](const Tensor& t, py::handle key) { return index(t, key, false); });
  cls.def("__setitem__", [](const Tensor& t, py::handle key, py::handle value) {
    Tensor view = index(t, key, true);
    if (is_scalar(value))
      view.fill_(value.cast<double>());
    else
      view.copy_(py::isinstance<Tensor>(value)
                     ? value.cast<Tensor>().expand(view.shape())
                     : from_data(value, py::none(), py::none(), false).expand(view.shape()));
  });
}

}  // namespace torchlet::python
