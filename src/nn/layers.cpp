// Linear, ReLU, Conv2d, MaxPool2d, Flatten, Dropout and Sequential.
#include "torchlet/nn/layers.h"

#include <cmath>

#include "nn/repr.h"
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
         ", bias=" + (bias.defined() ? "True" : "False") + ")";
}

Tensor ReLU::forward(const Tensor& input) { return relu(input); }

Conv2d::Conv2d(int64_t in, int64_t out, Size2 kernel, Size2 stride_, Size2 padding_, bool with_bias)
    : in_channels(in), out_channels(out), kernel_size(kernel), stride(stride_), padding(padding_) {
  TORCHLET_CHECK(in > 0 && out > 0 && kernel.h > 0 && kernel.w > 0,
                 "Conv2d: Expected in_channels, out_channels and kernel_size > 0, but got "
                 "in_channels ",
                 in, ", out_channels ", out, " and kernel_size ", pair_text(kernel));
  // PyTorch's reset_parameters(), as for Linear: uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)) with
  // fan_in = in_channels * kernel_h * kernel_w.
  const double bound = 1.0 / std::sqrt(static_cast<double>(in * kernel.h * kernel.w));
  weight = register_parameter("weight", uniform({out, in, kernel.h, kernel.w}, -bound, bound));
  if (with_bias) bias = register_parameter("bias", uniform({out}, -bound, bound));
}

Tensor Conv2d::forward(const Tensor& input) { return conv2d(input, weight, bias, stride, padding); }

std::string Conv2d::name() const {
  return "Conv2d(" + std::to_string(in_channels) + ", " + std::to_string(out_channels) +
         ", kernel_size=" + pair_text(kernel_size) + ", stride=" + pair_text(stride) +
         (padding.h || padding.w ? ", padding=" + pair_text(padding) : "") +
         (bias.defined() ? "" : ", bias=False") + ")";
}

MaxPool2d::MaxPool2d(Size2 kernel, Size2 stride_, Size2 padding_)
    : kernel_size(kernel),
      stride(stride_.h == 0 && stride_.w == 0 ? kernel : stride_),
      padding(padding_) {}

Tensor MaxPool2d::forward(const Tensor& input) {
  return max_pool2d(input, kernel_size, stride, padding);
}

std::string MaxPool2d::name() const {
  return "MaxPool2d(kernel_size=" + pair_text(kernel_size) + ", stride=" + pair_text(stride) +
         ", padding=" + pair_text(padding) + ")";
}

Flatten::Flatten(int64_t start, int64_t end) : start_dim(start), end_dim(end) {}

Tensor Flatten::forward(const Tensor& input) { return flatten(input, start_dim, end_dim); }

std::string Flatten::name() const {
  return "Flatten(start_dim=" + std::to_string(start_dim) + ", end_dim=" + std::to_string(end_dim) +
         ")";
}

Dropout::Dropout(double p_) : p(p_) {
  TORCHLET_CHECK(p >= 0.0 && p <= 1.0,
                 "Dropout: Expected a probability p between 0 and 1, but got p = ", p);
}

Tensor Dropout::forward(const Tensor& input) { return dropout(input, p, is_training()); }

std::string Dropout::name() const {
  std::string text = std::to_string(p);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text += '0';
  return "Dropout(p=" + text + ")";
}

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
