// The differentiable functions of torchlet, PyTorch's names and semantics. Each checks its
// arguments (shapes, dtypes, one device) and throws torchlet::Error naming what it expected.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "torchlet/tensor.h"

namespace torchlet {

// A height and width, as PyTorch's int-or-tuple arguments: Size2(3) is 3x3, Size2(3, 5) 3x5.
struct Size2 {
  Size2(int64_t both) : h(both), w(both) {}  // NOLINT(google-explicit-constructor): 3 means 3x3
  Size2(int64_t h_, int64_t w_) : h(h_), w(w_) {}
  int64_t h, w;
};

// Matrix products. matmul follows PyTorch: [m, k] x [k, n] -> [m, n]; a 1-D operand is a row
// (first) or column (second) vector; N-D operands multiply their last two dimensions and
// broadcast the rest ([B, m, k] x [k, n], [B, 1, m, k] x [C, k, n] -> [B, C, m, n]).
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);   // 2-D only
Tensor bmm(const Tensor& a, const Tensor& b);  // [B, m, k] x [B, k, n]
// beta * input + alpha * (a b), input broadcast to [m, n] ([B, m, n] for baddbmm).
Tensor addmm(const Tensor& input, const Tensor& a, const Tensor& b, const Scalar& beta = 1,
             const Scalar& alpha = 1);
Tensor baddbmm(const Tensor& input, const Tensor& a, const Tensor& b, const Scalar& beta = 1,
               const Scalar& alpha = 1);
Tensor outer(const Tensor& a, const Tensor& b);  // [n] x [m] -> [n, m]

// --- reductions: an empty dims list means every dim ------------------------------------------
Tensor sum(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim = false);
Tensor mean(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim = false);
// The largest (smallest) value along dim and its first index (NaN wins); the gradient goes to
// that index.
std::tuple<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false);
std::tuple<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor max(const Tensor& x);  // the largest element, 0-dim
Tensor min(const Tensor& x);
Tensor argmin(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor amax(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim = false);
Tensor amin(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim = false);
Tensor prod(const Tensor& x);
Tensor prod(const Tensor& x, int64_t dim, bool keepdim = false);
// Variance with Bessel's correction by default (correction 0: the population variance).
Tensor var(const Tensor& x, const std::vector<int64_t>& dims = {}, double correction = 1.0,
           bool keepdim = false);
Tensor std(const Tensor& x, const std::vector<int64_t>& dims = {}, double correction = 1.0,
           bool keepdim = false);
// The p-norm over dims (p may be infinity).
Tensor norm(const Tensor& x, double p = 2.0, const std::vector<int64_t>& dims = {},
            bool keepdim = false);
Tensor logsumexp(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim = false);
Tensor all(const Tensor& x);
Tensor any(const Tensor& x);
Tensor all(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor any(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor cumsum(const Tensor& x, int64_t dim);

// --- normalisation -------------------------------------------------------------------------
// (x - mean) / sqrt(var + eps) over the last normalized_shape.size() dimensions, then * weight
// + bias (either may be undefined).
Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                  const Tensor& weight = Tensor(), const Tensor& bias = Tensor(),
                  double eps = 1e-5);
// input [N, C, ...] normalised per channel: with the batch's statistics while training (which
// also update running_mean/var in place, when defined), else with the running ones.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum = 0.1,
                  double eps = 1e-5);

// --- losses (torch.nn.functional's): reduction is "none", "mean" or "sum" -------------------
Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
Tensor l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const std::string& reduction = "mean", double beta = 1.0);
Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
                  double delta = 1.0);
// input [N, C] log-probabilities, target [N] class indices; weight [C] (may be undefined); rows
// whose target is ignore_index count for nothing; "mean" is the weighted mean.
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                int64_t ignore_index = -100, const std::string& reduction = "mean");
// cross_entropy with PyTorch's options (the two-argument form above is the fused kernel).
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                     int64_t ignore_index = -100, const std::string& reduction = "mean",
                     double label_smoothing = 0.0);
