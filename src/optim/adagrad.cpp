// Adagrad: PyTorch's update (lr_decay, weight decay, initial_accumulator_value, eps, maximize);
// the step counts live on the device, advanced by the update kernel, as Adam's.
#include "optim/common.h"
#include "torchlet/error.h"

namespace torchlet::optim {

using namespace detail;

Adagrad::Adagrad(std::vector<Tensor> params, double lr, double lr_decay, double weight_decay,
                 double initial_accumulator_value, double eps, bool maximize)
    : Optimizer(std::move(params), [&] {
        GroupOptions o;
        o.lr = lr, o.lr_decay = lr_decay, o.weight_decay = weight_decay;
        o.initial_accumulator_value = initial_accumulator_value, o.eps = eps;
        o.maximize = maximize;
        return o;
      }()) {
  check_groups();
}

void Adagrad::check_options(const GroupOptions& o) const {
  check_hyper("Adagrad", "lr", o.lr, false);
  check_hyper("Adagrad", "lr_decay", o.lr_decay, false);
  check_hyper("Adagrad", "weight_decay", o.weight_decay, false);
  check_hyper("Adagrad", "initial_accumulator_value", o.initial_accumulator_value, false);
  check_hyper("Adagrad", "eps", o.eps, false);
}

void Adagrad::step() {
  check_groups();
  step_groups(
      *this,
      [&](std::size_t i, const Tensor& p, const Tensor& g, const ParamGroup& group) {
        const bool fresh = i >= sums_.size() || !sums_[i].defined();
        backend::ParamUpdate u = param_update(p, g);
        u.state1 = state_data(sums_, i, p);
        if (fresh && group.initial_accumulator_value != 0.0)
          sums_[i].fill_(group.initial_accumulator_value);
        u.step = state_for(steps_, i, p, kInt64, true).data_ptr<int64_t>();
        return u;
      },
      [](backend::Backend& b, const std::vector<backend::ParamUpdate>& u, const ParamGroup& o) {
        b.adagrad_step(u.data(), static_cast<int>(u.size()),
                       {o.lr, o.lr_decay, o.weight_decay, o.eps, o.maximize});
      });
}

StateDict Adagrad::state_dict() const {
  StateDict state(parameters().size());
  save_states(state, steps_, "step");
  save_states(state, sums_, "sum");
  return state;
}

void Adagrad::load_state_dict(const StateDict& state) {
  check_state("Adagrad", parameters(), state, {"step", "sum"}, true);
  steps_ = loaded_states(state, parameters(), "step");
  sums_ = loaded_states(state, parameters(), "sum");
}

}  // namespace torchlet::optim
