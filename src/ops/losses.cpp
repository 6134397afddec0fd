// The losses of torch.nn.functional, composed from other ops (so their gradients come with
// them): mse, l1, smooth_l1, huber, nll, binary cross-entropy (with and without logits), kl_div,
// and cross_entropy with class weights, ignore_index and label smoothing. Plain
// cross_entropy(input, target) keeps its fused kernel (ops/cross_entropy.cpp).
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

Tensor reduce(const char* op, const Tensor& loss, const std::string& reduction) {
  if (reduction == "none") return loss;
  if (reduction == "sum") return loss.sum();
  TORCHLET_CHECK(reduction == "mean", op, ": Expected reduction 'none', 'mean' or 'sum', but got '",
                 reduction, "'");
  return loss.mean();
}

void check_pair(const char* op, const Tensor& input, const Tensor& target) {
  ops::check_defined(op, {"input", input});
  ops::check_defined(op, {"target", target});
  TORCHLET_CHECK(input.shape() == target.shape(), op, ": Expected target of the input's shape ",
                 input.shape(), ", but got ", target.shape());
}

// For each row of logp [N, C], the entry of its target class, and the mask of rows whose
// target is not ignore_index (their target must be in [0, C)).
std::pair<Tensor, Tensor> picked(const char* op, const Tensor& logp, const Tensor& target,
                                 int64_t ignore_index) {
  ops::check_dim(op, {"input", logp}, 2);
  ops::check_dim(op, {"target", target}, 1);
  ops::check_dtype(op, {"target", target}, kInt64);
  TORCHLET_CHECK(target.size(0) == logp.size(0), op, ": Expected ", logp.size(0),
                 " targets (the input's rows), but got ", target.size(0));
  const int64_t classes = logp.size(1);
  const Tensor valid = target != ignore_index;
  const Tensor bad = valid & ((target < 0) | (target >= classes));
  TORCHLET_CHECK(!bad.any().item<bool>(), op, ": Expected every target to be a class index in [0, ",
                 classes, ") or ignore_index ", ignore_index, ", but got ",
                 std::get<0>(where(bad, target, 0).abs().max(0)).item<int64_t>());
  const Tensor hit =
      (arange(classes, TensorOptions(kInt64).with_device(logp.device())) == target.unsqueeze(1)) &
      valid.unsqueeze(1);
  return {where(hit, logp, 0.0).sum(1), valid};
}

// weight[target[i]] for the valid rows, 0 for the ignored ones (1 without class weights).
Tensor row_weights(const Tensor& weight, const Tensor& target, const Tensor& valid) {
  if (!weight.defined()) return valid.to(kFloat32);
  return where(valid, index_select(weight, where(valid, target, 0)), 0.0);
}

}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  check_pair("mse_loss", input, target);
  const Tensor d = input - target;
  return reduce("mse_loss", d * d, reduction);
}

Tensor l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  check_pair("l1_loss", input, target);
  return reduce("l1_loss", abs(input - target), reduction);
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction,
                      double beta) {
  check_pair("smooth_l1_loss", input, target);
  TORCHLET_CHECK(beta >= 0, "smooth_l1_loss: Expected beta >= 0, but got ", beta);
  const Tensor z = abs(input - target);
  if (beta == 0) return reduce("smooth_l1_loss", z, reduction);
  return reduce("smooth_l1_loss", where(z < beta, z * z * (0.5 / beta), z - 0.5 * beta), reduction);
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction,
                  double delta) {
  check_pair("huber_loss", input, target);
  TORCHLET_CHECK(delta > 0, "huber_loss: Expected delta > 0, but got ", delta);
  const Tensor z = abs(input - target);
  return reduce("huber_loss", where(z < delta, z * z * 0.5, (z - 0.5 * delta) * delta), reduction);
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                int64_t ignore_index, const std::string& reduction) {
  auto [logp, valid] = picked("nll_loss", input, target, ignore_index);
  const Tensor w = row_weights(weight, target, valid);
  const Tensor loss = -(logp * w);
  if (reduction == "mean") return loss.sum() / w.sum();  // PyTorch: a weighted mean
  return reduce("nll_loss", loss, reduction);
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                     int64_t ignore_index, const std::string& reduction, double label_smoothing) {
  TORCHLET_CHECK(label_smoothing >= 0 && label_smoothing <= 1,
                 "cross_entropy: Expected label_smoothing in [0, 1], but got ", label_smoothing);
  const Tensor logp = log_softmax(input, 1);
  const Tensor nll = nll_loss(logp, target, weight, ignore_index, reduction);
  if (label_smoothing == 0) return nll;
  // PyTorch's smoothing: (1 - e) * nll + e / C * sum_c -w_c logp_c, ignored rows left out.
  const Tensor valid = (target != ignore_index).to(kFloat32);
  const Tensor weighted = weight.defined() ? logp * weight : logp;
  Tensor smooth = -(weighted.sum(1) * valid);
  if (reduction == "mean")
    smooth = smooth.sum() / row_weights(weight, target, target != ignore_index).sum();
  else
    smooth = reduce("cross_entropy", smooth, reduction);
  return nll * (1 - label_smoothing) +
         smooth * (label_smoothing / static_cast<double>(input.size(1)));
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            const std::string& reduction) {
  check_pair("binary_cross_entropy", input, target);
  // PyTorch clamps each log at -100, so a probability of exactly 0 or 1 gives a finite loss.
  const Tensor loss =
      -(target * clamp_min(log(input), -100) + (1.0 - target) * clamp_min(log(1.0 - input), -100));
  return reduce("binary_cross_entropy", weight.defined() ? loss * weight : loss, reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight, const Tensor& pos_weight,
                                        const std::string& reduction) {
  check_pair("binary_cross_entropy_with_logits", input, target);
  // log(1 + exp(-|x|)) + max(-x, 0) is -log(sigmoid(x)) without overflow.
  const Tensor log_sig_neg = log1p(exp(-abs(input))) + clamp_min(-input, 0);
  const Tensor scale = pos_weight.defined() ? (pos_weight - 1.0) * target + 1.0 : Tensor();
  const Tensor loss =
      (1.0 - target) * input + (scale.defined() ? scale * log_sig_neg : log_sig_neg);
  return reduce("binary_cross_entropy_with_logits", weight.defined() ? loss * weight : loss,
                reduction);
}

Tensor kl_div(const Tensor& input, const Tensor& target, const std::string& reduction,
              bool log_target) {
  check_pair("kl_div", input, target);
  const Tensor loss =
      log_target ? exp(target) * (target - input)
                 : where(target > 0, target * (log(where(target > 0, target, 1.0)) - input), 0.0);
  if (reduction == "batchmean")
    return loss.sum() / static_cast<double>(input.dim() ? input.size(0) : 1);
  return reduce("kl_div", loss, reduction);
}

}  // namespace torchlet