// input probabilities in [0, 1]; each log is clamped at -100, as in PyTorch.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const Tensor& weight = Tensor(), const std::string& reduction = "mean");
// input logits; pos_weight [C] weighs the positive term (both may be undefined).
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight = Tensor(),
                                        const Tensor& pos_weight = Tensor(),
                                        const std::string& reduction = "mean");
// input log-probabilities; target probabilities (log-probabilities with log_target); reduction
// also "batchmean" (the sum over the batch size, KL's true value).
Tensor kl_div(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
              bool log_target = false);

// --- joining ----------------------------------------------------------------------------------
// The tensors joined along dim (all other sizes equal); dtypes promote.
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
// The tensors (all of one shape) joined along a new dimension dim.
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);

// --- elementwise maths, differentiable -------------------------------------------------------
// One function per `function` line of torchlet/unary_ops.def: neg, abs, sign (-1, 0 or 1; 0 for
// NaN, as PyTorch; its gradient is 0), exp, log, log1p (log(1 + x), exact for small x), expm1
// (exp(x) - 1, exact for small x), sqrt, rsqrt (1 / sqrt(x)), sigmoid, tanh, erf, sin, cos and
// reciprocal, each `Tensor name(const Tensor& x)`. Dtypes as PyTorch's: float32 and float64 stay;
// neg, abs and sign keep int64 (sign also bool); the others compute int64 and bool in float32.
#define TORCHLET_UNARY_function(name) Tensor name(const Tensor& x);
#define TORCHLET_UNARY_own(name)
#define TORCHLET_UNARY(op, name, api, ...) TORCHLET_UNARY_##api(name)
#include "torchlet/unary_ops.def"
#undef TORCHLET_UNARY
#undef TORCHLET_UNARY_own
#undef TORCHLET_UNARY_function
Tensor pow(const Tensor& x, const Scalar& exponent);
Tensor pow(const Tensor& x, const Tensor& exponent);
Tensor pow(const Scalar& x, const Tensor& exponent);
// Elementwise larger / smaller of two tensors (broadcast); NaN if either is NaN.
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
// Limits x to [min, max]; either bound may be left out (std::nullopt).
Tensor clamp(const Tensor& x, const std::optional<Scalar>& min,
             const std::optional<Scalar>& max = std::nullopt);
Tensor clamp_min(const Tensor& x, const Scalar& min);
Tensor clamp_max(const Tensor& x, const Scalar& max);

// --- activations, composed from the ops above (their gradients come with them) ---------------
Tensor relu(const Tensor& x);
// x * Phi(x), Phi the standard normal CDF; approximate "tanh" uses PyTorch's tanh formula.
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
Tensor silu(const Tensor& x);  // x * sigmoid(x)
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01);
Tensor elu(const Tensor& x, double alpha = 1.0);
// log(1 + exp(beta x)) / beta, and x itself where beta x > threshold (as PyTorch).
Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0);

// --- type promotion ---------------------------------------------------------------------------
// torch.result_type: the dtype an op of a and b computes in. Between tensors, promote_types of
// the two, except that a 0-dim tensor does not promote a dimensioned one of its category
// (dtype.h's result_type). With a number: the tensor's dtype, unless the number is of a higher
// category (a floating-point number with an integer or bool tensor gives float32, an integer
// with a bool tensor int64).
DType result_type(const Tensor& a, const Tensor& b);
DType result_type(const Tensor& a, const Scalar& b);

// --- comparisons and logic: bool results, not differentiable -----------------------------------
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_not(const Tensor& x);
Tensor isnan(const Tensor& x);
Tensor isfinite(const Tensor& x);
// condition ? a : b elementwise (all three broadcast); differentiable in a and b.
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, const Scalar& b);
Tensor where(const Tensor& condition, const Scalar& a, const Tensor& b);
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value);
// NaN to nan, +inf to posinf, -inf to neginf (by default 0 and float32's largest and lowest).
Tensor nan_to_num(const Tensor& x, double nan = 0.0, std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt);

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
// index_select(x, 0, index): the rows of x listed in index, as the data loader draws batches.
Tensor index_select(const Tensor& x, const Tensor& index);

