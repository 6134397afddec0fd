// Optimizers update parameters from their gradients with PyTorch's update rules: SGD (momentum,
// weight decay, Nesterov), Adam, AdamW, RMSprop and Adagrad, each with `maximize`. They hold
// the same Tensor handles as the model, so a module moved with to() before the first step() is
// updated where it now lives. Parameters come in groups, each with its own options, as
// torch.optim's param_groups. state_dict() / load_state_dict() carry their state (momentum
// buffers, moments, step counts) across a checkpoint, so a resumed run continues exactly
// (nn::save / nn::load).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "torchlet/optim/options.h"
#include "torchlet/tensor.h"

namespace torchlet::optim {

// One parameter's state under PyTorch's names: SGD's "momentum_buffer"; Adam's and AdamW's
// "step" (an int64 scalar), "exp_avg" and "exp_avg_sq"; RMSprop's "square_avg",
// "momentum_buffer" (with momentum) and "grad_avg" (centered); Adagrad's "step" and "sum".
// Empty for a parameter that has not been stepped yet.
using ParamState = std::map<std::string, Tensor>;
// An optimizer's state, as PyTorch's optimizer.state_dict()["state"]: one ParamState per
// parameter, in parameters() order. Hyperparameters (lr, momentum...) are not part of it:
// they come from the constructor, as the command line gives them.
using StateDict = std::vector<ParamState>;

// A parameter group's options under PyTorch's names. Each optimizer reads the ones it has and
// ignores the others, as each Python optimizer's param_group dict holds only its own keys.
struct GroupOptions {
  double lr = 1e-3;
  double weight_decay = 0.0;
  bool maximize = false;
  double momentum = 0.0;                        // SGD, RMSprop
  bool nesterov = false;                        // SGD
  std::pair<double, double> betas{0.9, 0.999};  // Adam, AdamW
  double eps = 1e-8;                            // Adam, AdamW, RMSprop, Adagrad
  double alpha = 0.99;                          // RMSprop
  bool centered = false;                        // RMSprop
  double lr_decay = 0.0;                        // Adagrad
  double initial_accumulator_value = 0.0;       // Adagrad
  bool operator==(const GroupOptions&) const = default;
};

// Its options may be changed between steps (param_groups()[i].lr = ...: a scheduler does);
// its params only through add_param_group.
struct ParamGroup : GroupOptions {
  std::vector<Tensor> params;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  // Clears (set_to_none, the default as in PyTorch 2) or zeroes every parameter's gradient.
  void zero_grad(bool set_to_none = true);
  // One update of every parameter that has a gradient; runs without recording autograd.
  // Throws torchlet::Error if a group's options are out of range.
  virtual void step() = 0;
  // Every group's parameters, in group order: the indices of state_dict().
  const std::vector<Tensor>& parameters() const noexcept { return params_; }
  std::vector<ParamGroup>& param_groups() noexcept { return groups_; }
  const std::vector<ParamGroup>& param_groups() const noexcept { return groups_; }
  // A group with the constructor's options and no parameters (PyTorch's optimizer.defaults):
  // set its params and the options that differ, then add_param_group.
  ParamGroup defaults() const;
  // Appends a group; throws torchlet::Error if its options are out of range or a parameter is
  // already in a group.
  void add_param_group(ParamGroup group);
  // The first group's lr; set_lr sets every group's.
  double lr() const noexcept { return groups_.front().lr; }
  void set_lr(double lr);
  // PyTorch's class name, "SGD", "Adam"...: a checkpoint records it, so that state goes back
  // only into an optimizer of the same kind.
  virtual const char* name() const noexcept = 0;
  // A copy of the state (on the parameters' devices). Unlike PyTorch's, whose tensors are the
  // optimizer's own, later steps do not change it: it is a snapshot to save.
  virtual StateDict state_dict() const = 0;
  // Replaces the state with a copy of `state`, each tensor moved to its parameter's device.
  // Checks it all first and throws torchlet::Error, leaving the state as it was, unless it
  // has one entry per parameter, each holding only this optimizer's state names (Adam: all
  // three or none) as float32 tensors shaped as the parameter ("step": an int64 scalar >= 1).
  virtual void load_state_dict(const StateDict& state) = 0;

 protected:
  // The first group: `params` with `defaults`, checked by the optimizer's constructor.
  Optimizer(std::vector<Tensor> params, const GroupOptions& defaults);
  // Throws torchlet::Error unless the options are in range for this optimizer.
  virtual void check_options(const GroupOptions& options) const = 0;
  // check_options of every group (step() calls it: options may have been changed).
  void check_groups() const;

