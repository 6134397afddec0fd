// FusedMlp: checks the model and the data, keeps the gradient buffers, and hands the whole
// step to the backend's fused MLP kernels (an optional capability, Backend::fused_mlp()).
#include "core/checks.h"
#include "core/tensor_impl.h"
#include "torchlet/error.h"
#include "torchlet/nn/fused.h"

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
  TORCHLET_CHECK(!layers_.empty(),
                 "FusedMlp: Expected a Sequential of Linear layers (with "
                 "bias) and ReLU between them, but got a different stack of ",
                 model.size(), " modules");
  widths_.push_back(layers_.front()->in_features);
  for (const Linear* l : layers_) widths_.push_back(l->out_features);
}

namespace {

// The backend's view of one step, and the tensors and pointer arrays it points into.
struct StepArgs {
  std::vector<float*> w, b, dw, db;
  Tensor x, t, r;
  backend::MlpStep step;
};

// The fused kernels of t's backend; throws when it has none.
backend::FusedMlpKernels& fused_kernels(const Tensor& t) {
  backend::FusedMlpKernels* kernels = backend_of(t).fused_mlp();
  TORCHLET_CHECK(kernels, "FusedMlp: Expected a device with fused MLP kernels, but ", t.device(),
                 " has none; train the model op by op (or through torchlet::compile)");
  return *kernels;
}

}  // namespace

// Checks the data against the model and fills `args` (grad buffers made on first use).
static void make_step(const std::vector<Linear*>& layers, const std::vector<int64_t>& widths,
                      std::vector<Tensor>& weight_grads, std::vector<Tensor>& bias_grads,
                      const Tensor& X, const Tensor& y, const Tensor& rows, StepArgs& args) {
  const char* op = "FusedMlp";
  ops::check_defined(op, {"X", X});
  ops::check_defined(op, {"y", y});
  ops::check_same_device(op,
                         {{"weight", layers.front()->weight}, {"X", X}, {"y", y}, {"rows", rows}});
  ops::check_dtype(op, {"X", X}, kFloat32);
  ops::check_dtype(op, {"y", y}, kInt64);
  ops::check_dim(op, {"X", X}, 2);
  ops::check_dim(op, {"y", y}, 1);
  TORCHLET_CHECK(X.size(1) == widths.front(), "FusedMlp: Expected X with ", widths.front(),
                 " features, but got shape ", X.shape());
  TORCHLET_CHECK(y.size(0) == X.size(0), "FusedMlp: Expected y of shape [", X.size(0),
                 "], but got ", y.shape());
  if (rows.defined()) {
    ops::check_dtype(op, {"rows", rows}, kInt64);
    ops::check_dim(op, {"rows", rows}, 1);
  }
  const Device device = X.device();
  const std::size_t n = layers.size();
  if (weight_grads.size() != n || weight_grads.front().device() != device) {
    weight_grads.clear();
    bias_grads.clear();
    for (const Linear* l : layers) {
      weight_grads.push_back(empty(l->weight.shape(), device));
      bias_grads.push_back(empty(l->bias.shape(), device));
    }
  }
  args.w.resize(n), args.b.resize(n), args.dw.resize(n), args.db.resize(n);
  for (std::size_t l = 0; l < n; ++l) {
    TORCHLET_CHECK(layers[l]->weight.device() == device && layers[l]->weight.is_contiguous(),
                   "FusedMlp: Expected contiguous parameters on ", device);
    args.w[l] = layers[l]->weight.data_ptr<float>();
    args.b[l] = layers[l]->bias.data_ptr<float>();
    args.dw[l] = weight_grads[l].data_ptr<float>();
    args.db[l] = bias_grads[l].data_ptr<float>();
  }
  args.x = X.contiguous(), args.t = y.contiguous();
  args.r = rows.defined() ? rows.contiguous() : Tensor();
  args.step = backend::MlpStep{static_cast<int>(n),
                               widths.data(),
                               args.w.data(),
                               args.b.data(),
                               args.dw.data(),
                               args.db.data(),
                               args.x.data_ptr<float>(),
                               args.t.data_ptr<int64_t>(),
                               args.x.size(0),
                               args.r.defined() ? args.r.data_ptr<int64_t>() : nullptr,
                               args.r.defined() ? args.r.numel() : args.x.size(0),
                               nullptr};
  TORCHLET_CHECK(args.step.n > 0, "FusedMlp: Expected at least one row, but got none");
}

void FusedMlp::publish_grads() {
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    layers_[l]->weight.set_grad(weight_grads_[l]);
    layers_[l]->bias.set_grad(bias_grads_[l]);
  }
}

Tensor FusedMlp::loss_and_grads(const Tensor& X, const Tensor& y, const Tensor& rows) {
  StepArgs args;
  make_step(layers_, widths_, weight_grads_, bias_grads_, X, y, rows, args);
  Tensor loss = make_tensor(Shape{}, kFloat32, X.device());
  args.step.loss = loss.data_ptr<float>();
  fused_kernels(loss).mlp_step(args.step);
  publish_grads();
  return loss;
}

Tensor FusedMlp::train_sgd(const Tensor& X, const Tensor& y, const optim::SGD& sgd, int64_t steps) {
  TORCHLET_CHECK(steps > 0, "FusedMlp::train_sgd: Expected steps > 0, but got ", steps);
  TORCHLET_CHECK(sgd.momentum() == 0.0,
                 "FusedMlp::train_sgd: Expected SGD without momentum, "
                 "but got momentum ",
                 sgd.momentum(), " (use loss_and_grads and step())");
  TORCHLET_CHECK(sgd.param_groups().size() == 1 && !sgd.param_groups().front().maximize,
                 "FusedMlp::train_sgd: Expected SGD with one parameter group and no maximize, "
                 "but got ",
                 sgd.param_groups().size(), " groups (use loss_and_grads and step())");
  for (const Linear* l : layers_)
    for (const Tensor* p : {&l->weight, &l->bias}) {
      bool held = false;
      for (const Tensor& q : sgd.parameters()) held = held || q.is_same(*p);
      TORCHLET_CHECK(held,
                     "FusedMlp::train_sgd: Expected an SGD optimizer over this model's "
                     "parameters, but one of them is not among its parameters");
    }
  StepArgs args;
  make_step(layers_, widths_, weight_grads_, bias_grads_, X, y, Tensor(), args);
  Tensor losses = make_tensor(Shape{steps}, kFloat32, X.device());
  const backend::MlpSgd update{static_cast<float>(sgd.lr()),
                               static_cast<float>(sgd.weight_decay())};
  fused_kernels(losses).mlp_sgd_steps(args.step, update, steps, losses.data_ptr<float>());
  publish_grads();
  return losses;
}

}  // namespace torchlet::nn
