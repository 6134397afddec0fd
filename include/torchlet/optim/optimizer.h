// Optimizers update parameters from their gradients: SGD (with momentum, weight decay,
// Nesterov) and Adam, with PyTorch's update rules. They hold the same Tensor handles as the
// model, so a module moved with to() before the first step() is updated where it now lives.
#pragma once

#include <utility>
#include <vector>

#include "torchlet/tensor.h"

namespace torchlet::optim {

class Optimizer {
 public:
  explicit Optimizer(std::vector<Tensor> params);
  virtual ~Optimizer() = default;
  // Clears (set_to_none, the default as in PyTorch 2) or zeroes every parameter's gradient.
  void zero_grad(bool set_to_none = true);
  // One update of every parameter that has a gradient; runs without recording autograd.
  virtual void step() = 0;
  const std::vector<Tensor>& parameters() const noexcept { return params_; }
  double lr() const noexcept { return lr_; }
  void set_lr(double lr);

 protected:
  std::vector<Tensor> params_;
  double lr_ = 0.0;
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, double lr, double momentum = 0.0, double weight_decay = 0.0,
      bool nesterov = false);
  void step() override;
  double momentum() const noexcept { return momentum_; }
  double weight_decay() const noexcept { return weight_decay_; }
  bool nesterov() const noexcept { return nesterov_; }

 private:
  double momentum_, weight_decay_;
  bool nesterov_;
  std::vector<Tensor> momentum_buffers_;  // one per parameter, made on first use
};

class Adam : public Optimizer {
 public:
  Adam(std::vector<Tensor> params, double lr = 1e-3, std::pair<double, double> betas = {0.9, 0.999},
       double eps = 1e-8, double weight_decay = 0.0);
  void step() override;

 private:
  double beta1_, beta2_, eps_, weight_decay_;
  std::vector<Tensor> exp_avg_, exp_avg_sq_;
  std::vector<int64_t> steps_;
};

}  // namespace torchlet::optim
