// Autograd beyond .backward(): torch.autograd.grad, Tensor.register_hook (a Python function run
// during backward, with a handle whose remove() disables it), grad_fn as a node object named as
// PyTorch's ("MulBackward0"), and the in-place and integer draws of the C++ generator
// (normal_, bernoulli_, randint, randperm).
#include <memory>
#include <string>

#include "bindings.h"
#include "torchlet/autograd/function.h"
#include "torchlet/error.h"

namespace torchlet::python {
namespace {

// What register_hook returns: remove() stops the hook from running (the library keeps hooks
// for the tensor's lifetime, so removal is a flag the hook checks).
struct HookHandle {
  std::shared_ptr<bool> removed = std::make_shared<bool>(false);
  void remove() const { *removed = true; }
};

HookHandle register_hook(const Tensor& t, py::function fn) {
  TORCHLET_CHECK(t.requires_grad(),
                 "Expected a tensor that requires grad to register a hook on, but got one that "
                 "does not");
  HookHandle handle;
  // The function is a Python object: held, called and released with the GIL.
  auto held = std::shared_ptr<py::function>(new py::function(std::move(fn)), [](py::function* f) {
    py::gil_scoped_acquire gil;
    delete f;
  });
  t.register_hook([held, removed = handle.removed](const Tensor& grad) -> Tensor {
    py::gil_scoped_acquire gil;
    if (*removed) return Tensor();
    py::object result = (*held)(grad);
    if (result.is_none()) return Tensor();
    if (!py::isinstance<Tensor>(result))
      throw py::type_error("hook: Expected the hook to return None or a Tensor, but got " +
                           std::string(py::str(py::type::of(result).attr("__name__"))));
    return result.cast<Tensor>();
  });
  return handle;
}

std::vector<Tensor> tensors_of(py::handle v) {
  if (py::isinstance<Tensor>(v)) return {v.cast<Tensor>()};
  return v.cast<std::vector<Tensor>>();
}

py::tuple grad(py::handle outputs, py::handle inputs, py::handle grad_outputs,
               std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  const auto outs = tensors_of(outputs), ins = tensors_of(inputs);
  std::vector<Tensor> gouts;
  if (py::isinstance<Tensor>(grad_outputs))
    gouts.push_back(grad_outputs.cast<Tensor>());
  else if (!grad_outputs.is_none())
    for (py::handle g : py::iter(grad_outputs)) gouts.push_back(optional_tensor(g));
  autograd::tensor_list result;
  {
    py::gil_scoped_release release;
    result = autograd::grad(outs, ins, gouts, retain_graph, create_graph, allow_unused);
  }
  py::tuple out(result.size());
  for (std::size_t i = 0; i < result.size(); ++i)
    out[i] = result[i].defined() ? py::cast(result[i]) : py::none();
  return out;
}

// options_of with int64 unless dtype says otherwise (randint's and randperm's default).
TensorOptions int_options(py::handle dtype, py::handle device, bool requires_grad) {
  TensorOptions options = options_of(dtype, device, requires_grad);
  if (dtype.is_none()) options.dtype = kInt64;
  return options;
}

// randint(high, size) or randint(low, high, size), with dtype=, device=, requires_grad=.
Tensor randint(const py::args& args, py::handle dtype, py::handle device, bool requires_grad) {
  TORCHLET_CHECK(args.size() == 2 || args.size() == 3,
                 "randint: Expected (high, size) or (low, high, size), but got ", args.size(),
                 " arguments");
  const bool has_low = args.size() == 3;
  const int64_t low = has_low ? args[0].cast<int64_t>() : 0;
  const int64_t high = args[has_low ? 1 : 0].cast<int64_t>();
  const Shape shape(args[has_low ? 2 : 1].cast<std::vector<int64_t>>());
  return torchlet::randint(low, high, shape, int_options(dtype, device, requires_grad));
}

}  // namespace

void bind_autograd(py::module_& m, py::class_<Tensor>& cls) {
  py::class_<autograd::Node, std::shared_ptr<autograd::Node>>(m, "_Node")
      .def("name", [](const autograd::Node& n) { return std::string(n.name()); })
      .def("__repr__",
           [](const autograd::Node& n) { return "<" + std::string(n.name()) + " object>"; });
  py::class_<HookHandle>(m, "_HookHandle").def("remove", &HookHandle::remove);
  cls.def_property_readonly("grad_fn",
                            [](const Tensor& t) -> py::object {
                              return t.grad_fn() ? py::cast(t.grad_fn()) : py::none();
                            })
      .def("register_hook", &register_hook, py::arg("hook"))
      .def(
          "normal_",
          [](py::object self, double mean, double std) {
            self.cast<Tensor&>().normal_(mean, std);
            return self;
          },
          py::arg("mean") = 0.0, py::arg("std") = 1.0)
      .def(
          "bernoulli_",
          [](py::object self, double p) {
            self.cast<Tensor&>().bernoulli_(p);
            return self;
          },
          py::arg("p") = 0.5);
  py::module_ ag = m.def_submodule("_autograd", "torch.autograd's functions.");
  ag.def("grad", &grad, py::arg("outputs"), py::arg("inputs"), py::arg("grad_outputs") = py::none(),
         py::arg("retain_graph") = py::none(), py::arg("create_graph") = false,
         py::arg("allow_unused") = false);
  m.def("randint", &randint, py::kw_only(), py::arg("dtype") = py::none(),
        py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def(
      "randperm",
      [](int64_t n, py::handle dtype, py::handle device, bool requires_grad) {
        return torchlet::randperm(n, int_options(dtype, device, requires_grad));
      },
      py::arg("n"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
      py::arg("requires_grad") = false);
}

}  // namespace torchlet::python
