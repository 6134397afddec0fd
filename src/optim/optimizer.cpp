// The Optimizer base (parameter groups, zero_grad, lr) and what every optimizer shares
// (common.h). Each step() calls one fused backend kernel per device and group for all its
// parameters (one launch on CUDA); state tensors are made on the parameter's device on first
// use and follow the parameter if the model moved. Everything a step changes lives in device
// memory, so a recorded step (torchlet::compile, CUDA graphs) replays it exactly; the options
// are read on the host, so a recording notes them and is made again when they change.
#include <algorithm>
#include <cmath>
#include <string>

#include "backends/recorder.h"
#include "core/tensor_impl.h"
#include "optim/common.h"
#include "torchlet/error.h"

namespace torchlet::optim {

namespace detail {

void check_hyper(const char* optimizer, const char* name, double value, bool positive) {
  TORCHLET_CHECK(std::isfinite(value) && (positive ? value > 0.0 : value >= 0.0), optimizer,
                 ": Expected ", name, positive ? " > 0" : " >= 0", ", but got ", value);
}

Tensor& state_for(std::vector<Tensor>& states, std::size_t i, const Tensor& param,
                  std::optional<DType> dtype, bool scalar) {
  if (states.size() <= i) states.resize(i + 1);
  Tensor& s = states[i];
  const DType want = dtype.value_or(param.dtype());
  if (!s.defined()) {
    s = zeros(scalar ? Shape{} : param.shape(), TensorOptions(param.device()).with_dtype(want));
    return s;
  }
  if (s.device() != param.device()) move_in_place(s, param.device());
  if (s.dtype() != want) convert_in_place(s, want);
  return s;
}

void* state_data(std::vector<Tensor>& states, std::size_t i, const Tensor& param) {
  return state_for(states, i, param).impl()->data();
}

backend::ParamUpdate param_update(const Tensor& p, const Tensor& g) {
  backend::ParamUpdate u{};
  u.param = p.impl()->data();
  u.grad = g.impl()->data();
  u.n = p.numel();
  u.dtype = p.dtype();
  return u;
}

Tensor usable_grad(const char* optimizer, const Tensor& p) {
  Tensor g = p.grad();
  if (!g.defined()) return g;
  TORCHLET_CHECK(g.device() == p.device(), optimizer,
                 ": Expected each gradient on its "
                 "parameter's device ",
                 p.device(), ", but got ", g.device());
  TORCHLET_CHECK(p.is_contiguous(), optimizer, ": Expected contiguous parameters");
  TORCHLET_CHECK(is_floating_point(p.dtype()), optimizer,
                 ": Expected float32 or float64 parameters, but got ", p.dtype());
  TORCHLET_CHECK(g.dtype() == p.dtype(), optimizer,
                 ": Expected each gradient of its parameter's dtype ", p.dtype(), ", but got ",
                 g.dtype());
  return g.contiguous();
}

void DeviceUpdates::add(const Device& device, const Tensor& grad,
                        const backend::ParamUpdate& update) {
  grads_.push_back(grad);
  for (Group& g : groups_) {
    if (g.device == device) {
      g.updates.push_back(update);
      return;
    }
  }
  groups_.push_back({device, {update}});
}

namespace {

// "'a', 'b' or 'c'" (or "and") for the state names an optimizer keeps.
std::string names_text(const std::vector<std::string>& names, const char* last = " or ") {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0                  ? "'"
            : i + 1 == names.size() ? last + std::string("'")
                                    : ", '") +
           names[i] + "'";
  return out;
}

}  // namespace

void check_state(const char* optimizer, const std::vector<Tensor>& params, const StateDict& state,
                 const std::vector<std::string>& names, bool together) {
  TORCHLET_CHECK(state.size() == params.size(), optimizer, ".load_state_dict: Expected the ",
                 "state of ", params.size(), " parameters, but got ", state.size(), " entries");
  for (std::size_t i = 0; i < params.size(); ++i) {
    for (const auto& [key, t] : state[i]) {
      TORCHLET_CHECK(std::find(names.begin(), names.end(), key) != names.end(), optimizer,
                     ".load_state_dict: Expected state ", names_text(names), " for parameter ", i,
                     ", but got '", key, "'");
      TORCHLET_CHECK(t.defined(), optimizer, ".load_state_dict: Expected a defined tensor as '",
                     key, "' of parameter ", i, ", but got an undefined Tensor()");
      if (key == "step") {
        TORCHLET_CHECK(t.dtype() == kInt64 && t.dim() == 0, optimizer,
                       ".load_state_dict: ", "Expected 'step' of parameter ", i,
                       " as an int64 scalar, but got ", t.dtype(), " of shape ", t.shape());
        const auto steps = t.item<int64_t>();
        TORCHLET_CHECK(steps >= 1, optimizer, ".load_state_dict: Expected 'step' of parameter ", i,
                       " >= 1, but got ", steps);
      } else {
        const Tensor& p = params[i];
        TORCHLET_CHECK(t.dtype() == p.dtype() && t.shape() == p.shape(), optimizer,
                       ".load_state_dict: Expected '", key, "' of parameter ", i, " as ", p.dtype(),
                       " ", p.shape(), " (the parameter's shape), but got ", t.dtype(), " ",
                       t.shape());
      }
    }
    std::string held;
    for (const auto& entry : state[i]) held += (held.empty() ? "'" : ", '") + entry.first + "'";
    TORCHLET_CHECK(!together || state[i].empty() || state[i].size() == names.size(), optimizer,
                   ".load_state_dict: Expected all of ", names_text(names, " and "),
                   " or none for ", "parameter ", i, ", but got only ", held);
  }
}

Tensor owned_copy(const Tensor& t, const Device& device) {
  const Tensor source = t.detach();
  return device == t.device() ? source.clone() : source.to(device);
}

void save_states(StateDict& state, const std::vector<Tensor>& states, const char* name) {
  for (std::size_t i = 0; i < states.size(); ++i)
    if (states[i].defined())
      state[i][name] =
          owned_copy(states[i], std::string(name) == "step" ? kCPU : states[i].device());
}

std::vector<Tensor> loaded_states(const StateDict& state, const std::vector<Tensor>& params,
                                  const char* name) {
  std::vector<Tensor> out(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto found = state[i].find(name);
    if (found != state[i].end()) out[i] = owned_copy(found->second, params[i].device());
  }
  return out;
}

void note_groups(const Optimizer& optimizer) {
  std::vector<std::pair<GroupOptions, std::size_t>> recorded;
  for (const ParamGroup& g : optimizer.param_groups()) recorded.emplace_back(g, g.params.size());
  backend::add_recording_guard([&optimizer, recorded = std::move(recorded)] {
    const std::vector<ParamGroup>& now = optimizer.param_groups();
    if (now.size() != recorded.size()) return false;
    for (std::size_t k = 0; k < now.size(); ++k)
      if (!(static_cast<const GroupOptions&>(now[k]) == recorded[k].first) ||
          now[k].params.size() != recorded[k].second)
        return false;
    return true;
  });
}

}  // namespace detail

