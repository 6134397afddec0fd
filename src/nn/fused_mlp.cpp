// FusedMlp: checks the model and the data, keeps the gradient buffers, and hands the whole
// step to the backend's mlp_step.
#include "torchlet/nn/fused.h"

#include "core/tensor_impl.h"
#include "ops/common.h"

namespace torchlet::nn {

namespace {

// The Linear layers of a Linear, (ReLU, Linear)* stack, or none if it is not one.
std::vector<Linear*> linear_layers(const Sequential& model) {
  std::vector<Linear*> layers;
  for (std::size_t i = 0; i < model.size(); ++i) {
    Module& m = model[i];
    if (i % 2 == 1) {
      if (!dynamic_cast<ReLU*>(&m)) return {};
      continue;
    }
    auto* linear = dynamic_cast<Linear*>(&m);
    if (!linear || !linear->bias.defined()) return {};
    layers.push_back(linear);
  }
  if (model.size() % 2 == 0) return {};  // must end with a Linear
  return layers;
}

}  // namespace

bool FusedMlp::supports(const Sequential& model) { return !linear_layers(model).empty(); }

FusedMlp::FusedMlp(Sequential& model) : layers_(linear_layers(model)) {
  TORCHLET_CHECK(!layers_.empty(), "FusedMlp: Expected a Sequential of Linear layers (with "
                 "bias) and ReLU between them, but got a different stack of ", model.size(),
                 " modules");
  widths_.push_back(layers_.front()->in_features);
  for (const Linear* l : layers_) widths_.push_back(l->out_features);
}

Tensor FusedMlp::loss_and_grads(const Tensor& X, const Tensor& y, const Tensor& rows) {
  const char* op = "FusedMlp";
  ops::check_defined(op, {"X", X});
  ops::check_defined(op, {"y", y});
  ops::check_same_device(op, {{"weight", layers_.front()->weight}, {"X", X}, {"y", y},
                              {"rows", rows}});
  ops::check_dtype(op, {"X", X}, kFloat32);
  ops::check_dtype(op, {"y", y}, kInt64);
  ops::check_dim(op, {"X", X}, 2);
  ops::check_dim(op, {"y", y}, 1);
  TORCHLET_CHECK(X.size(1) == widths_.front(), "FusedMlp: Expected X with ", widths_.front(),
                 " features, but got shape ", X.shape());
  TORCHLET_CHECK(y.size(0) == X.size(0), "FusedMlp: Expected y of shape [", X.size(0),
                 "], but got ", y.shape());
  if (rows.defined()) {
    ops::check_dtype(op, {"rows", rows}, kInt64);
    ops::check_dim(op, {"rows", rows}, 1);
  }
  const Device device = X.device();
  const std::size_t n_layers = layers_.size();
  if (weight_grads_.size() != n_layers || weight_grads_.front().device() != device) {
    weight_grads_.clear();
    bias_grads_.clear();
    for (const Linear* l : layers_) {
      weight_grads_.push_back(empty(l->weight.shape(), device));
      bias_grads_.push_back(empty(l->bias.shape(), device));
    }
  }
  std::vector<const float*> w(n_layers), b(n_layers);
  std::vector<float*> dw(n_layers), db(n_layers);
  for (std::size_t l = 0; l < n_layers; ++l) {
    TORCHLET_CHECK(layers_[l]->weight.device() == device && layers_[l]->weight.is_contiguous(),
                   "FusedMlp: Expected contiguous parameters on ", device);
    w[l] = layers_[l]->weight.data_ptr<float>();
    b[l] = layers_[l]->bias.data_ptr<float>();
    dw[l] = weight_grads_[l].data_ptr<float>();
    db[l] = bias_grads_[l].data_ptr<float>();
  }
  const Tensor x = X.contiguous(), t = y.contiguous();
  const Tensor r = rows.defined() ? rows.contiguous() : Tensor();
  Tensor loss = make_tensor(Shape{}, kFloat32, device);
  backend::MlpStep step{static_cast<int>(n_layers), widths_.data(), w.data(), b.data(),
                        dw.data(), db.data(), x.data_ptr<float>(), t.data_ptr<int64_t>(),
                        x.size(0), r.defined() ? r.data_ptr<int64_t>() : nullptr,
                        r.defined() ? r.numel() : x.size(0), loss.data_ptr<float>()};
  TORCHLET_CHECK(step.n > 0, "FusedMlp: Expected at least one row, but got none");
  backend_of(loss).mlp_step(step);
  for (std::size_t l = 0; l < n_layers; ++l) {
    layers_[l]->weight.set_grad(weight_grads_[l]);
    layers_[l]->bias.set_grad(bias_grads_[l]);
  }
  return loss;
}

}  // namespace torchlet::nn
