// Learning-rate schedulers with Python PyTorch's semantics (torch.optim.lr_scheduler): each
// sets the lr of every parameter group of its optimizer. Constructing one is epoch 0 (as
// Python's initial step: LinearLR already scales the lr, OneCycleLR sets its initial lr);
// each step() is one more epoch, call it after optimizer.step(). StepLR(step_size 3) thus
// first decays on the third step() call, not LibTorch 1.13's second. The epoch schedulers
// use PyTorch's chainable (recursive) forms, so a change to a group's lr between steps
// carries on as in PyTorch.
#pragma once

#include <cstdint>
#include <vector>

#include "torchlet/optim/optimizer.h"

namespace torchlet::optim {

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;
  // One more epoch: the new lr of every group.
  void step();
  // Every group's lr as this scheduler last set it.
  const std::vector<double>& get_last_lr() const noexcept { return last_lr_; }
  int64_t last_epoch() const noexcept { return last_epoch_; }

 protected:
  // Records every group's lr as its base lr (PyTorch's "initial_lr").
  explicit LRScheduler(Optimizer& optimizer);
  // The lrs of epoch last_epoch() from the groups' current lrs (the derived constructor calls
  // step() once, epoch 0, after its own members are set).
  virtual std::vector<double> get_lr() const = 0;
  Optimizer& optimizer_;
  std::vector<double> base_lrs_;

 private:
  int64_t last_epoch_ = -1;
  std::vector<double> last_lr_;
};

// lr * gamma every step_size epochs.
class StepLR final : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 private:
  std::vector<double> get_lr() const override;
  int64_t step_size_;
  double gamma_;
};

// lr * gamma at each milestone epoch (gamma^k for a milestone given k times).
class MultiStepLR final : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);

 private:
  std::vector<double> get_lr() const override;
  std::vector<int64_t> milestones_;
  double gamma_;
};

// lr * gamma every epoch.
class ExponentialLR final : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 private:
  std::vector<double> get_lr() const override;
  double gamma_;
};

// Half a cosine from the base lr down to eta_min over T_max epochs, then back up (periodic,
// as PyTorch's recursive form).
class CosineAnnealingLR final : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0.0);

 private:
  std::vector<double> get_lr() const override;
  int64_t T_max_;
  double eta_min_;
};

// The lr scaled by a factor going linearly from start_factor to end_factor over total_iters
// epochs.
class LinearLR final : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
           int64_t total_iters = 5);

 private:
  std::vector<double> get_lr() const override;
  double start_factor_, end_factor_;
  int64_t total_iters_;
};

// The 1cycle policy, stepped once per batch for total_steps steps: from max_lr / div_factor up
// to max_lr (over pct_start of the steps), then down to initial_lr / final_div_factor; with
// cycle_momentum the momentum (SGD, RMSprop) or beta1 (Adam, AdamW) goes the other way between
// max_momentum and base_momentum. three_phase: up, back down to the initial lr, then to the
// minimum. Stepping past total_steps throws, as in PyTorch.
class OneCycleLR final : public LRScheduler {
 public:
  enum class Anneal { Cos, Linear };
  // max_lr: one value for every group, or one per group.
  OneCycleLR(Optimizer& optimizer, std::vector<double> max_lr, int64_t total_steps,
             double pct_start = 0.3, Anneal anneal_strategy = Anneal::Cos,
             bool cycle_momentum = true, double base_momentum = 0.85, double max_momentum = 0.95,
             double div_factor = 25.0, double final_div_factor = 1e4, bool three_phase = false);

 private:
  struct Phase {
    double end_step;
    int start_lr, end_lr;         // 0 initial, 1 max, 2 min
    bool start_max_m, end_max_m;  // momentum from / to max_momentum (else base_momentum)
  };
  std::vector<double> get_lr() const override;
  std::vector<double> max_lr_;
  int64_t total_steps_;
  Anneal anneal_;
  bool cycle_momentum_, beta1_;
  double base_momentum_, max_momentum_, div_factor_, final_div_factor_;
  std::vector<Phase> phases_;
};

// Scales the lr by factor when a metric has stopped improving for more than patience epochs,
// then waits cooldown epochs. Not an LRScheduler: its step takes the metric.
class ReduceLROnPlateau {
 public:
  enum class Mode { Min, Max };
  enum class ThresholdMode { Rel, Abs };
  explicit ReduceLROnPlateau(Optimizer& optimizer, Mode mode = Mode::Min, double factor = 0.1,
                             int64_t patience = 10, double threshold = 1e-4,
                             ThresholdMode threshold_mode = ThresholdMode::Rel,
                             int64_t cooldown = 0, double min_lr = 0.0, double eps = 1e-8);
  void step(double metric);
  const std::vector<double>& get_last_lr() const noexcept { return last_lr_; }
  int64_t last_epoch() const noexcept { return last_epoch_; }

 private:
  bool is_better(double value) const;
  Optimizer& optimizer_;
  Mode mode_;
  double factor_;
  int64_t patience_;
  double threshold_;
  ThresholdMode threshold_mode_;
  int64_t cooldown_;
  double min_lr_, eps_;
  double best_;
  int64_t num_bad_epochs_ = 0, cooldown_counter_ = 0, last_epoch_ = 0;
  std::vector<double> last_lr_;
};

}  // namespace torchlet::optim
