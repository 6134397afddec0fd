// The differentiable functions of torchlet, PyTorch's names and semantics. Each checks its
// arguments (shapes, dtypes, one device) and throws torchlet::Error naming what it expected.
#pragma once

#include "torchlet/tensor.h"

namespace torchlet {

// A height and width, as PyTorch's int-or-tuple arguments: Size2(3) is 3x3, Size2(3, 5) 3x5.
struct Size2 {
  Size2(int64_t both) : h(both), w(both) {}  // NOLINT(google-explicit-constructor): 3 means 3x3
  Size2(int64_t h_, int64_t w_) : h(h_), w(w_) {}
  int64_t h, w;
};

Tensor matmul(const Tensor& a, const Tensor& b);  // [m, k] x [k, n] -> [m, n]
Tensor relu(const Tensor& x);
// y = x W^T + b: x [.., in], weight [out, in], bias [out] (may be undefined) -> [.., out].
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor());
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);
// Mean over the batch of -log softmax(input)[target]: input [N, C] float32 logits, target [N]
// int64 class indices in [0, C). One fused, numerically stable kernel forward and backward.
Tensor cross_entropy(const Tensor& input, const Tensor& target);
Tensor sum(const Tensor& x);
Tensor mean(const Tensor& x);
Tensor argmax(const Tensor& x, int64_t dim, bool keepdim = false);
// The rows of x (along dim 0) listed in index (int64, 1-D, on x's device): mini-batches.
// Checks every index is in range: at once on the CPU; a GPU's kernel reports a bad index at
// the next synchronisation (no wait for it here).
// Not differentiable: meant for data, not parameters.
Tensor index_select(const Tensor& x, const Tensor& index);

// --- images: NCHW float32 --------------------------------------------------------------------
// 2-d convolution (cross-correlation, as PyTorch): input [N, C, H, W], weight [OC, C, kh, kw],
// bias [OC] (may be undefined) -> [N, OC, (H + 2 ph - kh) / sh + 1, (W + 2 pw - kw) / sw + 1].
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(),
              Size2 stride = 1, Size2 padding = 0);
// The largest value in each kernel_size window: input [N, C, H, W]. stride defaults to
// kernel_size (pass 0); padding is at most half the kernel and never wins.
Tensor max_pool2d(const Tensor& input, Size2 kernel_size, Size2 stride = 0, Size2 padding = 0);
// Inverted dropout: while training, zeroes each element with probability p and scales the rest
// by 1 / (1 - p); otherwise returns input. The draws come from the generator manual_seed()
// seeds.
Tensor dropout(const Tensor& input, double p = 0.5, bool training = true);
// Merges dimensions start_dim..end_dim into one: [N, C, H, W] -> [N, C*H*W] by default.
Tensor flatten(const Tensor& input, int64_t start_dim = 1, int64_t end_dim = -1);

}  // namespace torchlet
