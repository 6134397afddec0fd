// Training from Python: the C++ optimizers (their update kernels run in one call per step),
// torchlet.compile's engine (a Python step recorded once, replayed without Python), the
// in-place move and conversion behind nn.Module.to() and the safetensors files of torchlet.save /
// load. Module, the layers and the loader are Python.
#include <span>
#include <string>
#include <vector>

#include "bindings.h"
#include "torchlet/compile.h"
#include "torchlet/nn/checkpoint.h"
#include "torchlet/nn/module.h"
#include "torchlet/optim/optimizer.h"

namespace torchlet::python {
namespace {

// nn::Module::to is the public way to move or convert tensors in place (every handle sees the
// new device or dtype); this module holds the tensors as buffers, which to() changes without
// touching their requires_grad (a dtype converts only the floating ones).
class Holder : public nn::Module {
 public:
  Tensor forward(const Tensor& input) override { return input; }
};

void to_in_place(const std::vector<Tensor>& tensors, py::handle target) {
  Holder holder;
  for (std::size_t i = 0; i < tensors.size(); ++i)
    holder.register_buffer(std::to_string(i), tensors[i]);
  if (py::isinstance<DType>(target))
    holder.to(target.cast<DType>());
  else
    holder.to(device_of(target));
}

// A Python param_group's options (PyTorch's names) into the engine's one group, checked by its
// next step().
void set_options(optim::Optimizer& optimizer, const py::dict& options) {
  optim::GroupOptions& g = optimizer.param_groups().front();
  auto take = [&options](const char* name, auto& field) {
    if (options.contains(name)) field = options[name].cast<std::decay_t<decltype(field)>>();
  };
  take("lr", g.lr), take("weight_decay", g.weight_decay), take("maximize", g.maximize);
  take("momentum", g.momentum), take("nesterov", g.nesterov), take("betas", g.betas);
  take("eps", g.eps), take("alpha", g.alpha), take("centered", g.centered);
  take("lr_decay", g.lr_decay), take("initial_accumulator_value", g.initial_accumulator_value);
}

void bind_optimizers(py::module_& m) {
  py::class_<optim::Optimizer>(m, "_Optimizer")
      .def("step", &optim::Optimizer::step, py::call_guard<py::gil_scoped_release>())
      .def("zero_grad", &optim::Optimizer::zero_grad, py::arg("set_to_none") = true)
      .def_property("lr", &optim::Optimizer::lr, &optim::Optimizer::set_lr)
      .def("_set_options", &set_options, py::arg("options"))
      .def_property_readonly("name", &optim::Optimizer::name);
  using Betas = std::pair<double, double>;
  py::class_<optim::SGD, optim::Optimizer>(m, "_SGD").def(
      py::init<std::vector<Tensor>, double, double, double, bool, bool>(), py::arg("params"),
      py::arg("lr"), py::arg("momentum") = 0.0, py::arg("weight_decay") = 0.0,
      py::arg("nesterov") = false, py::arg("maximize") = false);
  py::class_<optim::Adam, optim::Optimizer>(m, "_Adam")
      .def(py::init<std::vector<Tensor>, double, Betas, double, double, bool>(), py::arg("params"),
           py::arg("lr") = 1e-3, py::arg("betas") = Betas{0.9, 0.999}, py::arg("eps") = 1e-8,
           py::arg("weight_decay") = 0.0, py::arg("maximize") = false);
  py::class_<optim::AdamW, optim::Adam>(m, "_AdamW")
      .def(py::init<std::vector<Tensor>, double, Betas, double, double, bool>(), py::arg("params"),
           py::arg("lr") = 1e-3, py::arg("betas") = Betas{0.9, 0.999}, py::arg("eps") = 1e-8,
           py::arg("weight_decay") = 1e-2, py::arg("maximize") = false);
  py::class_<optim::RMSprop, optim::Optimizer>(m, "_RMSprop")
      .def(py::init<std::vector<Tensor>, double, double, double, double, double, bool, bool>(),
           py::arg("params"), py::arg("lr") = 1e-2, py::arg("alpha") = 0.99, py::arg("eps") = 1e-8,
           py::arg("weight_decay") = 0.0, py::arg("momentum") = 0.0, py::arg("centered") = false,
           py::arg("maximize") = false);
  py::class_<optim::Adagrad, optim::Optimizer>(m, "_Adagrad")
      .def(py::init<std::vector<Tensor>, double, double, double, double, double, bool>(),
           py::arg("params"), py::arg("lr") = 1e-2, py::arg("lr_decay") = 0.0,
           py::arg("weight_decay") = 0.0, py::arg("initial_accumulator_value") = 0.0,
           py::arg("eps") = 1e-10, py::arg("maximize") = false);
}

// torchlet.compile(fn): the library's CompiledStep with the Python step it runs; calling it
// with the step's tensor arguments runs fn(*inputs), which must return a Tensor (see
// include/torchlet/compile.h for what a step may do).
struct PythonStep {
  CompiledStep step;
  py::function fn;

