// torchlet.train: the library's fit loop (include/torchlet/train.h) over a Python nn.Module,
// seen by the loop as a C++ module whose forward calls the Python one (with the GIL; the loop
// itself runs without it). A Python loss and callbacks are called the same way. Ctrl-C: the
// loop's stop flag asks Python for pending signals after every batch, and a KeyboardInterrupt
// found there ends the loop and is raised.
#include <string>

#include "bindings.h"
#include "torchlet/error.h"
#include "torchlet/train.h"

namespace torchlet::python {
namespace {

// What a Python model or loss returned, which must be a Tensor.
Tensor tensor_result(const py::object& out, const char* what) {
  if (!py::isinstance<Tensor>(out))
    throw py::type_error(py::str("torchlet.train: Expected the {} to return a Tensor, but got {}")
                             .format(what, py::type::of(out).attr("__name__"))
                             .cast<std::string>());
  return out.cast<Tensor>();
}

// A Python module's parameters registered under their indices ("0", "1"...), forward calling it;
// the loop's train()/eval() reach the Python module's at the next forward.
class PythonModule : public nn::Module {
 public:
  explicit PythonModule(py::object module) : module_(std::move(module)) {
    int i = 0;
    for (py::handle p : module_.attr("parameters")()) {
      const auto& t = p.cast<const Tensor&>();
      register_parameter(std::to_string(i++), t, t.requires_grad());
    }
  }
  Tensor forward(const Tensor& input) override {
    py::gil_scoped_acquire gil;
    if (module_.attr("training").cast<bool>() != is_training())
      module_.attr("train")(is_training());
    return tensor_result(module_(input), "model");
  }
  std::string name() const override { return "PythonModule"; }

 private:
  py::object module_;
};

Execution execution_of(const std::string& name) {
  if (name == "auto") return Execution::Auto;
  if (name == "eager") return Execution::Eager;
  if (name == "fused") return Execution::Fused;
  if (name == "compiled") return Execution::Compiled;
  throw py::value_error(py::str("torchlet.train: Expected execution 'auto', 'eager', 'fused' or "
                                "'compiled', but got '{}'")
                            .format(name)
                            .cast<std::string>());
}

const char* stop_name(StopReason r) {
  switch (r) {
    case StopReason::Completed: return "completed";
    case StopReason::NonFinite: return "nonfinite";
    case StopReason::Callback: return "callback";
    case StopReason::StopFlag: return "interrupted";
    case StopReason::EarlyStopping: return "early_stopping";
  }
  return "";
}

TrainResult fit(py::object model, optim::Optimizer& optimizer, const Tensor& inputs,
                const Tensor& targets, int64_t epochs, int64_t batch_size, uint64_t seed,
                int64_t record_every, const std::string& execution, py::object loss,
                py::object val_input, py::object val_target, int64_t validate_every,
                int64_t patience, double min_delta, bool stop_on_nonfinite, py::object on_epoch) {
  PythonModule module(model);
  TrainOptions o;
  o.epochs = epochs, o.batch_size = batch_size, o.seed = seed, o.record_every = record_every;
  o.execution = execution_of(execution);
  o.val_input = optional_tensor(val_input), o.val_target = optional_tensor(val_target);
  o.validate_every = validate_every, o.patience = patience, o.min_delta = min_delta;
  o.stop_on_nonfinite = stop_on_nonfinite;
  if (!loss.is_none())
    o.loss = [&loss](const Tensor& output, const Tensor& target) {
      py::gil_scoped_acquire gil;
      return tensor_result(loss(output, target), "loss_fn");
    };
  if (!on_epoch.is_none())
    o.on_epoch = [&on_epoch](const EpochInfo& info) {
      py::gil_scoped_acquire gil;
      py::object go_on = on_epoch(info.epoch(), info.value());
      return go_on.is_none() || go_on.cast<bool>();
    };
  bool interrupted = false;
  o.stop_within_epoch = true;
  o.should_stop = [&interrupted] {
    py::gil_scoped_acquire gil;
    interrupted = interrupted || PyErr_CheckSignals() != 0;
    return interrupted;
  };
  TrainResult result;
  {
    py::gil_scoped_release release;
    result = train(module, optimizer, inputs, targets, o);
  }
  if (interrupted) throw py::error_already_set();  // the KeyboardInterrupt PyErr_CheckSignals set
  return result;
}

}  // namespace

void bind_train(py::module_& m) {
  py::class_<TrainResult>(m, "TrainResult", "What torchlet.train returns.")
      .def_property_readonly("stop", [](const TrainResult& r) { return stop_name(r.stop); })
      .def_readonly("losses", &TrainResult::losses)
      .def_readonly("loss_epochs", &TrainResult::loss_epochs)
      .def_readonly("final_loss", &TrainResult::final_loss)
      .def_readonly("epochs_done", &TrainResult::epochs_done)
      .def_readonly("best_val_loss", &TrainResult::best_val_loss)
      .def_readonly("best_epoch", &TrainResult::best_epoch)
      .def_readonly("train_s", &TrainResult::train_s)
      .def_readonly("fused", &TrainResult::fused)
      .def_readonly("compiled", &TrainResult::compiled)
      .def("__repr__", [](const TrainResult& r) {
        return py::str("TrainResult(stop='{}', epochs_done={}, final_loss={})")
            .format(stop_name(r.stop), r.epochs_done, r.final_loss);
      });
  m.def("_train", &fit, py::arg("model"), py::arg("optimizer"), py::arg("inputs"),
        py::arg("targets"), py::arg("epochs"), py::arg("batch_size"), py::arg("seed"),
        py::arg("record_every"), py::arg("execution"), py::arg("loss"), py::arg("val_input"),
        py::arg("val_target"), py::arg("validate_every"), py::arg("patience"), py::arg("min_delta"),
        py::arg("stop_on_nonfinite"), py::arg("on_epoch"));
}

}  // namespace torchlet::python
