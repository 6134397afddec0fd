// The activation and plumbing modules: Identity, Sigmoid, Tanh, GELU, SiLU, LeakyReLU, ELU,
// Softplus, Softmax and LogSoftmax, each a module around its function in functional.h, printed
// as PyTorch prints it.
#pragma once

#include <string>

#include "torchlet/functional.h"
#include "torchlet/nn/holder.h"
#include "torchlet/nn/module.h"

namespace torchlet::nn {

class Identity : public Module, public Holder<Identity> {
 public:
  Tensor forward(const Tensor& input) override { return input; }
  std::string name() const override { return "Identity()"; }
};

class Sigmoid : public Module, public Holder<Sigmoid> {
 public:
  Tensor forward(const Tensor& input) override { return sigmoid(input); }
  std::string name() const override { return "Sigmoid()"; }
};

class Tanh : public Module, public Holder<Tanh> {
 public:
  Tensor forward(const Tensor& input) override { return tanh(input); }
  std::string name() const override { return "Tanh()"; }
};

class SiLU : public Module, public Holder<SiLU> {
 public:
  Tensor forward(const Tensor& input) override { return silu(input); }
  std::string name() const override { return "SiLU()"; }
};

class GELU : public Module, public Holder<GELU> {
 public:
  explicit GELU(std::string approximate = "none") : approximate(std::move(approximate)) {}
  Tensor forward(const Tensor& input) override { return gelu(input, approximate); }
  std::string name() const override { return "GELU(approximate='" + approximate + "')"; }
  std::string approximate;
};

class LeakyReLU : public Module, public Holder<LeakyReLU> {
 public:
  explicit LeakyReLU(double negative_slope = 0.01) : negative_slope(negative_slope) {}
  Tensor forward(const Tensor& input) override { return leaky_relu(input, negative_slope); }
  std::string name() const override;
  double negative_slope;
};

class ELU : public Module, public Holder<ELU> {
 public:
  explicit ELU(double alpha = 1.0) : alpha(alpha) {}
  Tensor forward(const Tensor& input) override { return elu(input, alpha); }
  std::string name() const override;
  double alpha;
};

class Softplus : public Module, public Holder<Softplus> {
 public:
  explicit Softplus(double beta = 1.0, double threshold = 20.0)
      : beta(beta), threshold(threshold) {}
  Tensor forward(const Tensor& input) override { return softplus(input, beta, threshold); }
  std::string name() const override;
  double beta, threshold;
};

class Softmax : public Module, public Holder<Softmax> {
 public:
  explicit Softmax(int64_t dim) : dim(dim) {}
  Tensor forward(const Tensor& input) override { return softmax(input, dim); }
  std::string name() const override { return "Softmax(dim=" + std::to_string(dim) + ")"; }
  int64_t dim;
};

class LogSoftmax : public Module, public Holder<LogSoftmax> {
 public:
  explicit LogSoftmax(int64_t dim) : dim(dim) {}
  Tensor forward(const Tensor& input) override { return log_softmax(input, dim); }
  std::string name() const override { return "LogSoftmax(dim=" + std::to_string(dim) + ")"; }
  int64_t dim;
};

}  // namespace torchlet::nn
