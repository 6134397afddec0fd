// Optimizer base, SGD and Adam. Each step() calls one fused backend kernel per device for all
// its parameters (one launch on CUDA); state tensors (momentum, moments, Adam's step counts)
// are made on the parameter's device on first use and follow the parameter if the model
// moved. Everything a step changes lives in device memory, so a recorded step
// (torchlet::compile, CUDA graphs) replays it exactly; the lr is read on the host, so a
// recording notes it and is made again when it changes.
#include "torchlet/optim/optimizer.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "backends/recorder.h"
#include "core/tensor_impl.h"
#include "torchlet/autograd.h"
#include "torchlet/error.h"

namespace torchlet::optim {

namespace {

void check_hyper(const char* optimizer, const char* name, double value, bool positive) {
  TORCHLET_CHECK(std::isfinite(value) && (positive ? value > 0.0 : value >= 0.0), optimizer,
                 ": Expected ", name, positive ? " > 0" : " >= 0", ", but got ", value);
}

// The state tensor for a parameter: zeros of `shape` (the parameter's by default) on first
// use, moved along with the parameter.
Tensor& state_for(std::vector<Tensor>& states, std::size_t i, const Tensor& param,
                  DType dtype = kFloat32, bool scalar = false) {
  if (states.size() <= i) states.resize(i + 1);
  Tensor& s = states[i];
  if (!s.defined())
    s = zeros(scalar ? Shape{} : param.shape(), TensorOptions(param.device()).with_dtype(dtype));
  else if (s.device() != param.device())
    move_in_place(s, param.device());
  return s;
}

// The gradient as a contiguous tensor on the parameter's device, or undefined if none.
Tensor usable_grad(const char* optimizer, const Tensor& p) {
  Tensor g = p.grad();
  if (!g.defined()) return g;
  TORCHLET_CHECK(g.device() == p.device(), optimizer,
                 ": Expected each gradient on its "
                 "parameter's device ",
                 p.device(), ", but got ", g.device());
  TORCHLET_CHECK(p.is_contiguous(), optimizer, ": Expected contiguous parameters");
  return g.contiguous();
}

// The updates of one step, grouped by device: each device's backend gets one call.
class DeviceUpdates {
 public:
  // grad is kept alive until run(): it may be a temporary contiguous copy.
  void add(const Device& device, const Tensor& grad, const backend::ParamUpdate& update) {
    grads_.push_back(grad);
    for (Group& g : groups_) {
      if (g.device == device) {
        g.updates.push_back(update);
        return;
      }
    }
    groups_.push_back({device, {update}});
  }
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

// Checks a whole StateDict before any of it is used: one entry per parameter, only `names`
// (all of them or none when `together`), float32 state shaped as its parameter, "step" an
// int64 scalar >= 1.
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
        TORCHLET_CHECK(t.dtype() == kFloat32 && t.shape() == p.shape(), optimizer,
                       ".load_state_dict: Expected '", key, "' of parameter ", i, " as float32 ",
                       p.shape(), " (the parameter's shape), but got ", t.dtype(), " ", t.shape());
      }
    }
    std::string held;
    for (const auto& entry : state[i]) held += (held.empty() ? "'" : ", '") + entry.first + "'";
    TORCHLET_CHECK(!together || state[i].empty() || state[i].size() == names.size(), optimizer,
                   ".load_state_dict: Expected all of ", names_text(names, " and "),
                   " or none for ", "parameter ", i, ", but got only ", held);
  }
}

// A copy of `t` on `device` that shares no memory with `t`, so later steps leave it alone.
Tensor owned_copy(const Tensor& t, const Device& device) {
  const Tensor source = t.detach();
  return device == t.device() ? source.clone() : source.to(device);
}

// A recorded step keeps the lr it was recorded with: the recording is valid while it holds.
void note_lr(const double& lr) {
  backend::add_recording_guard([&lr, recorded = lr] { return lr == recorded; });
}

}  // namespace

Optimizer::Optimizer(std::vector<Tensor> params) : params_(std::move(params)) {
  for (std::size_t i = 0; i < params_.size(); ++i) {
    TORCHLET_CHECK(params_[i].defined(), "Optimizer: Expected defined parameters, but parameter ",
                   i, " is an undefined Tensor()");
    TORCHLET_CHECK(params_[i].is_leaf() && params_[i].dtype() == kFloat32,
                   "Optimizer: Expected "
                   "float32 leaf tensors as parameters, but parameter ",
                   i, " is not");
  }
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
  check_hyper("Optimizer", "lr", lr, true);
  lr_ = lr;
}

SGD::SGD(std::vector<Tensor> params, double lr, double momentum, double weight_decay, bool nesterov)
    : Optimizer(std::move(params)),
      momentum_(momentum),
      weight_decay_(weight_decay),
      nesterov_(nesterov) {
  check_hyper("SGD", "lr", lr, true);
  check_hyper("SGD", "momentum", momentum, false);
  check_hyper("SGD", "weight_decay", weight_decay, false);
  TORCHLET_CHECK(!nesterov || momentum > 0.0,
                 "SGD: Expected momentum > 0 for Nesterov momentum, but got ", momentum);
  lr_ = lr;
}

