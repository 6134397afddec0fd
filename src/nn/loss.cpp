// CrossEntropyLoss: the object form of cross_entropy.
#include "torchlet/nn/loss.h"

#include "torchlet/functional.h"

namespace torchlet::nn {

Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) const {
  return cross_entropy(input, target);
}

}  // namespace torchlet::nn
