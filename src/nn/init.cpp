// nn::init, as torch.nn.init computes gains, fans and bounds. Every fill runs without autograd
// (PyTorch's torch.no_grad()), so parameters that require grad can be initialised.
#include "torchlet/nn/init.h"

#include <cmath>
#include <vector>

#include "torchlet/autograd.h"
#include "torchlet/error.h"

namespace torchlet::nn::init {

double calculate_gain(const std::string& nonlinearity, std::optional<double> param) {
  if (nonlinearity == "linear" || nonlinearity == "sigmoid" || nonlinearity == "conv1d" ||
      nonlinearity == "conv2d" || nonlinearity == "conv3d" || nonlinearity == "conv_transpose1d" ||
      nonlinearity == "conv_transpose2d" || nonlinearity == "conv_transpose3d")
    return 1.0;
  if (nonlinearity == "tanh") return 5.0 / 3.0;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") {
    const double slope = param.value_or(0.01);
    return std::sqrt(2.0 / (1.0 + slope * slope));
  }
  if (nonlinearity == "selu") return 3.0 / 4.0;
  TORCHLET_CHECK(false, "calculate_gain: Expected a nonlinearity linear, conv1d, conv2d, conv3d, ",
                 "conv_transpose1d/2d/3d, sigmoid, tanh, relu, leaky_relu or selu, but got '",
                 nonlinearity, "'");
  return 0.0;
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor) {
  TORCHLET_CHECK(tensor.dim() >= 2, "init: Expected a tensor of at least 2 dimensions to compute ",
                 "fan in and fan out, but got shape ", tensor.shape());
  int64_t receptive_field = 1;
  for (int d = 2; d < tensor.dim(); ++d) receptive_field *= tensor.size(d);
  return {tensor.size(1) * receptive_field, tensor.size(0) * receptive_field};
}

namespace {

double fan(const Tensor& tensor, const std::string& mode) {
  TORCHLET_CHECK(mode == "fan_in" || mode == "fan_out",
                 "init: Expected mode 'fan_in' or 'fan_out', but got '", mode, "'");
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  return static_cast<double>(mode == "fan_in" ? fan_in : fan_out);
}

double xavier_std(const Tensor& tensor, double gain) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  return gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
}

}  // namespace

Tensor& uniform_(Tensor& tensor, double a, double b) {
  NoGradGuard no_grad;
  return tensor.uniform_(a, b);
}

Tensor& normal_(Tensor& tensor, double mean, double std) {
  NoGradGuard no_grad;
  return tensor.normal_(mean, std);
}

Tensor& constant_(Tensor& tensor, double value) {
  NoGradGuard no_grad;
  return tensor.fill_(value);
}

Tensor& zeros_(Tensor& tensor) { return constant_(tensor, 0.0); }
Tensor& ones_(Tensor& tensor) { return constant_(tensor, 1.0); }

Tensor& kaiming_uniform_(Tensor& tensor, double a, const std::string& mode,
                         const std::string& nonlinearity) {
  const double bound =
      std::sqrt(3.0) * calculate_gain(nonlinearity, a) / std::sqrt(fan(tensor, mode));
  return uniform_(tensor, -bound, bound);
}

Tensor& kaiming_normal_(Tensor& tensor, double a, const std::string& mode,
                        const std::string& nonlinearity) {
  return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / std::sqrt(fan(tensor, mode)));
}

Tensor& xavier_uniform_(Tensor& tensor, double gain) {
  const double bound = std::sqrt(3.0) * xavier_std(tensor, gain);
  return uniform_(tensor, -bound, bound);
}

Tensor& xavier_normal_(Tensor& tensor, double gain) {
  return normal_(tensor, 0.0, xavier_std(tensor, gain));
}

Tensor& orthogonal_(Tensor& tensor, double gain) {
  TORCHLET_CHECK(tensor.dim() >= 2, "orthogonal_: Expected a tensor of at least 2 dimensions, ",
                 "but got shape ", tensor.shape());
  const int64_t rows = tensor.size(0), cols = rows ? tensor.numel() / rows : 0;
  if (rows == 0 || cols == 0) return tensor;
  // PyTorch's recipe: QR of a normal [rows, cols] matrix, transposed when wider than tall,
  // Q's columns signed by R's diagonal. Modified Gram-Schmidt (in double) gives that Q: it
  // is the QR whose R has a positive diagonal.
  const std::vector<float> drawn = randn({rows, cols}).to_vector<float>();
  const bool wide = rows < cols;
  const int64_t m = wide ? cols : rows, n = wide ? rows : cols;  // a [m, n] matrix, m >= n
  std::vector<double> a(static_cast<std::size_t>(m * n));        // column-major: a[j * m + i]
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) a[wide ? i * m + j : j * m + i] = drawn[i * cols + j];
  for (int64_t j = 0; j < n; ++j) {
    double* q = &a[j * m];
    for (int64_t k = 0; k < j; ++k) {
      const double* p = &a[k * m];
      double dot = 0.0;
      for (int64_t i = 0; i < m; ++i) dot += p[i] * q[i];
      for (int64_t i = 0; i < m; ++i) q[i] -= dot * p[i];
    }
    double norm = 0.0;
    for (int64_t i = 0; i < m; ++i) norm += q[i] * q[i];
    norm = std::sqrt(norm);
    for (int64_t i = 0; i < m; ++i) q[i] /= norm;
  }
  std::vector<float> values(static_cast<std::size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      values[i * cols + j] = static_cast<float>(gain * a[wide ? i * m + j : j * m + i]);
  NoGradGuard no_grad;
  return tensor.copy_(torchlet::tensor(values, tensor.shape()));
}

}  // namespace torchlet::nn::init
