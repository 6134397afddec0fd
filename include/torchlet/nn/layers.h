// The layers: Linear, ReLU, Conv2d, MaxPool2d, Flatten, Dropout, and Sequential, a container
// that chains modules.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "torchlet/functional.h"
#include "torchlet/nn/module.h"

namespace torchlet::nn {

// y = x W^T + b. weight [out, in] and bias [out] start uniform in +-1/sqrt(in_features), as
// PyTorch initialises them; they live on the CPU until to() moves them.
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  int64_t in_features, out_features;
  Tensor weight;  // [out_features, in_features]
  Tensor bias;    // [out_features], undefined when built with bias = false
};

class ReLU : public Module {
 public:
  Tensor forward(const Tensor& input) override;
  std::string name() const override { return "ReLU()"; }
};

// 2-d convolution over NCHW images (see conv2d). weight [out, in, kh, kw] and bias [out] start
// uniform in +-1/sqrt(in * kh * kw), as PyTorch initialises them.
class Conv2d : public Module {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, Size2 kernel_size, Size2 stride = 1,
         Size2 padding = 0, bool bias = true);
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  int64_t in_channels, out_channels;
  Size2 kernel_size, stride, padding;
  Tensor weight;  // [out_channels, in_channels, kernel_h, kernel_w]
  Tensor bias;    // [out_channels], undefined when built with bias = false
};

// The largest value in each window (see max_pool2d); stride defaults to kernel_size.
class MaxPool2d : public Module {
 public:
  explicit MaxPool2d(Size2 kernel_size, Size2 stride = 0, Size2 padding = 0);
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  Size2 kernel_size, stride, padding;
};

// [N, C, H, W] -> [N, C*H*W] (dimensions start_dim..end_dim merged), between convolutions and
// Linear layers.
class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1);
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  int64_t start_dim, end_dim;
};

// Zeroes each element with probability p while the module is training (train()), scaling the
// rest by 1 / (1 - p); passes its input through in eval() mode.
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5);
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  double p;
};

// Runs its modules in order, each one's output the next one's input. Children are named
// "0", "1", ... as in PyTorch.
class Sequential : public Module {
 public:
  Sequential() = default;
  template <typename... Ms>
  explicit Sequential(std::shared_ptr<Ms>... modules) {
    (push_back(std::move(modules)), ...);
  }
  void push_back(std::shared_ptr<Module> module);
  // Constructs a module in place: seq.add<Linear>(4, 10).
  template <typename M, typename... Args>
  M& add(Args&&... args) {
    auto module = std::make_shared<M>(std::forward<Args>(args)...);
    push_back(module);
    return *module;
  }
  std::size_t size() const noexcept { return modules_.size(); }
  Module& operator[](std::size_t i) const { return *modules_.at(i); }
  Tensor forward(const Tensor& input) override;
  std::string name() const override { return "Sequential"; }

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};

}  // namespace torchlet::nn
