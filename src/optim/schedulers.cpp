// The lr schedulers, transcribed from Python PyTorch's torch/optim/lr_scheduler.py (their
// chainable get_lr forms and its epoch counting).
#include "torchlet/optim/schedulers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "torchlet/error.h"

namespace torchlet::optim {

namespace {

std::vector<double> current_lrs(const Optimizer& optimizer) {
  std::vector<double> lrs;
  for (const ParamGroup& g : optimizer.param_groups()) lrs.push_back(g.lr);
  return lrs;
}

}  // namespace

LRScheduler::LRScheduler(Optimizer& optimizer)
    : optimizer_(optimizer), base_lrs_(current_lrs(optimizer)) {}

void LRScheduler::step() {
  ++last_epoch_;
  const std::vector<double> lrs = get_lr();
  std::vector<ParamGroup>& groups = optimizer_.param_groups();
  TORCHLET_CHECK(lrs.size() == groups.size(), "LRScheduler: Expected the ", lrs.size(),
                 " parameter groups it was made with, but the optimizer has ", groups.size());
  for (std::size_t i = 0; i < groups.size(); ++i) groups[i].lr = lrs[i];
  last_lr_ = lrs;
}

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  TORCHLET_CHECK(step_size > 0, "StepLR: Expected step_size > 0, but got ", step_size);
  step();
}

std::vector<double> StepLR::get_lr() const {
  std::vector<double> lrs = current_lrs(optimizer_);
  if (last_epoch() != 0 && last_epoch() % step_size_ == 0)
    for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  step();
}

std::vector<double> MultiStepLR::get_lr() const {
  std::vector<double> lrs = current_lrs(optimizer_);
  const auto times = std::count(milestones_.begin(), milestones_.end(), last_epoch());
  if (times > 0)
    for (double& lr : lrs) lr *= std::pow(gamma_, static_cast<double>(times));
  return lrs;
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma)
    : LRScheduler(optimizer), gamma_(gamma) {
  step();
}

std::vector<double> ExponentialLR::get_lr() const {
  std::vector<double> lrs = current_lrs(optimizer_);
  if (last_epoch() != 0)
    for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min) {
  TORCHLET_CHECK(T_max > 0, "CosineAnnealingLR: Expected T_max > 0, but got ", T_max);
  step();
}

std::vector<double> CosineAnnealingLR::get_lr() const {
  using std::numbers::pi;
  std::vector<double> lrs = current_lrs(optimizer_);
  const int64_t e = last_epoch();
  const double T = static_cast<double>(T_max_);
  if (e == 0) return lrs;
  for (std::size_t i = 0; i < lrs.size(); ++i) {
    if ((e - 1 - T_max_) % (2 * T_max_) == 0)
      lrs[i] += (base_lrs_[i] - eta_min_) * (1 - std::cos(pi / T)) / 2;
    else
      lrs[i] = (1 + std::cos(pi * static_cast<double>(e) / T)) /
                   (1 + std::cos(pi * static_cast<double>(e - 1) / T)) * (lrs[i] - eta_min_) +
               eta_min_;
  }
  return lrs;
}

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor,
                   int64_t total_iters)
    : LRScheduler(optimizer),
      start_factor_(start_factor),
      end_factor_(end_factor),
      total_iters_(total_iters) {
  TORCHLET_CHECK(
      start_factor > 0.0 && start_factor <= 1.0 && end_factor >= 0.0 && end_factor <= 1.0,
      "LinearLR: Expected start_factor in (0, 1] and end_factor in [0, 1], but got ", start_factor,
      " and ", end_factor);
  TORCHLET_CHECK(total_iters > 0, "LinearLR: Expected total_iters > 0, but got ", total_iters);
  step();
}

std::vector<double> LinearLR::get_lr() const {
  std::vector<double> lrs = current_lrs(optimizer_);
  const int64_t e = last_epoch();
  if (e == 0) {
    for (double& lr : lrs) lr *= start_factor_;
  } else if (e <= total_iters_) {
    const double change = end_factor_ - start_factor_;
    for (double& lr : lrs)
      lr *= 1.0 + change / (static_cast<double>(total_iters_) * start_factor_ +
                            static_cast<double>(e - 1) * change);
  }
  return lrs;
}

