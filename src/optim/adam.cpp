// Adam and AdamW (decoupled weight decay), PyTorch's updates with bias correction; the step
// counts live on the device, advanced by the update kernel.
#include "optim/common.h"
#include "torchlet/error.h"

namespace torchlet::optim {

using namespace detail;

namespace {

GroupOptions adam_options(double lr, std::pair<double, double> betas, double eps,
                          double weight_decay, bool maximize) {
  GroupOptions o;
  o.lr = lr, o.betas = betas, o.eps = eps, o.weight_decay = weight_decay, o.maximize = maximize;
  return o;
}

}  // namespace

Adam::Adam(std::vector<Tensor> params, double lr, std::pair<double, double> betas, double eps,
           double weight_decay, bool maximize)
    : Adam(std::move(params), adam_options(lr, betas, eps, weight_decay, maximize), false) {}

Adam::Adam(std::vector<Tensor> params, const GroupOptions& defaults, bool decoupled)
    : Optimizer(std::move(params), defaults), decoupled_(decoupled) {
  check_groups();
}

AdamW::AdamW(std::vector<Tensor> params, double lr, std::pair<double, double> betas, double eps,
             double weight_decay, bool maximize)
    : Adam(std::move(params), adam_options(lr, betas, eps, weight_decay, maximize), true) {}

void Adam::check_options(const GroupOptions& o) const {
  const char* who = decoupled_ ? "AdamW" : "Adam";  // name() is Adam's in Adam's constructor
  check_hyper(who, "lr", o.lr, false);
  check_hyper(who, "eps", o.eps, false);
  check_hyper(who, "weight_decay", o.weight_decay, false);
  const auto [beta1, beta2] = o.betas;
  TORCHLET_CHECK(beta1 >= 0.0 && beta1 < 1.0 && beta2 >= 0.0 && beta2 < 1.0, who,
                 ": Expected betas in [0, 1), but got (", beta1, ", ", beta2, ")");
}

void Adam::step() {
  check_groups();
  step_groups(
      *this,
      [&](std::size_t i, const Tensor& p, const Tensor& g, const ParamGroup&) {
        backend::ParamUpdate u = param_update(p, g);
        u.state1 = state_data(exp_avg_, i, p);
        u.state2 = state_data(exp_avg_sq_, i, p);
        u.step = state_for(steps_, i, p, kInt64, true).data_ptr<int64_t>();
        return u;
      },
      [&](backend::Backend& b, const std::vector<backend::ParamUpdate>& u, const ParamGroup& o) {
        b.adam_step(
            u.data(), static_cast<int>(u.size()),
            {o.lr, o.betas.first, o.betas.second, o.eps, o.weight_decay, decoupled_, o.maximize});
      });
}

StateDict Adam::state_dict() const {
  StateDict state(parameters().size());
  save_states(state, steps_, "step");  // never stepped: no state, as in PyTorch
  save_states(state, exp_avg_, "exp_avg");
  save_states(state, exp_avg_sq_, "exp_avg_sq");
  return state;
}

void Adam::load_state_dict(const StateDict& state) {
  check_state(name(), parameters(), state, {"step", "exp_avg", "exp_avg_sq"}, true);
  steps_ = loaded_states(state, parameters(), "step");
  exp_avg_ = loaded_states(state, parameters(), "exp_avg");
  exp_avg_sq_ = loaded_states(state, parameters(), "exp_avg_sq");
}

}  // namespace torchlet::optim