  // Called with the GIL held; releases it while the step runs (fn runs under it).
  Tensor operator()(std::span<const Tensor> inputs) {
    auto body = [this](std::span<const Tensor> in) {
      py::gil_scoped_acquire gil;
      py::tuple call_args(in.size());
      for (std::size_t i = 0; i < in.size(); ++i) call_args[i] = py::cast(in[i]);
      py::object result = fn(*call_args);
      if (!py::isinstance<Tensor>(result))
        throw py::type_error(
            "torchlet.compile: Expected the step to return a Tensor (its loss), but got " +
            std::string(py::str(py::type::of(result).attr("__name__"))));
      return result.cast<Tensor>();
    };
    py::gil_scoped_release release;
    return step.run(inputs, body);
  }
};

const py::detail::type_info* step_info = nullptr;

// _CompiledStep.__call__ as a plain CPython method (def_raw): a replay is a few microseconds,
// so pybind11's dispatch, argument casts and result lookup by typeid would be a large share.
PyObject* call_step(PyObject* self, PyObject* args) noexcept {
  try {
    auto* instance = reinterpret_cast<py::detail::instance*>(self);
    auto* step = static_cast<PythonStep*>(instance->get_value_and_holder(step_info).value_ptr());
    if (step == nullptr) throw py::type_error("torchlet.compile: the step is not initialised");
    const Py_ssize_t n = PyTuple_GET_SIZE(args);
    std::vector<Tensor> inputs;
    inputs.reserve(static_cast<std::size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* arg = PyTuple_GET_ITEM(args, i);
      const Tensor* t = tensor_of(arg);
      if (t == nullptr)
        throw py::type_error("torchlet.compile: Expected tensor arguments, but got " +
                             std::string(Py_TYPE(arg)->tp_name) + " as argument " +
                             std::to_string(i));
      inputs.push_back(*t);
    }
    return new_tensor((*step)(inputs));
  } catch (...) {
    set_python_error();
    return nullptr;
  }
}

}  // namespace

void bind_training(py::module_& m) {
  bind_optimizers(m);
  py::class_<PythonStep> step(m, "_CompiledStep", py::dynamic_attr());
  step.def(py::init([](py::function fn) {
             return new PythonStep{CompiledStep(), std::move(fn)};
           }),
           py::arg("fn"))
      .def_property_readonly("recordings", [](const PythonStep& s) { return s.step.recordings(); })
      .def_property_readonly("recorded_kernels",
                             [](const PythonStep& s) { return s.step.recorded_kernels(); })
      .def_property_readonly("fused", [](const PythonStep& s) { return s.step.fused(); });
  step_info = py::detail::get_type_info(typeid(PythonStep));
  def_raw(step, "__call__", reinterpret_cast<PyCFunction>(&call_step), METH_VARARGS,
          "One step: eager, recorded, then replayed (include/torchlet/compile.h).");
  m.def("_to_in_place", &to_in_place, py::arg("tensors"), py::arg("target"));
  m.def("_write_safetensors", &nn::write_safetensors, py::arg("path"), py::arg("tensors"),
        py::arg("metadata") = nn::Metadata{}, py::call_guard<py::gil_scoped_release>());
  m.def(
      "_read_safetensors",
      [](const std::string& path) {
        nn::Safetensors file;
        {
          py::gil_scoped_release release;
          file = nn::read_safetensors(path);
        }
        return py::make_tuple(file.tensors, file.metadata);
      },
      py::arg("path"));
}

}  // namespace torchlet::python
