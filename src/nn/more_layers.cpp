// Conv1d, ConvTranspose2d, AvgPool2d, AdaptiveAvgPool2d, MaxPool1d and Embedding: each a module
// around its function in functional.h, initialised and printed as PyTorch's.
#include <cmath>

#include "nn/repr.h"
#include "torchlet/autograd.h"
#include "torchlet/error.h"
#include "torchlet/nn/init.h"
#include "torchlet/nn/layers.h"

namespace torchlet::nn {

namespace {

// PyTorch's _ConvNd.reset_parameters(): kaiming_uniform_(a = sqrt(5)) for the weight, and the
// bias uniform in +-1/sqrt(fan_in) of that weight.
void reset_conv(Tensor& weight, Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (!bias.defined()) return;
  const double bound =
      1.0 / std::sqrt(static_cast<double>(init::calculate_fan_in_and_fan_out(weight).first));
  init::uniform_(bias, -bound, bound);
}

}  // namespace

Conv1d::Conv1d(int64_t in, int64_t out, int64_t kernel, int64_t stride_, int64_t padding_,
               bool with_bias)
    : in_channels(in), out_channels(out), kernel_size(kernel), stride(stride_), padding(padding_) {
  TORCHLET_CHECK(in > 0 && out > 0 && kernel > 0, "Conv1d: Expected in_channels, out_channels ",
                 "and kernel_size > 0, but got in_channels ", in, ", out_channels ", out,
                 " and kernel_size ", kernel);
  weight = register_parameter("weight", empty({out, in, kernel}));
  if (with_bias) bias = register_parameter("bias", empty({out}));
  reset_conv(weight, bias);
}

Tensor Conv1d::forward(const Tensor& input) { return conv1d(input, weight, bias, stride, padding); }

std::string Conv1d::name() const {
  return "Conv1d(" + std::to_string(in_channels) + ", " + std::to_string(out_channels) +
         ", kernel_size=(" + std::to_string(kernel_size) + ",), stride=(" + std::to_string(stride) +
         ",)" + (padding ? ", padding=(" + std::to_string(padding) + ",)" : "") +
         (bias.defined() ? "" : ", bias=False") + ")";
}

ConvTranspose2d::ConvTranspose2d(int64_t in, int64_t out, Size2 kernel, Size2 stride_,
                                 Size2 padding_, Size2 output_padding_, bool with_bias)
    : in_channels(in),
      out_channels(out),
      kernel_size(kernel),
      stride(stride_),
      padding(padding_),
      output_padding(output_padding_) {
  TORCHLET_CHECK(in > 0 && out > 0 && kernel.h > 0 && kernel.w > 0,
                 "ConvTranspose2d: Expected in_channels, out_channels and kernel_size > 0, but ",
                 "got in_channels ", in, ", out_channels ", out, " and kernel_size ",
                 pair_text(kernel));
  weight = register_parameter("weight", empty({in, out, kernel.h, kernel.w}));
  if (with_bias) bias = register_parameter("bias", empty({out}));
  reset_conv(weight, bias);
}

Tensor ConvTranspose2d::forward(const Tensor& input) {
  return conv_transpose2d(input, weight, bias, stride, padding, output_padding);
}

std::string ConvTranspose2d::name() const {
  return "ConvTranspose2d(" + std::to_string(in_channels) + ", " + std::to_string(out_channels) +
         ", kernel_size=" + pair_text(kernel_size) + ", stride=" + pair_text(stride) +
         (padding.h || padding.w ? ", padding=" + pair_text(padding) : "") +
         (output_padding.h || output_padding.w ? ", output_padding=" + pair_text(output_padding)
                                               : "") +
         (bias.defined() ? "" : ", bias=False") + ")";
}

AvgPool2d::AvgPool2d(Size2 kernel, Size2 stride_, Size2 padding_)
    : kernel_size(kernel),
      stride(stride_.h == 0 && stride_.w == 0 ? kernel : stride_),
      padding(padding_) {}

Tensor AvgPool2d::forward(const Tensor& input) {
  return avg_pool2d(input, kernel_size, stride, padding);
}

std::string AvgPool2d::name() const {
  return "AvgPool2d(kernel_size=" + pair_text(kernel_size) + ", stride=" + pair_text(stride) +
         ", padding=" + pair_text(padding) + ")";
}

std::string AdaptiveAvgPool2d::name() const {
  return "AdaptiveAvgPool2d(output_size=" + pair_text(output_size) + ")";
}

MaxPool1d::MaxPool1d(int64_t kernel, int64_t stride_, int64_t padding_)
    : kernel_size(kernel), stride(stride_ ? stride_ : kernel), padding(padding_) {}

Tensor MaxPool1d::forward(const Tensor& input) {
  return max_pool1d(input, kernel_size, stride, padding);
}

std::string MaxPool1d::name() const {
  return "MaxPool1d(kernel_size=" + std::to_string(kernel_size) +
         ", stride=" + std::to_string(stride) + ", padding=" + std::to_string(padding) +
         ", dilation=1, ceil_mode=False)";
}

Embedding::Embedding(int64_t num, int64_t dim, std::optional<int64_t> padding)
    : num_embeddings(num), embedding_dim(dim), padding_idx(padding) {
  TORCHLET_CHECK(num > 0 && dim > 0, "Embedding: Expected num_embeddings and embedding_dim > 0, ",
                 "but got num_embeddings ", num, " and embedding_dim ", dim);
  if (padding_idx) {
    TORCHLET_CHECK(*padding_idx >= -num && *padding_idx < num, "Embedding: Expected padding_idx ",
                   "in [", -num, ", ", num, "), but got ", *padding_idx);
    if (*padding_idx < 0) *padding_idx += num;
  }
  weight = register_parameter("weight", empty({num, dim}));
  init::normal_(weight);
  if (padding_idx) {
    NoGradGuard no_grad;
    weight[*padding_idx].zero_();
  }
}

Tensor Embedding::forward(const Tensor& input) { return embedding(input, weight, padding_idx); }

std::string Embedding::name() const {
  return "Embedding(" + std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim) +
         (padding_idx ? ", padding_idx=" + std::to_string(*padding_idx) : "") + ")";
}

}  // namespace torchlet::nn
