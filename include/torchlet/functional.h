// The differentiable functions of torchlet, PyTorch's names and semantics. Each checks its
// arguments (shapes, dtypes, one device) and throws torchlet::Error naming what it expected.
#pragma once

#include "torchlet/tensor.h"

namespace torchlet {

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
// Checks every index is in range, which reads index back when it lives on a GPU.
// Not differentiable: meant for data, not parameters.
Tensor index_select(const Tensor& x, const Tensor& index);

}  // namespace torchlet
