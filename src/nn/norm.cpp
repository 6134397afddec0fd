// LayerNorm, GroupNorm and BatchNorm: parameters and buffers as PyTorch initialises them, forward
// through functional.h's layer_norm, group_norm and batch_norm.
#include "torchlet/nn/norm.h"

#include <sstream>

#include "torchlet/autograd.h"
#include "torchlet/error.h"
#include "torchlet/functional.h"

namespace torchlet::nn {

LayerNorm::LayerNorm(std::vector<int64_t> shape, double eps_, bool elementwise_affine)
    : normalized_shape(std::move(shape)), eps(eps_) {
  TORCHLET_CHECK(!normalized_shape.empty(), "LayerNorm: Expected a normalized_shape, but got []");
  if (elementwise_affine) {
    weight = register_parameter("weight", ones(Shape(normalized_shape)));
    bias = register_parameter("bias", zeros(Shape(normalized_shape)));
  }
}

Tensor LayerNorm::forward(const Tensor& input) {
  return layer_norm(input, normalized_shape, weight, bias, eps);
}

std::string LayerNorm::name() const {
  std::ostringstream out;
  out << "LayerNorm((";
  for (std::size_t i = 0; i < normalized_shape.size(); ++i)
    out << (i ? ", " : "") << normalized_shape[i];
  out << (normalized_shape.size() == 1 ? ",)" : ")") << ", eps=" << eps
      << ", elementwise_affine=" << (weight.defined() ? "True" : "False") << ")";
  return out.str();
}

BatchNorm::BatchNorm(int64_t features, int dims, double eps_, double momentum_, bool affine,
                     bool track_running_stats)
    : num_features(features), eps(eps_), momentum(momentum_), dims_(dims) {
  TORCHLET_CHECK(features > 0, "BatchNorm: Expected num_features > 0, but got ", features);
  if (affine) {
    weight = register_parameter("weight", ones({features}));
    bias = register_parameter("bias", zeros({features}));
  }
  if (track_running_stats) {
    running_mean = register_buffer("running_mean", zeros({features}));
    running_var = register_buffer("running_var", ones({features}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, kInt64));
  }
}

Tensor BatchNorm::forward(const Tensor& input) {
  const int want = dims_ == 2 ? 4 : input.dim();
  TORCHLET_CHECK((dims_ == 1 && (input.dim() == 2 || input.dim() == 3)) || input.dim() == want,
                 "BatchNorm", dims_, "d: Expected ", dims_ == 2 ? "4D" : "2D or 3D",
                 " input, but got shape ", input.shape());
  TORCHLET_CHECK(input.size(1) == num_features, "BatchNorm", dims_, "d: Expected ", num_features,
                 " channels (dimension 1), but got shape ", input.shape());
  if (is_training() && num_batches_tracked.defined()) {
    NoGradGuard no_grad;
    num_batches_tracked.copy_(num_batches_tracked + 1);
  }
  return batch_norm(input, running_mean, running_var, weight, bias, is_training(), momentum, eps);
}

std::string BatchNorm::name() const {
  std::ostringstream out;
  out << "BatchNorm" << dims_ << "d(" << num_features << ", eps=" << eps
      << ", momentum=" << momentum << ", affine=" << (weight.defined() ? "True" : "False")
      << ", track_running_stats=" << (running_mean.defined() ? "True" : "False") << ")";
  return out.str();
}

GroupNorm::GroupNorm(int64_t groups, int64_t channels, double eps_, bool affine)
    : num_groups(groups), num_channels(channels), eps(eps_) {
  TORCHLET_CHECK(groups >= 1 && channels % groups == 0, "GroupNorm: Expected num_groups >= 1 ",
                 "dividing num_channels ", channels, ", but got num_groups ", groups);
  if (affine) {
    weight = register_parameter("weight", ones({channels}));
    bias = register_parameter("bias", zeros({channels}));
  }
}

Tensor GroupNorm::forward(const Tensor& input) {
  TORCHLET_CHECK(input.dim() >= 2 && input.size(1) == num_channels, "GroupNorm: Expected input ",
                 "[N, ", num_channels, ", ...], but got shape ", input.shape());
  return group_norm(input, num_groups, weight, bias, eps);
}

std::string GroupNorm::name() const {
  std::ostringstream out;
  out << "GroupNorm(" << num_groups << ", " << num_channels << ", eps=" << eps
      << ", affine=" << (weight.defined() ? "True" : "False") << ")";
  return out.str();
}

}  // namespace torchlet::nn
