// SGD: PyTorch's update without dampening (momentum, Nesterov, weight decay, maximize).
#include "optim/common.h"
#include "torchlet/error.h"

namespace torchlet::optim {

using namespace detail;

SGD::SGD(std::vector<Tensor> params, double lr, double momentum, double weight_decay, bool nesterov,
         bool maximize)
    : Optimizer(std::move(params), [&] {
        GroupOptions o;
        o.lr = lr, o.momentum = momentum, o.weight_decay = weight_decay;
        o.nesterov = nesterov, o.maximize = maximize;
        return o;
      }()) {
  check_groups();
}

void SGD::check_options(const GroupOptions& o) const {
  check_hyper("SGD", "lr", o.lr, false);
  check_hyper("SGD", "momentum", o.momentum, false);
  check_hyper("SGD", "weight_decay", o.weight_decay, false);
  TORCHLET_CHECK(!o.nesterov || o.momentum > 0.0,
                 "SGD: Expected momentum > 0 for Nesterov momentum, but got ", o.momentum);
}

void SGD::step() {
  check_groups();
  step_groups(
      *this,
      [&](std::size_t i, const Tensor& p, const Tensor& g, const ParamGroup& group) {
        // The buffer starts at zero: its first update, momentum * 0 + d, is PyTorch's buf = d.
        backend::ParamUpdate u = param_update(p, g);
        if (group.momentum != 0.0) u.state1 = state_data(momentum_buffers_, i, p);
        return u;
      },
      [](backend::Backend& b, const std::vector<backend::ParamUpdate>& u, const ParamGroup& o) {
        b.sgd_step(u.data(), static_cast<int>(u.size()),
                   {o.lr, o.momentum, o.weight_decay, o.nesterov, o.maximize});
      });
}

StateDict SGD::state_dict() const {
  StateDict state(parameters().size());
  save_states(state, momentum_buffers_, "momentum_buffer");
  return state;
}

void SGD::load_state_dict(const StateDict& state) {
  check_state("SGD", parameters(), state, {"momentum_buffer"}, false);
  momentum_buffers_ = loaded_states(state, parameters(), "momentum_buffer");
}

}  // namespace torchlet::optim
