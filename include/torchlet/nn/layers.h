// The layers: Linear, ReLU, and Sequential, a container that chains modules.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

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
