// The functions behind issue 14's layers (torch.nn.functional's conv1d, conv_transpose2d,
// avg_pool2d, adaptive_avg_pool2d, max_pool1d, group_norm, dropout2d, embedding) and
// torch.nn.utils' gradient clipping, into torchlet._C._nn next to bind_ops.cpp's.
#include "bindings.h"
#include "torchlet/error.h"
#include "torchlet/nn/utils.h"

namespace torchlet::python {
namespace {

int64_t one_of(py::handle v) {
  if (PyLong_Check(v.ptr())) return v.cast<int64_t>();
  const auto values = v.cast<std::vector<int64_t>>();
  TORCHLET_CHECK(values.size() == 1, "Expected an int or a 1-tuple, but got ", values.size(),
                 " values");
  return values[0];
}

// PyTorch's stride=None: the kernel size (the library's 0).
Size2 stride_of(py::handle stride) { return stride.is_none() ? Size2(0) : size2_of(stride); }

}  // namespace

void bind_layers(py::module_& m) {
  auto f = m.attr("_nn").cast<py::module_>();
  f.def(
      "conv1d",
      [](const Tensor& x, const Tensor& w, py::object b, py::object stride, py::object padding) {
        return conv1d(x, w, optional_tensor(b), one_of(stride), one_of(padding));
      },
      py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1,
      py::arg("padding") = 0);
  f.def(
      "conv_transpose2d",
      [](const Tensor& x, const Tensor& w, py::object b, py::object stride, py::object padding,
         py::object output_padding) {
        return conv_transpose2d(x, w, optional_tensor(b), size2_of(stride), size2_of(padding),
                                size2_of(output_padding));
      },
      py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1,
      py::arg("padding") = 0, py::arg("output_padding") = 0);
  f.def(
      "avg_pool2d",
      [](const Tensor& x, py::object k, py::object stride, py::object padding) {
        return avg_pool2d(x, size2_of(k), stride_of(stride), size2_of(padding));
      },
      py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(),
      py::arg("padding") = 0);
  f.def(
      "adaptive_avg_pool2d",
      [](const Tensor& x, py::object size) { return adaptive_avg_pool2d(x, size2_of(size)); },
      py::arg("input"), py::arg("output_size"));
  f.def(
      "max_pool1d",
      [](const Tensor& x, py::object k, py::object stride, py::object padding) {
        return max_pool1d(x, one_of(k), stride.is_none() ? 0 : one_of(stride), one_of(padding));
      },
      py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(),
      py::arg("padding") = 0);
  f.def(
      "group_norm",
      [](const Tensor& x, int64_t groups, py::object w, py::object b, double eps) {
        return group_norm(x, groups, optional_tensor(w), optional_tensor(b), eps);
      },
      py::arg("input"), py::arg("num_groups"), py::arg("weight") = py::none(),
      py::arg("bias") = py::none(), py::arg("eps") = 1e-5);
  f.def(
      "dropout2d",
      [](const Tensor& x, double p, bool training) { return dropout2d(x, p, training); },
      py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true);
  f.def(
      "embedding",
      [](const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx) {
        return embedding(input, weight, padding_idx);
      },
      py::arg("input"), py::arg("weight"), py::arg("padding_idx") = py::none());
  f.def("clip_grad_norm_", &nn::utils::clip_grad_norm_, py::arg("parameters"), py::arg("max_norm"),
        py::arg("norm_type") = 2.0, py::arg("error_if_nonfinite") = false);
  f.def("clip_grad_value_", &nn::utils::clip_grad_value_, py::arg("parameters"),
        py::arg("clip_value"));
}

}  // namespace torchlet::python