void SGD::step() {
  NoGradGuard no_grad;
  const backend::SgdOptions options{static_cast<float>(lr_), static_cast<float>(momentum_),
                                    static_cast<float>(weight_decay_), nesterov_};
  DeviceUpdates updates;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    Tensor g = usable_grad("SGD", p);
    if (!g.defined()) continue;
    // The buffer starts at zero: its first update, momentum * 0 + d, is PyTorch's buf = d.
    float* buffer =
        momentum_ != 0.0 ? state_for(momentum_buffers_, i, p).data_ptr<float>() : nullptr;
    updates.add(p.device(), g,
                {p.data_ptr<float>(), g.data_ptr<float>(), buffer, nullptr, nullptr, p.numel()});
  }
  note_lr(lr_);
  updates.run([&](backend::Backend& b, const std::vector<backend::ParamUpdate>& group) {
    b.sgd_step(group.data(), static_cast<int>(group.size()), options);
  });
}

StateDict SGD::state_dict() const {
  StateDict state(params_.size());
  for (std::size_t i = 0; i < momentum_buffers_.size(); ++i)
    if (momentum_buffers_[i].defined())
      state[i]["momentum_buffer"] = owned_copy(momentum_buffers_[i], momentum_buffers_[i].device());
  return state;
}

void SGD::load_state_dict(const StateDict& state) {
  check_state("SGD", params_, state, {"momentum_buffer"}, false);
  std::vector<Tensor> buffers(params_.size());
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const auto found = state[i].find("momentum_buffer");
    if (found != state[i].end()) buffers[i] = owned_copy(found->second, params_[i].device());
  }
  momentum_buffers_ = std::move(buffers);
}

Adam::Adam(std::vector<Tensor> params, double lr, std::pair<double, double> betas, double eps,
           double weight_decay)
    : Optimizer(std::move(params)),
      beta1_(betas.first),
      beta2_(betas.second),
      eps_(eps),
      weight_decay_(weight_decay) {
  check_hyper("Adam", "lr", lr, true);
  check_hyper("Adam", "eps", eps, false);
  check_hyper("Adam", "weight_decay", weight_decay, false);
  TORCHLET_CHECK(beta1_ >= 0.0 && beta1_ < 1.0 && beta2_ >= 0.0 && beta2_ < 1.0,
                 "Adam: Expected betas in [0, 1), but got (", beta1_, ", ", beta2_, ")");
  lr_ = lr;
}

void Adam::step() {
  NoGradGuard no_grad;
  const backend::AdamOptions options{static_cast<float>(lr_), static_cast<float>(beta1_),
                                     static_cast<float>(beta2_), static_cast<float>(eps_),
                                     static_cast<float>(weight_decay_)};
  DeviceUpdates updates;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    Tensor g = usable_grad("Adam", p);
    if (!g.defined()) continue;
    float* m = state_for(exp_avg_, i, p).data_ptr<float>();
    float* v = state_for(exp_avg_sq_, i, p).data_ptr<float>();
    int64_t* t = state_for(steps_, i, p, kInt64, true).data_ptr<int64_t>();
    updates.add(p.device(), g, {p.data_ptr<float>(), g.data_ptr<float>(), m, v, t, p.numel()});
  }
  note_lr(lr_);
  updates.run([&](backend::Backend& b, const std::vector<backend::ParamUpdate>& group) {
    b.adam_step(group.data(), static_cast<int>(group.size()), options);
  });
}

StateDict Adam::state_dict() const {
  StateDict state(params_.size());
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    if (!steps_[i].defined()) continue;  // never stepped: no state, as in PyTorch
    state[i]["step"] = owned_copy(steps_[i], kCPU);
    state[i]["exp_avg"] = owned_copy(exp_avg_[i], exp_avg_[i].device());
    state[i]["exp_avg_sq"] = owned_copy(exp_avg_sq_[i], exp_avg_sq_[i].device());
  }
  return state;
}

void Adam::load_state_dict(const StateDict& state) {
  check_state("Adam", params_, state, {"step", "exp_avg", "exp_avg_sq"}, true);
  std::vector<Tensor> exp_avg(params_.size()), exp_avg_sq(params_.size()), steps(params_.size());
  for (std::size_t i = 0; i < params_.size(); ++i) {
    if (state[i].empty()) continue;
    steps[i] = owned_copy(state[i].at("step"), params_[i].device());
    exp_avg[i] = owned_copy(state[i].at("exp_avg"), params_[i].device());
    exp_avg_sq[i] = owned_copy(state[i].at("exp_avg_sq"), params_[i].device());
  }
  exp_avg_ = std::move(exp_avg), exp_avg_sq_ = std::move(exp_avg_sq), steps_ = std::move(steps);
}

}  // namespace torchlet::optim
