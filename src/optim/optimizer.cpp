// Optimizer base, SGD and Adam. Each step() calls one fused backend kernel per parameter;
// state tensors (momentum, moments) are made on the parameter's device on first use and
// follow the parameter if the model moved.
#include "torchlet/optim/optimizer.h"

#include <cmath>

#include "core/tensor_impl.h"
#include "torchlet/autograd.h"
#include "torchlet/error.h"

namespace torchlet::optim {

namespace {

void check_hyper(const char* optimizer, const char* name, double value, bool positive) {
  TORCHLET_CHECK(std::isfinite(value) && (positive ? value > 0.0 : value >= 0.0), optimizer,
                 ": Expected ", name, positive ? " > 0" : " >= 0", ", but got ", value);
}

// The state tensor for a parameter: zeros on first use, moved along with the parameter.
Tensor& state_for(std::vector<Tensor>& states, std::size_t i, const Tensor& param) {
  if (states.size() <= i) states.resize(i + 1);
  Tensor& s = states[i];
  if (!s.defined())
    s = zeros(param.shape(), TensorOptions(param.device()));
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
  const backend::SgdOptions options{static_cast<float>(lr_), static_cast<float>(momentum_), 0.0f,
                                    static_cast<float>(weight_decay_), nesterov_};
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    Tensor g = usable_grad("SGD", p);
    if (!g.defined()) continue;
    float* buf = nullptr;
    bool first = false;
    if (momentum_ != 0.0) {
      first = momentum_buffers_.size() <= i || !momentum_buffers_[i].defined();
      buf = state_for(momentum_buffers_, i, p).data_ptr<float>();
    }
    backend_of(p).sgd_step(p.data_ptr<float>(), g.data_ptr<float>(), buf, p.numel(), options,
                           first);
  }
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
  steps_.assign(params_.size(), 0);
}

void Adam::step() {
  NoGradGuard no_grad;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    Tensor g = usable_grad("Adam", p);
    if (!g.defined()) continue;
    float* m = state_for(exp_avg_, i, p).data_ptr<float>();
    float* v = state_for(exp_avg_sq_, i, p).data_ptr<float>();
    const backend::AdamOptions options{
        static_cast<float>(lr_),  static_cast<float>(beta1_),        static_cast<float>(beta2_),
        static_cast<float>(eps_), static_cast<float>(weight_decay_), ++steps_[i]};
    backend_of(p).adam_step(p.data_ptr<float>(), g.data_ptr<float>(), m, v, p.numel(), options);
  }
}

}  // namespace torchlet::optim