// --- indexing along one dimension (PyTorch's names and argument order), on x's device ---------
// Index tensors are int64; an index out of range throws "Expected index in [0, n), but got i"
// (a GPU reports it at its next synchronisation). Differentiable in the float tensors.
// The slices of x along dim listed in index (1-D): out has index.numel() of them.
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
// out[i][j][k] = x[index[i][j][k]][j][k] for dim 0 (and so on): index has x's number of
// dimensions, out index's shape (each size at most x's, except along dim).
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
// A copy of x with out[index[i][j][k]][j][k] = src[i][j][k] (dim 0): the last write wins on
// repeated indices; the value form writes value everywhere index points.
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value);
// The same, adding: out[index[i][j][k]][j][k] += src[i][j][k].
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
// out = x with alpha * source's i-th slice along dim added to slice index[i] (index 1-D).
Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha = 1);
// Einstein summation of one or two operands ("ij,jk->ik", "bij,bjk->bik", "i,j->ij", "ij->ji",
// "ii->i", "ij,ij->", "bi,bi->b", implicit outputs as "ij,jk"), composed from permute, reshape,
// matmul and sum; an equation outside that throws naming what it expected.
Tensor einsum(const std::string& equation, const std::vector<Tensor>& tensors);

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

// --- more layers' functions (issue 14): composites of the ops above unless said otherwise ----
// 1-d convolution: input [N, C, L], weight [OC, C, k], bias [OC] -> [N, OC, (L + 2p - k) / s + 1]
// (conv2d on [N, C, 1, L]).
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(),
              int64_t stride = 1, int64_t padding = 0);
// The adjoint of conv2d (a "deconvolution"): input [N, C, H, W], weight [C, OC, kh, kw] ->
// [N, OC, (H - 1) sh - 2 ph + kh + oph, ...]; output_padding (less than stride) adds to the
// bottom and right. Its own op, on conv2d's im2col/col2im and GEMM kernels.
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(),
                        Size2 stride = 1, Size2 padding = 0, Size2 output_padding = 0);
// The mean of each kernel_size window of [N, C, H, W], padding counted as zeros (PyTorch's
// count_include_pad=True); stride defaults to kernel_size (pass 0).
Tensor avg_pool2d(const Tensor& input, Size2 kernel_size, Size2 stride = 0, Size2 padding = 0);
// [N, C, H, W] -> [N, C, oh, ow]: output pixel (i, j) is the mean of rows floor(i H / oh) to
// ceil((i + 1) H / oh) - 1 and the columns likewise, as PyTorch's.
Tensor adaptive_avg_pool2d(const Tensor& input, Size2 output_size);
// The largest value of each window along the last dimension of [N, C, L].
Tensor max_pool1d(const Tensor& input, int64_t kernel_size, int64_t stride = 0,
                  int64_t padding = 0);
// input [N, C, ...] normalised over each of num_groups groups of C / num_groups channels (and
// every position), then * weight [C] + bias [C] (either may be undefined).
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);
// While training, zeroes whole channels of [N, C, ...] with probability p (one draw per sample
// and channel) and scales the rest by 1 / (1 - p); otherwise returns input.
Tensor dropout2d(const Tensor& input, double p = 0.5, bool training = true);
// The rows of weight [num_embeddings, dim] that input (int64, any shape) lists: input's shape
// plus [dim]. The row padding_idx gets no gradient.
Tensor embedding(const Tensor& input, const Tensor& weight,
                 std::optional<int64_t> padding_idx = std::nullopt);

}  // namespace torchlet
