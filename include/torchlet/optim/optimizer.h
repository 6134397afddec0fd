// Optimizers update parameters from their gradients: SGD (with momentum, weight decay,
// Nesterov) and Adam, with PyTorch's update rules. They hold the same Tensor handles as the
// model, so a module moved with to() before the first step() is updated where it now lives.
// state_dict() / load_state_dict() carry their state (momentum buffers, Adam's moments and
// step counts) across a checkpoint, so a resumed run continues exactly (nn::save / nn::load).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "torchlet/tensor.h"

namespace torchlet::optim {

// One parameter's state under PyTorch's names: SGD's "momentum_buffer"; Adam's "step" (an int64
// scalar), "exp_avg" and "exp_avg_sq". Empty for a parameter that has not been stepped yet.
using ParamState = std::map<std::string, Tensor>;
// An optimizer's state, as PyTorch's optimizer.state_dict()["state"]: one ParamState per
// parameter, in parameters() order. Hyperparameters (lr, momentum...) are not part of it:
// they come from the constructor, as the command line gives them.
using StateDict = std::vector<ParamState>;

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
  // PyTorch's class name, "SGD" or "Adam": a checkpoint records it, so that state goes back
  // only into an optimizer of the same kind.
  virtual const char* name() const noexcept = 0;
  // A copy of the state (on the parameters' devices). Unlike PyTorch's, whose tensors are the
  // optimizer's own, later steps do not change it: it is a snapshot to save.
  virtual StateDict state_dict() const = 0;
  // Replaces the state with a copy of `state`, each tensor moved to its parameter's device.
  // Checks it all first and throws torchlet::Error, leaving the state as it was, unless it
  // has one entry per parameter, each holding only this optimizer's state names (Adam: all
  // three or none) as float32 tensors shaped as the parameter (Adam's "step": an int64 scalar
  // >= 1).
  virtual void load_state_dict(const StateDict& state) = 0;

 protected:
  std::vector<Tensor> params_;
  double lr_ = 0.0;
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, double lr, double momentum = 0.0, double weight_decay = 0.0,
      bool nesterov = false);
  void step() override;
  const char* name() const noexcept override { return "SGD"; }
  StateDict state_dict() const override;
  void load_state_dict(const StateDict& state) override;
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
  const char* name() const noexcept override { return "Adam"; }
  StateDict state_dict() const override;
  void load_state_dict(const StateDict& state) override;

 private:
  double beta1_, beta2_, eps_, weight_decay_;
  std::vector<Tensor> exp_avg_, exp_avg_sq_;
  // Per parameter: its steps so far, an int64 scalar on its device that the update kernel
  // advances (so a replayed step advances it too); undefined before the first step.
  std::vector<Tensor> steps_;
};

}  // namespace torchlet::optim
