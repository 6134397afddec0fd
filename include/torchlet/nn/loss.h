// Loss functions as objects, the way the course uses nn.CrossEntropyLoss().
#pragma once

#include "torchlet/tensor.h"

namespace torchlet::nn {

// criterion(logits [N, C], target [N] int64) -> the mean cross-entropy, a scalar tensor.
class CrossEntropyLoss {
 public:
  Tensor forward(const Tensor& input, const Tensor& target) const;
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return forward(input, target);
  }
};

}  // namespace torchlet::nn
