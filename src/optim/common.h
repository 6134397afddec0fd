// What every optimizer's step() and state use: the hyperparameter checks, state tensors made
// on first use, the updates of one step grouped by device (one backend call per device and
// group), and the checks of a loaded state.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "torchlet/autograd.h"
#include "torchlet/optim/optimizer.h"

namespace torchlet::optim::detail {

// Throws unless `value` is finite and > 0 (positive) or >= 0.
void check_hyper(const char* optimizer, const char* name, double value, bool positive);

// The state tensor for a parameter: zeros of the parameter's shape (a scalar when `scalar`)
// and of `dtype` (the parameter's when Undefined) on first use, moved along with the parameter
// and converted with it when the model changed dtype.
Tensor& state_for(std::vector<Tensor>& states, std::size_t i, const Tensor& param,
                  std::optional<DType> dtype = std::nullopt, bool scalar = false);

// state_for(states, i, param)'s data: the state in the parameter's dtype.
void* state_data(std::vector<Tensor>& states, std::size_t i, const Tensor& param);

// The ParamUpdate of parameter p with its gradient g (usable_grad's); states and step unset.
backend::ParamUpdate param_update(const Tensor& p, const Tensor& g);

// Checks a whole StateDict before any of it is used: one entry per parameter, only `names`
// (all of them or none when `together`), state of its parameter's dtype and shape, "step" an
// int64 scalar >= 1.
void check_state(const char* optimizer, const std::vector<Tensor>& params, const StateDict& state,
                 const std::vector<std::string>& names, bool together);

// A copy of `t` on `device` that shares no memory with `t`, so later steps leave it alone.
Tensor owned_copy(const Tensor& t, const Device& device);

// states[i] copied into state[i][name] for every parameter that has it.
void save_states(StateDict& state, const std::vector<Tensor>& states, const char* name);
// The tensors named `name` of a checked `state`, copied to their parameters' devices
// (undefined where a parameter has none).
std::vector<Tensor> loaded_states(const StateDict& state, const std::vector<Tensor>& params,
                                  const char* name);

// The gradient as a contiguous tensor on the parameter's device, or undefined if none.
Tensor usable_grad(const char* optimizer, const Tensor& p);

// The updates of one group's step, grouped by device: each device's backend gets one call.
class DeviceUpdates {
 public:
  // grad is kept alive until run(): it may be a temporary contiguous copy.
  void add(const Device& device, const Tensor& grad, const backend::ParamUpdate& update);
  template <typename Run>
  void run(Run&& run) const {
    for (const Group& g : groups_) run(backend::routed(backend::get(g.device)), g.updates);
  }

 private:
  struct Group {
    Device device;
    std::vector<backend::ParamUpdate> updates;
  };
  std::vector<Group> groups_;
  std::vector<Tensor> grads_;
};

// A recorded step (torchlet::compile) keeps the groups and options it was recorded with: the
// recording is valid while they hold.
void note_groups(const Optimizer& optimizer);

// One step of every group: make(i, param, grad, group) gives parameter i's ParamUpdate (i
// counts over all groups, as parameters() does); launch(backend, updates, group) runs them.
template <typename Make, typename Launch>
void step_groups(Optimizer& optimizer, Make&& make, Launch&& launch) {
  NoGradGuard no_grad;
  std::size_t i = 0;
  for (const ParamGroup& group : optimizer.param_groups()) {
    DeviceUpdates updates;
    for (const Tensor& p : group.params) {
      const std::size_t index = i++;
      Tensor g = usable_grad(optimizer.name(), p);
      if (g.defined()) updates.add(p.device(), g, make(index, p, g, group));
    }
    updates.run([&](backend::Backend& b, const std::vector<backend::ParamUpdate>& u) {
      launch(b, u, group);
    });
  }
  note_groups(optimizer);
}

}  // namespace torchlet::optim::detail
