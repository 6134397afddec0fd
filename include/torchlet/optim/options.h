// LibTorch's option builders for the optimizers: SGD(params, SGDOptions(0.01).momentum(0.5)),
// AdamW(params, AdamWOptions(1e-3).weight_decay(0.05)). Each setter returns the options, each
// getter of the same name reads them; the defaults are PyTorch's. The optimizers take them
// beside their positional constructors (optimizer.h).
#pragma once

#include <tuple>

#include "torchlet/arg.h"

namespace torchlet::optim {

struct SGDOptions {
  explicit SGDOptions(double lr) : lr_(lr) {}
  TORCHLET_ARG(double, lr)
  TORCHLET_ARG(double, momentum)
  TORCHLET_ARG(double, weight_decay)
  TORCHLET_ARG(bool, nesterov)
  TORCHLET_ARG(bool, maximize)

 private:
  double lr_, momentum_ = 0.0, weight_decay_ = 0.0;
  bool nesterov_ = false, maximize_ = false;
};

// Adam's and AdamW's; only the default weight_decay differs (0 and 0.01).
template <bool kDecoupled>
struct AdamOptionsOf {
  using Betas = std::tuple<double, double>;
  explicit AdamOptionsOf(double lr = 1e-3) : lr_(lr) {}
  TORCHLET_ARG(double, lr)
  TORCHLET_ARG(Betas, betas)
  TORCHLET_ARG(double, eps)
  TORCHLET_ARG(double, weight_decay)
  TORCHLET_ARG(bool, maximize)

 private:
  double lr_;
  Betas betas_{0.9, 0.999};
  double eps_ = 1e-8, weight_decay_ = kDecoupled ? 1e-2 : 0.0;
  bool maximize_ = false;
};
using AdamOptions = AdamOptionsOf<false>;
using AdamWOptions = AdamOptionsOf<true>;

}  // namespace torchlet::optim