 private:
  std::vector<Tensor> params_;
  std::vector<ParamGroup> groups_;
  GroupOptions defaults_;
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, double lr, double momentum = 0.0, double weight_decay = 0.0,
      bool nesterov = false, bool maximize = false);
  SGD(std::vector<Tensor> params, const SGDOptions& o)
      : SGD(std::move(params), o.lr(), o.momentum(), o.weight_decay(), o.nesterov(), o.maximize()) {
  }
  void step() override;
  const char* name() const noexcept override { return "SGD"; }
  StateDict state_dict() const override;
  void load_state_dict(const StateDict& state) override;
  // The first group's.
  double momentum() const noexcept { return param_groups().front().momentum; }
  double weight_decay() const noexcept { return param_groups().front().weight_decay; }
  bool nesterov() const noexcept { return param_groups().front().nesterov; }

 protected:
  void check_options(const GroupOptions& options) const override;

 private:
  std::vector<Tensor> momentum_buffers_;  // one per parameter, made on first use
};

class Adam : public Optimizer {
 public:
  Adam(std::vector<Tensor> params, double lr = 1e-3, std::pair<double, double> betas = {0.9, 0.999},
       double eps = 1e-8, double weight_decay = 0.0, bool maximize = false);
  Adam(std::vector<Tensor> params, const AdamOptions& o)
      : Adam(std::move(params), o.lr(), {std::get<0>(o.betas()), std::get<1>(o.betas())}, o.eps(),
             o.weight_decay(), o.maximize()) {}
  void step() override;
  const char* name() const noexcept override { return "Adam"; }
  StateDict state_dict() const override;
  void load_state_dict(const StateDict& state) override;

 protected:
  // AdamW's: decoupled weight decay.
  Adam(std::vector<Tensor> params, const GroupOptions& defaults, bool decoupled);
  void check_options(const GroupOptions& options) const override;

 private:
  bool decoupled_ = false;
  std::vector<Tensor> exp_avg_, exp_avg_sq_;
  // Per parameter: its steps so far, an int64 scalar on its device that the update kernel
  // advances (so a replayed step advances it too); undefined before the first step.
  std::vector<Tensor> steps_;
};

// Adam with decoupled weight decay (Loshchilov and Hutter): param *= 1 - lr * weight_decay,
// then Adam's update of the undecayed gradient. Its state is Adam's.
class AdamW final : public Adam {
 public:
  AdamW(std::vector<Tensor> params, double lr = 1e-3,
        std::pair<double, double> betas = {0.9, 0.999}, double eps = 1e-8,
        double weight_decay = 1e-2, bool maximize = false);
  AdamW(std::vector<Tensor> params, const AdamWOptions& o)
      : AdamW(std::move(params), o.lr(), {std::get<0>(o.betas()), std::get<1>(o.betas())}, o.eps(),
              o.weight_decay(), o.maximize()) {}
  const char* name() const noexcept override { return "AdamW"; }
};

class RMSprop final : public Optimizer {
 public:
  RMSprop(std::vector<Tensor> params, double lr = 1e-2, double alpha = 0.99, double eps = 1e-8,
          double weight_decay = 0.0, double momentum = 0.0, bool centered = false,
          bool maximize = false);
  void step() override;
  const char* name() const noexcept override { return "RMSprop"; }
  StateDict state_dict() const override;
  void load_state_dict(const StateDict& state) override;

 protected:
  void check_options(const GroupOptions& options) const override;

 private:
  std::vector<Tensor> square_avg_, momentum_buffers_, grad_avg_;  // made on first use
};

class Adagrad final : public Optimizer {
 public:
  Adagrad(std::vector<Tensor> params, double lr = 1e-2, double lr_decay = 0.0,
          double weight_decay = 0.0, double initial_accumulator_value = 0.0, double eps = 1e-10,
          bool maximize = false);
  void step() override;
  const char* name() const noexcept override { return "Adagrad"; }
  StateDict state_dict() const override;
  void load_state_dict(const StateDict& state) override;

 protected:
  void check_options(const GroupOptions& options) const override;

 private:
  // "sum" starts at the group's initial_accumulator_value on the parameter's first step.
  std::vector<Tensor> sums_, steps_;
};

}  // namespace torchlet::optim
