// Loss functions as objects, the way the course uses nn.CrossEntropyLoss(): each holds its
// options (PyTorch's names and defaults, reduction "none", "mean" or "sum") and calls the
// function of the same name in functional.h. criterion(input, target) is a scalar tensor unless
// reduction is "none".
#pragma once

#include <string>

#include "torchlet/tensor.h"

namespace torchlet::nn {

// The call operator of every loss: loss(input, target) is loss.forward(input, target).
template <typename Derived>
class Loss {
 public:
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return static_cast<const Derived&>(*this).forward(input, target);
  }
};

// logits [N, C], target [N] int64 class indices. Without options it is the fused kernel.
class CrossEntropyLoss : public Loss<CrossEntropyLoss> {
 public:
  explicit CrossEntropyLoss(Tensor weight = Tensor(), int64_t ignore_index = -100,
                            std::string reduction = "mean", double label_smoothing = 0.0)
      : weight(std::move(weight)),
        ignore_index(ignore_index),
        reduction(std::move(reduction)),
        label_smoothing(label_smoothing) {}
  Tensor forward(const Tensor& input, const Tensor& target) const;
  Tensor weight;
  int64_t ignore_index;
  std::string reduction;
  double label_smoothing;
};

class NLLLoss : public Loss<NLLLoss> {
 public:
  explicit NLLLoss(Tensor weight = Tensor(), int64_t ignore_index = -100,
                   std::string reduction = "mean")
      : weight(std::move(weight)), ignore_index(ignore_index), reduction(std::move(reduction)) {}
  Tensor forward(const Tensor& input, const Tensor& target) const;
  Tensor weight;
  int64_t ignore_index;
  std::string reduction;
};

class MSELoss : public Loss<MSELoss> {
 public:
  explicit MSELoss(std::string reduction = "mean") : reduction(std::move(reduction)) {}
  Tensor forward(const Tensor& input, const Tensor& target) const;
  std::string reduction;
};

class L1Loss : public Loss<L1Loss> {
 public:
  explicit L1Loss(std::string reduction = "mean") : reduction(std::move(reduction)) {}
  Tensor forward(const Tensor& input, const Tensor& target) const;
  std::string reduction;
};

class SmoothL1Loss : public Loss<SmoothL1Loss> {
 public:
  explicit SmoothL1Loss(std::string reduction = "mean", double beta = 1.0)
      : reduction(std::move(reduction)), beta(beta) {}
  Tensor forward(const Tensor& input, const Tensor& target) const;
  std::string reduction;
  double beta;
};

class HuberLoss : public Loss<HuberLoss> {
 public:
  explicit HuberLoss(std::string reduction = "mean", double delta = 1.0)
      : reduction(std::move(reduction)), delta(delta) {}
  Tensor forward(const Tensor& input, const Tensor& target) const;
  std::string reduction;
  double delta;
};

class BCELoss : public Loss<BCELoss> {
 public:
  explicit BCELoss(Tensor weight = Tensor(), std::string reduction = "mean")
      : weight(std::move(weight)), reduction(std::move(reduction)) {}
  Tensor forward(const Tensor& input, const Tensor& target) const;
  Tensor weight;
  std::string reduction;
};

class BCEWithLogitsLoss : public Loss<BCEWithLogitsLoss> {
 public:
  explicit BCEWithLogitsLoss(Tensor weight = Tensor(), std::string reduction = "mean",
                             Tensor pos_weight = Tensor())
      : weight(std::move(weight)),
        reduction(std::move(reduction)),
        pos_weight(std::move(pos_weight)) {}
  Tensor forward(const Tensor& input, const Tensor& target) const;
  Tensor weight;
  std::string reduction;
  Tensor pos_weight;
};

class KLDivLoss : public Loss<KLDivLoss> {
 public:
  explicit KLDivLoss(std::string reduction = "mean", bool log_target = false)
      : reduction(std::move(reduction)), log_target(log_target) {}
  Tensor forward(const Tensor& input, const Tensor& target) const;
  std::string reduction;
  bool log_target;
};

}  // namespace torchlet::nn