Optimizer::Optimizer(std::vector<Tensor> params, const GroupOptions& defaults)
    : defaults_(defaults) {
  ParamGroup first = this->defaults();
  first.params = std::move(params);
  for (std::size_t i = 0; i < first.params.size(); ++i) {
    TORCHLET_CHECK(first.params[i].defined(),
                   "Optimizer: Expected defined parameters, but parameter ", i,
                   " is an undefined Tensor()");
    TORCHLET_CHECK(first.params[i].is_leaf() && is_floating_point(first.params[i].dtype()),
                   "Optimizer: Expected "
                   "float32 or float64 leaf tensors as parameters, but parameter ",
                   i, " is not (a ", first.params[i].is_leaf() ? "leaf" : "non-leaf", " of dtype ",
                   first.params[i].dtype(), ")");
  }
  params_ = first.params;
  groups_.push_back(std::move(first));
}

ParamGroup Optimizer::defaults() const {
  ParamGroup group;
  static_cast<GroupOptions&>(group) = defaults_;
  return group;
}

void Optimizer::add_param_group(ParamGroup group) {
  check_options(group);
  for (std::size_t i = 0; i < group.params.size(); ++i) {
    const Tensor& p = group.params[i];
    TORCHLET_CHECK(p.defined() && p.is_leaf() && is_floating_point(p.dtype()),
                   "Optimizer.add_param_group: Expected float32 or float64 leaf tensors as "
                   "parameters, but parameter ",
                   i, " is not", p.defined() ? " (dtype " : "",
                   p.defined() ? dtype_name(p.dtype()) : "", p.defined() ? ")" : "");
    for (const Tensor& q : params_)
      TORCHLET_CHECK(!q.is_same(p),
                     "Optimizer.add_param_group: Expected parameters in one group only, but "
                     "parameter ",
                     i, " is already in a group");
  }
  params_.insert(params_.end(), group.params.begin(), group.params.end());
  groups_.push_back(std::move(group));
}

void Optimizer::check_groups() const {
  for (const ParamGroup& g : groups_) check_options(g);
}

void Optimizer::zero_grad(bool set_to_none) {
  for (const Tensor& p : params_) {
    if (set_to_none)
      p.set_grad(Tensor());
    else if (p.grad().defined())
      p.grad().zero_();
  }
}

void Optimizer::set_lr(double lr) {
  detail::check_hyper(name(), "lr", lr, false);
  for (ParamGroup& g : groups_) g.lr = lr;
}

}  // namespace torchlet::optim
