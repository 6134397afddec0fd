// Linear, ReLU and Sequential.
#include "torchlet/nn/layers.h"

#include <cmath>

#include "torchlet/error.h"
#include "torchlet/functional.h"

namespace torchlet::nn {

Linear::Linear(int64_t in, int64_t out, bool with_bias) : in_features(in), out_features(out) {
  TORCHLET_CHECK(in > 0 && out > 0,
                 "Linear: Expected in_features > 0 and out_features > 0, "
                 "but got in_features ",
                 in, " and out_features ", out);
  // PyTorch's reset_parameters(): kaiming_uniform_(a=sqrt(5)) for the weight and the same
  // bound for the bias both come to uniform(-1/sqrt(in), 1/sqrt(in)).
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  weight = register_parameter("weight", uniform({out, in}, -bound, bound));
  if (with_bias) bias = register_parameter("bias", uniform({out}, -bound, bound));
}

Tensor Linear::forward(const Tensor& input) { return linear(input, weight, bias); }

std::string Linear::name() const {
  return "Linear(in_features=" + std::to_string(in_features) +
         ", out_features=" + std::to_string(out_features) +
         ", bias=" + (bias.defined() ? "true" : "false") + ")";
}

Tensor ReLU::forward(const Tensor& input) { return relu(input); }

void Sequential::push_back(std::shared_ptr<Module> module) {
  TORCHLET_CHECK(module != nullptr, "Sequential: Expected a module, but got a null pointer");
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

Tensor Sequential::forward(const Tensor& input) {
  Tensor x = input;
  for (const auto& module : modules_) x = (*module)(x);
  return x;
}

}  // namespace torchlet::nn
