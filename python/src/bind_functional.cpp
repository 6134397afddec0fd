// torch.nn.functional's ops under PyTorch's Python names and keywords: activations, losses,
// normalisation, images, bound in torchlet._C._nn (reached through torchlet.nn.functional).
#include <string>

#include "bindings.h"
#include "torchlet/functional.h"

namespace torchlet::python {

void bind_functional(py::module_& m) {
  py::module_ f = m.def_submodule("_nn", "The ops behind torchlet.nn.functional.");
  f.def(
      "linear",
      [](const Tensor& x, const Tensor& w, py::object b) {
        return linear(x, w, optional_tensor(b));
      },
      py::arg("input"), py::arg("weight"), py::arg("bias") = py::none());
  f.def(
      "gelu", [](const Tensor& x, const std::string& a) { return gelu(x, a); }, py::arg("input"),
      py::arg("approximate") = "none");
  f.def(
      "silu", [](const Tensor& x) { return silu(x); }, py::arg("input"));
  f.def(
      "leaky_relu", [](const Tensor& x, double s) { return leaky_relu(x, s); }, py::arg("input"),
      py::arg("negative_slope") = 0.01);
  f.def(
      "elu", [](const Tensor& x, double a) { return elu(x, a); }, py::arg("input"),
      py::arg("alpha") = 1.0);
  f.def(
      "softplus", [](const Tensor& x, double b, double t) { return softplus(x, b, t); },
      py::arg("input"), py::arg("beta") = 1.0, py::arg("threshold") = 20.0);
  f.def(
      "dropout", [](const Tensor& x, double p, bool training) { return dropout(x, p, training); },
      py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true);
  f.def(
      "cross_entropy",
      [](const Tensor& x, const Tensor& t, py::object w, int64_t ignore, const std::string& r,
         double ls) {
        if (w.is_none() && ignore == -100 && r == "mean" && ls == 0.0)
          return cross_entropy(x, t);  // the fused kernel
        return cross_entropy(x, t, optional_tensor(w), ignore, r, ls);
      },
      py::arg("input"), py::arg("target"), py::arg("weight") = py::none(),
      py::arg("ignore_index") = -100, py::arg("reduction") = "mean",
      py::arg("label_smoothing") = 0.0);
  f.def(
      "nll_loss",
      [](const Tensor& x, const Tensor& t, py::object w, int64_t ignore, const std::string& r) {
        return nll_loss(x, t, optional_tensor(w), ignore, r);
      },
      py::arg("input"), py::arg("target"), py::arg("weight") = py::none(),
      py::arg("ignore_index") = -100, py::arg("reduction") = "mean");
  using Pointwise = Tensor (*)(const Tensor&, const Tensor&, const std::string&);
  for (const auto& [name, loss] :
       {std::pair<const char*, Pointwise>{"mse_loss", &mse_loss}, {"l1_loss", &l1_loss}})
    f.def(name, loss, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean");
  f.def(
      "smooth_l1_loss",
      [](const Tensor& x, const Tensor& t, const std::string& r, double beta) {
        return smooth_l1_loss(x, t, r, beta);
      },
      py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", py::arg("beta") = 1.0);
  f.def(
      "huber_loss",
      [](const Tensor& x, const Tensor& t, const std::string& r, double delta) {
        return huber_loss(x, t, r, delta);
      },
      py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", py::arg("delta") = 1.0);
  f.def(
      "binary_cross_entropy",
      [](const Tensor& x, const Tensor& t, py::object w, const std::string& r) {
        return binary_cross_entropy(x, t, optional_tensor(w), r);
      },
      py::arg("input"), py::arg("target"), py::arg("weight") = py::none(),
      py::arg("reduction") = "mean");
  f.def(
      "binary_cross_entropy_with_logits",
      [](const Tensor& x, const Tensor& t, py::object w, const std::string& r, py::object pw) {
        return binary_cross_entropy_with_logits(x, t, optional_tensor(w), optional_tensor(pw), r);
      },
      py::arg("input"), py::arg("target"), py::arg("weight") = py::none(),
      py::arg("reduction") = "mean", py::arg("pos_weight") = py::none());
  f.def(
      "kl_div",
      [](const Tensor& x, const Tensor& t, const std::string& r, bool lt) {
        return kl_div(x, t, r, lt);
      },
      py::arg("input"), py::arg("target"), py::arg("reduction") = "mean",
      py::arg("log_target") = false);
  f.def(
      "layer_norm",
      [](const Tensor& x, const std::vector<int64_t>& shape, py::object w, py::object b,
         double eps) { return layer_norm(x, shape, optional_tensor(w), optional_tensor(b), eps); },
      py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(),
      py::arg("bias") = py::none(), py::arg("eps") = 1e-5);
  f.def(
      "batch_norm",
      [](const Tensor& x, py::object rm, py::object rv, py::object w, py::object b, bool training,
         double momentum, double eps) {
        return batch_norm(x, optional_tensor(rm), optional_tensor(rv), optional_tensor(w),
                          optional_tensor(b), training, momentum, eps);
      },
      py::arg("input"), py::arg("running_mean"), py::arg("running_var"),
      py::arg("weight") = py::none(), py::arg("bias") = py::none(), py::arg("training") = false,
      py::arg("momentum") = 0.1, py::arg("eps") = 1e-5);
  f.def(
      "conv2d",
      [](const Tensor& x, const Tensor& w, py::object b, py::object stride, py::object padding) {
        return conv2d(x, w, optional_tensor(b), size2_of(stride), size2_of(padding));
      },
      py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1,
      py::arg("padding") = 0);
  f.def(
      "max_pool2d",
      [](const Tensor& x, py::object k, py::object stride, py::object padding) {
        return max_pool2d(x, size2_of(k), stride.is_none() ? Size2(0) : size2_of(stride),
                          size2_of(padding));
      },
      py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(),
      py::arg("padding") = 0);
  f.def(
      "flatten", [](const Tensor& x, int64_t s, int64_t e) { return flatten(x, s, e); },
      py::arg("input"), py::arg("start_dim") = 0, py::arg("end_dim") = -1);
}

}  // namespace torchlet::python