OneCycleLR::OneCycleLR(Optimizer& optimizer, std::vector<double> max_lr, int64_t total_steps,
                       double pct_start, Anneal anneal_strategy, bool cycle_momentum,
                       double base_momentum, double max_momentum, double div_factor,
                       double final_div_factor, bool three_phase)
    : LRScheduler(optimizer),
      max_lr_(std::move(max_lr)),
      total_steps_(total_steps),
      anneal_(anneal_strategy),
      cycle_momentum_(cycle_momentum),
      beta1_(std::string(optimizer.name()).starts_with("Adam")),
      base_momentum_(base_momentum),
      max_momentum_(max_momentum),
      div_factor_(div_factor),
      final_div_factor_(final_div_factor) {
  const std::size_t groups = optimizer.param_groups().size();
  TORCHLET_CHECK(total_steps > 0, "OneCycleLR: Expected total_steps > 0, but got ", total_steps);
  TORCHLET_CHECK(pct_start >= 0.0 && pct_start <= 1.0,
                 "OneCycleLR: Expected pct_start in [0, 1], but got ", pct_start);
  TORCHLET_CHECK(max_lr_.size() == 1 || max_lr_.size() == groups,
                 "OneCycleLR: Expected one max_lr or one per parameter group (", groups,
                 "), but got ", max_lr_.size());
  if (max_lr_.size() == 1) max_lr_.assign(groups, max_lr_.front());
  const std::string name = optimizer.name();
  TORCHLET_CHECK(!cycle_momentum || beta1_ || name == "SGD" || name == "RMSprop",
                 "OneCycleLR: Expected an optimizer with momentum or betas for cycle_momentum, "
                 "but got ",
                 name);
  const double steps = static_cast<double>(total_steps);
  const double last = steps - 1;
  if (three_phase)
    phases_ = {{pct_start * steps - 1, 0, 1, true, false},
               {2 * pct_start * steps - 2, 1, 0, false, true},
               {last, 0, 2, true, true}};
  else
    phases_ = {{pct_start * steps - 1, 0, 1, true, false}, {last, 1, 2, false, true}};
  if (cycle_momentum_)
    for (ParamGroup& g : optimizer.param_groups())
      (beta1_ ? g.betas.first : g.momentum) = max_momentum_;
  step();
}

std::vector<double> OneCycleLR::get_lr() const {
  const int64_t step_num = last_epoch();
  TORCHLET_CHECK(step_num <= total_steps_, "OneCycleLR: Tried to step ", step_num,
                 " times. The specified number of total steps is ", total_steps_);
  const auto anneal = [&](double start, double end, double pct) {
    if (anneal_ == Anneal::Linear) return (end - start) * pct + start;
    return end + (start - end) / 2.0 * (std::cos(std::numbers::pi * pct) + 1);
  };
  std::vector<ParamGroup>& groups = optimizer_.param_groups();
  std::vector<double> lrs;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const double initial = max_lr_[i] / div_factor_;
    const double lr_of[] = {initial, max_lr_[i], initial / final_div_factor_};
    double start_step = 0.0;
    for (std::size_t k = 0; k < phases_.size(); ++k) {
      const Phase& phase = phases_[k];
      if (static_cast<double>(step_num) <= phase.end_step || k + 1 == phases_.size()) {
        const double pct =
            (static_cast<double>(step_num) - start_step) / (phase.end_step - start_step);
        lrs.push_back(anneal(lr_of[phase.start_lr], lr_of[phase.end_lr], pct));
        if (cycle_momentum_)
          (beta1_ ? groups[i].betas.first : groups[i].momentum) =
              anneal(phase.start_max_m ? max_momentum_ : base_momentum_,
                     phase.end_max_m ? max_momentum_ : base_momentum_, pct);
        break;
      }
      start_step = phase.end_step;
    }
  }
  return lrs;
}

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, Mode mode, double factor,
                                     int64_t patience, double threshold,
                                     ThresholdMode threshold_mode, int64_t cooldown, double min_lr,
                                     double eps)
    : optimizer_(optimizer),
      mode_(mode),
      factor_(factor),
      patience_(patience),
      threshold_(threshold),
      threshold_mode_(threshold_mode),
      cooldown_(cooldown),
      min_lr_(min_lr),
      eps_(eps),
      best_(mode == Mode::Min ? std::numeric_limits<double>::infinity()
                              : -std::numeric_limits<double>::infinity()),
      last_lr_(current_lrs(optimizer)) {
  TORCHLET_CHECK(factor < 1.0, "ReduceLROnPlateau: Expected factor < 1.0, but got ", factor);
}

bool ReduceLROnPlateau::is_better(double a) const {
  if (mode_ == Mode::Min)
    return threshold_mode_ == ThresholdMode::Rel ? a < best_ * (1.0 - threshold_)
                                                 : a < best_ - threshold_;
  return threshold_mode_ == ThresholdMode::Rel ? a > best_ * (threshold_ + 1.0)
                                               : a > best_ + threshold_;
}

void ReduceLROnPlateau::step(double metric) {
  ++last_epoch_;
  if (is_better(metric)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    ++num_bad_epochs_;
  }
  if (cooldown_counter_ > 0) {
    --cooldown_counter_;
    num_bad_epochs_ = 0;  // ignore bad epochs in cooldown
  }
  if (num_bad_epochs_ > patience_) {
    for (ParamGroup& g : optimizer_.param_groups()) {
      const double new_lr = std::max(g.lr * factor_, min_lr_);
      if (g.lr - new_lr > eps_) g.lr = new_lr;
    }
    cooldown_counter_ = cooldown_;
    num_bad_epochs_ = 0;
  }
  last_lr_ = current_lrs(optimizer_);
}

}  // namespace torchlet::optim
