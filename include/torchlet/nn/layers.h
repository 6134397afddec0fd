// The layers: Linear, ReLU, Conv2d, MaxPool2d, Flatten, Dropout, Sequential (a container that
// chains modules), and Conv1d, ConvTranspose2d, AvgPool2d, AdaptiveAvgPool2d, MaxPool1d,
// Dropout2d and Embedding (src/nn/more_layers.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "torchlet/functional.h"
#include "torchlet/nn/holder.h"
#include "torchlet/nn/module.h"
#include "torchlet/nn/options.h"

namespace torchlet::nn {

// y = x W^T + b. weight [out, in] and bias [out] start uniform in +-1/sqrt(in_features), as
// PyTorch initialises them; they live on the CPU until to() moves them.
class Linear : public Module, public Holder<Linear> {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  int64_t in_features, out_features;
  Tensor weight;  // [out_features, in_features]
  Tensor bias;    // [out_features], undefined when built with bias = false
};

class ReLU : public Module, public Holder<ReLU> {
 public:
  Tensor forward(const Tensor& input) override;
  std::string name() const override { return "ReLU()"; }
};

// 2-d convolution over NCHW images (see conv2d). weight [out, in, kh, kw] and bias [out] start
// uniform in +-1/sqrt(in * kh * kw), as PyTorch initialises them.
class Conv2d : public Module, public Holder<Conv2d> {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, Size2 kernel_size, Size2 stride = 1,
         Size2 padding = 0, bool bias = true);
  explicit Conv2d(const Conv2dOptions& o)
      : Conv2d(o.in_channels(), o.out_channels(), o.kernel_size(), o.stride(), o.padding(),
               o.bias()) {}
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  int64_t in_channels, out_channels;
  Size2 kernel_size, stride, padding;
  Tensor weight;  // [out_channels, in_channels, kernel_h, kernel_w]
  Tensor bias;    // [out_channels], undefined when built with bias = false
};

// The largest value in each window (see max_pool2d); stride defaults to kernel_size.
class MaxPool2d : public Module, public Holder<MaxPool2d> {
 public:
  explicit MaxPool2d(Size2 kernel_size, Size2 stride = 0, Size2 padding = 0);
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  Size2 kernel_size, stride, padding;
};

// [N, C, H, W] -> [N, C*H*W] (dimensions start_dim..end_dim merged), between convolutions and
// Linear layers.
class Flatten : public Module, public Holder<Flatten> {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1);
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  int64_t start_dim, end_dim;
};

// Zeroes each element with probability p while the module is training (train()), scaling the
// rest by 1 / (1 - p); passes its input through in eval() mode.
class Dropout : public Module, public Holder<Dropout> {
 public:
  explicit Dropout(double p = 0.5);
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  double p;
};

// Runs its modules in order, each one's output the next one's input. Children are named
// "0", "1", ... as in PyTorch.
class Sequential : public Module, public Holder<Sequential> {
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

// --- more layers (issue 14), initialised as PyTorch's reset_parameters() does -----------------

// 1-d convolution over [N, C, L] (see conv1d); weight [out, in, k] and bias [out] uniform in
// +-1/sqrt(in * k) (kaiming_uniform_ with a = sqrt(5)).
class Conv1d : public Module, public Holder<Conv1d> {
 public:
  Conv1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1,
         int64_t padding = 0, bool bias = true);
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  int64_t in_channels, out_channels, kernel_size, stride, padding;
  Tensor weight;  // [out_channels, in_channels, kernel_size]
  Tensor bias;    // [out_channels], undefined when built with bias = false
};

// The transpose of Conv2d (see conv_transpose2d); weight [in, out, kh, kw] and bias [out]
// uniform in +-1/sqrt(out * kh * kw): PyTorch's fan_in of that weight is size(1) * kh * kw.
class ConvTranspose2d : public Module, public Holder<ConvTranspose2d> {
 public:
  ConvTranspose2d(int64_t in_channels, int64_t out_channels, Size2 kernel_size, Size2 stride = 1,
                  Size2 padding = 0, Size2 output_padding = 0, bool bias = true);
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  int64_t in_channels, out_channels;
  Size2 kernel_size, stride, padding, output_padding;
  Tensor weight;  // [in_channels, out_channels, kernel_h, kernel_w]
  Tensor bias;    // [out_channels], undefined when built with bias = false
};

// The mean of each window (see avg_pool2d); stride defaults to kernel_size.
class AvgPool2d : public Module, public Holder<AvgPool2d> {
 public:
  explicit AvgPool2d(Size2 kernel_size, Size2 stride = 0, Size2 padding = 0);
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  Size2 kernel_size, stride, padding;
};

// Means over a grid of output_size cells, whatever the input's size (see adaptive_avg_pool2d).
class AdaptiveAvgPool2d : public Module, public Holder<AdaptiveAvgPool2d> {
 public:
  explicit AdaptiveAvgPool2d(Size2 output_size) : output_size(output_size) {}
  Tensor forward(const Tensor& input) override { return adaptive_avg_pool2d(input, output_size); }
  std::string name() const override;

  Size2 output_size;
};

// The largest value of each window of [N, C, L]; stride defaults to kernel_size.
class MaxPool1d : public Module, public Holder<MaxPool1d> {
 public:
  explicit MaxPool1d(int64_t kernel_size, int64_t stride = 0, int64_t padding = 0);
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  int64_t kernel_size, stride, padding;
};

// Zeroes whole channels with probability p while training (see dropout2d).
class Dropout2d : public Dropout {
 public:
  explicit Dropout2d(double p = 0.5) : Dropout(p) {}
  Tensor forward(const Tensor& input) override { return dropout2d(input, p, is_training()); }
  std::string name() const override { return "Dropout2d" + Dropout::name().substr(7); }
};

// A lookup table: int64 indices of any shape -> their rows of weight [num_embeddings, dim],
// drawn from N(0, 1); the row padding_idx (negative counts from the end) starts at zero and
// gets no gradient.
class Embedding : public Module, public Holder<Embedding> {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim,
            std::optional<int64_t> padding_idx = std::nullopt);
  Tensor forward(const Tensor& input) override;
  std::string name() const override;

  int64_t num_embeddings, embedding_dim;
  std::optional<int64_t> padding_idx;  // non-negative once built
  Tensor weight;                       // [num_embeddings, embedding_dim]
};

}  // namespace torchlet::nn
