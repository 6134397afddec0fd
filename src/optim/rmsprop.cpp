// RMSprop: PyTorch's update (alpha, eps, weight decay, momentum, centered, maximize).
#include "optim/common.h"
#include "torchlet/error.h"

namespace torchlet::optim {

using namespace detail;

RMSprop::RMSprop(std::vector<Tensor> params, double lr, double alpha, double eps,
                 double weight_decay, double momentum, bool centered, bool maximize)
    : Optimizer(std::move(params), [&] {
        GroupOptions o;
        o.lr = lr, o.alpha = alpha, o.eps = eps, o.weight_decay = weight_decay;
        o.momentum = momentum, o.centered = centered, o.maximize = maximize;
        return o;
      }()) {
  check_groups();
}

void RMSprop::check_options(const GroupOptions& o) const {
  check_hyper("RMSprop", "lr", o.lr, false);
  check_hyper("RMSprop", "alpha", o.alpha, false);
  check_hyper("RMSprop", "eps", o.eps, false);
  check_hyper("RMSprop", "weight_decay", o.weight_decay, false);
  check_hyper("RMSprop", "momentum", o.momentum, false);
}

void RMSprop::step() {
  check_groups();
  step_groups(
      *this,
      [&](std::size_t i, const Tensor& p, const Tensor& g, const ParamGroup& group) {
        backend::ParamUpdate u = param_update(p, g);
        u.state1 = state_data(square_avg_, i, p);
        if (group.momentum > 0.0) u.state2 = state_data(momentum_buffers_, i, p);
        if (group.centered) u.state3 = state_data(grad_avg_, i, p);
        return u;
      },
      [](backend::Backend& b, const std::vector<backend::ParamUpdate>& u, const ParamGroup& o) {
        b.rmsprop_step(u.data(), static_cast<int>(u.size()),
                       {o.lr, o.alpha, o.eps, o.weight_decay, o.momentum, o.centered, o.maximize});
      });
}

StateDict RMSprop::state_dict() const {
  StateDict state(parameters().size());
  save_states(state, square_avg_, "square_avg");
  save_states(state, momentum_buffers_, "momentum_buffer");
  save_states(state, grad_avg_, "grad_avg");
  return state;
}

void RMSprop::load_state_dict(const StateDict& state) {
  check_state("RMSprop", parameters(), state, {"square_avg", "momentum_buffer", "grad_avg"}, false);
  square_avg_ = loaded_states(state, parameters(), "square_avg");
  momentum_buffers_ = loaded_states(state, parameters(), "momentum_buffer");
  grad_avg_ = loaded_states(state, parameters(), "grad_avg");
}

}  // namespace torchlet::optim
