// layer_norm, batch_norm and group_norm, composed from reductions and elementwise ops (their
// gradients come with them), with PyTorch's biased variance for normalising and unbiased running
// variance.
#include "ops/common.h"
#include "torchlet/autograd.h"
#include "torchlet/functional.h"

namespace torchlet {

Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                  const Tensor& weight, const Tensor& bias, double eps) {
  ops::check_defined("layer_norm", {"input", input});
  const int k = static_cast<int>(normalized_shape.size());
  bool matches = k >= 1 && k <= input.dim();
  for (int i = 0; matches && i < k; ++i)
    matches = input.shape()[input.dim() - k + i] == normalized_shape[i];
  TORCHLET_CHECK(matches, "layer_norm: Expected an input whose last dimensions are ",
                 Shape(normalized_shape), ", but got shape ", input.shape());
  std::vector<int64_t> dims;
  for (int i = 0; i < k; ++i) dims.push_back(input.dim() - k + i);
  const Tensor centred = input - mean(input, dims, true);
  Tensor y = centred * rsqrt(var(input, dims, 0.0, true) + eps);
  if (weight.defined()) y = y * weight;
  if (bias.defined()) y = y + bias;
  return y;
}

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum,
                  double eps) {
  ops::check_defined("batch_norm", {"input", input});
  TORCHLET_CHECK(input.dim() >= 2,
                 "batch_norm: Expected an input of at least 2 dimensions [N, C, "
                 "...], but got shape ",
                 input.shape());
  const int64_t channels = input.size(1);
  std::vector<int64_t> dims{0}, along(static_cast<std::size_t>(input.dim()), 1);
  for (int d = 2; d < input.dim(); ++d) dims.push_back(d);
  along[1] = channels;
  const int64_t per_channel = input.numel() / std::max<int64_t>(channels, 1);
  Tensor mu, variance;
  if (training || !running_mean.defined()) {
    TORCHLET_CHECK(per_channel > 1,
                   "Expected more than 1 value per channel when training, got "
                   "input size ",
                   input.shape());
    mu = mean(input, dims, true);
    variance = var(input, dims, 0.0, true);
    if (training && running_mean.defined()) {  // PyTorch: the running variance is unbiased
      NoGradGuard no_grad;
      const double unbias = static_cast<double>(per_channel) / static_cast<double>(per_channel - 1);
      Tensor rm = running_mean, rv = running_var;  // handles to the caller's buffers
      rm.copy_(rm * (1 - momentum) + mu.detach().reshape({channels}) * momentum);
      rv.copy_(rv * (1 - momentum) + variance.detach().reshape({channels}) * (momentum * unbias));
    }
  } else {
    mu = running_mean.reshape(Shape(along));
    variance = running_var.reshape(Shape(along));
  }
  Tensor y = (input - mu) * rsqrt(variance + eps);
  if (weight.defined()) y = y * weight.reshape(Shape(along));
  if (bias.defined()) y = y + bias.reshape(Shape(along));
  return y;
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias,
                  double eps) {
  ops::check_defined("group_norm", {"input", input});
  TORCHLET_CHECK(input.dim() >= 2, "group_norm: Expected an input of at least 2 dimensions [N, ",
                 "C, ...], but got shape ", input.shape());
  const int64_t channels = input.size(1);
  TORCHLET_CHECK(num_groups >= 1 && channels % num_groups == 0, "group_norm: Expected ",
                 "num_groups >= 1 dividing the ", channels, " channels, but got num_groups ",
                 num_groups);
  std::vector<int64_t> along(static_cast<std::size_t>(input.dim()), 1);
  along[1] = channels;
  for (const Tensor* t : {&weight, &bias})
    TORCHLET_CHECK(!t->defined() || t->shape() == Shape{channels}, "group_norm: Expected ",
                   t == &weight ? "weight" : "bias", " of shape [", channels, "], but got ",
                   t->shape());
  // Each group of each sample is one row, normalised as layer_norm normalises its last dim.
  const int64_t per_group = input.numel() / std::max<int64_t>(input.size(0) * num_groups, 1);
  Tensor rows = input.reshape({input.size(0), num_groups, per_group});
  Tensor y = layer_norm(rows, {per_group}, Tensor(), Tensor(), eps).reshape(input.shape());
  if (weight.defined()) y = y * weight.reshape(Shape(along));
  if (bias.defined()) y = y + bias.reshape(Shape(along));
  return y;
}

}  // namespace torchlet
