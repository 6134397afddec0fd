// Normalisation layers: LayerNorm over the last dimensions, GroupNorm over groups of channels,
// and BatchNorm1d/2d with running
// statistics kept as buffers (updated while training, used in eval()), PyTorch's defaults and
// initialisation (weight 1, bias 0, running mean 0, running variance 1).
#pragma once

#include <string>
#include <vector>

#include "torchlet/nn/holder.h"
#include "torchlet/nn/module.h"

namespace torchlet::nn {

class LayerNorm : public Module, public Holder<LayerNorm> {
 public:
  explicit LayerNorm(std::vector<int64_t> normalized_shape, double eps = 1e-5,
                     bool elementwise_affine = true);
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  std::vector<int64_t> normalized_shape;
  double eps;
  Tensor weight, bias;  // undefined without elementwise_affine
};

// BatchNorm1d takes [N, C] or [N, C, L]; BatchNorm2d [N, C, H, W]. Statistics are over every
// dimension but C. momentum is PyTorch's: running = (1 - momentum) running + momentum batch,
// the running variance unbiased.
class BatchNorm : public Module, public Holder<BatchNorm> {
 public:
  BatchNorm(int64_t num_features, int dims, double eps, double momentum, bool affine,
            bool track_running_stats);
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  int64_t num_features;
  double eps, momentum;
  Tensor weight, bias;                                    // undefined without affine
  Tensor running_mean, running_var, num_batches_tracked;  // buffers (undefined: not tracked)

 private:
  int dims_;  // 1 or 2
};

class BatchNorm1d : public BatchNorm {
 public:
  explicit BatchNorm1d(int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                       bool affine = true, bool track_running_stats = true)
      : BatchNorm(num_features, 1, eps, momentum, affine, track_running_stats) {}
};

class BatchNorm2d : public BatchNorm {
 public:
  explicit BatchNorm2d(int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                       bool affine = true, bool track_running_stats = true)
      : BatchNorm(num_features, 2, eps, momentum, affine, track_running_stats) {}
};

// Normalises each sample over groups of num_channels / num_groups channels (see group_norm);
// weight ones and bias zeros [num_channels] with affine.
class GroupNorm : public Module, public Holder<GroupNorm> {
 public:
  GroupNorm(int64_t num_groups, int64_t num_channels, double eps = 1e-5, bool affine = true);
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  int64_t num_groups, num_channels;
  double eps;
  Tensor weight, bias;  // undefined without affine
};

}  // namespace torchlet::nn
