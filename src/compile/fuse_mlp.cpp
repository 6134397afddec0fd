// fuse_mlp: walks a recording once, front to back, expecting the kernels that the ops layer and
// the autograd engine issue for an MLP's step (linear.cpp, relu.cpp, cross_entropy.cpp,
// engine.cpp, optimizer.cpp), and checks that every pointer flows from the call that made it.
// Any other kernel, order or pointer means "not this pattern": the plain replay runs instead.
#include "compile/fuse_mlp.h"

#include <cstddef>

namespace torchlet::compile_detail {

namespace {

using backend::RecordedCall;
using Kind = RecordedCall::Kind;

struct Layer {
  float* weight;
  float* bias;
  const void* input;   // [n, in]
  const void* z;       // x w^T + b, [n, out]
  const void* output;  // z, or relu(z) between layers
  int64_t in, out;
  float* weight_grad = nullptr;
  float* bias_grad = nullptr;
};

// The next call if it has this kind, else null; advances past it.
class Cursor {
 public:
  explicit Cursor(const std::vector<RecordedCall>& calls) : calls_(calls) {}
  const RecordedCall* next(Kind kind) {
    if (i_ >= calls_.size() || calls_[i_].kind != kind) return nullptr;
    return &calls_[i_++];
  }
  bool done() const { return i_ == calls_.size(); }

 private:
  const std::vector<RecordedCall>& calls_;
  std::size_t i_ = 0;
};

bool is_gemm(const RecordedCall* g, bool trans_a, std::initializer_list<const void*> ab,
             std::initializer_list<int64_t> sizes) {
  if (!g || g->trans_a != trans_a || g->trans_b) return false;
  auto p = ab.begin();
  if (g->ptr[0] != p[0] || g->ptr[1] != p[1]) return false;
  auto s = sizes.begin();
  for (std::size_t k = 0; k < sizes.size(); ++k)
    if (g->size[k] != s[k]) return false;
  return true;
}

// The forward: Linear (ReLU, Linear)* on one input, then the cross-entropy into `loss`.
const RecordedCall* forward(Cursor& at, std::vector<Layer>& layers, const void* loss) {
  int64_t n = -1;
  for (;;) {
    const RecordedCall* lin = at.next(Kind::LinearForward);
    if (!lin || !lin->ptr[2]) return nullptr;
    if (n < 0) n = lin->size[0];
    if (lin->size[0] != n) return nullptr;
    if (!layers.empty() &&
        (lin->ptr[0] != layers.back().output || lin->size[1] != layers.back().out))
      return nullptr;
    layers.push_back({const_cast<float*>(static_cast<const float*>(lin->ptr[1])),
                      const_cast<float*>(static_cast<const float*>(lin->ptr[2])), lin->ptr[0],
                      lin->ptr[3], lin->ptr[3], lin->size[1], lin->size[2]});
    const RecordedCall* relu = at.next(Kind::ReluForward);
    if (!relu) break;
    if (relu->ptr[0] != layers.back().z || relu->size[0] != n * layers.back().out) return nullptr;
    layers.back().output = relu->ptr[1];
  }
  const RecordedCall* ce = at.next(Kind::CrossEntropyForward);
  if (!ce || ce->ptr[0] != layers.back().z || ce->ptr[2] != loss || ce->size[0] != n ||
      ce->size[1] != layers.back().out)
    return nullptr;
  return ce;
}

// The backward from the loss: the cross-entropy's, then per layer from the last: dX (not for
// the first layer), dW, db, and the ReLU's.
bool backward(Cursor& at, std::vector<Layer>& layers, const RecordedCall& ce) {
  const int64_t n = ce.size[0];
  const RecordedCall* one = at.next(Kind::FillOne);
  const RecordedCall* ceb = at.next(Kind::CrossEntropyBackward);
  if (!one || one->size[0] != 1 || !ceb || ceb->ptr[0] != ce.ptr[3] || ceb->ptr[1] != ce.ptr[1] ||
      ceb->ptr[2] != one->ptr[0])
    return false;
  const void* dz = ceb->ptr[3];
  for (std::size_t l = layers.size(); l-- > 0;) {
    Layer& layer = layers[l];
    const int64_t in = layer.in, out = layer.out;
    const void* da = nullptr;
    if (l > 0) {  // dX [n, in] = dz W
      const RecordedCall* g = at.next(Kind::Gemm);
      if (!is_gemm(g, false, {dz, layer.weight}, {n, in, out, out, in, in})) return false;
      da = g->ptr[2];
    }
    const RecordedCall* dw = at.next(Kind::Gemm);  // dW [out, in] = dz^T input
    if (!is_gemm(dw, true, {dz, layer.input}, {out, in, n, out, in, in})) return false;
    layer.weight_grad = static_cast<float*>(const_cast<void*>(dw->ptr[2]));
    const RecordedCall* db = at.next(Kind::SumDim);
    if (!db || db->ptr[0] != dz || db->size[0] != 1 || db->size[1] != n || db->size[2] != out)
      return false;
    layer.bias_grad = static_cast<float*>(const_cast<void*>(db->ptr[1]));
    if (l == 0) break;
    const RecordedCall* relu = at.next(Kind::ReluBackward);
    if (!relu || relu->ptr[0] != layers[l - 1].z || relu->ptr[1] != da || relu->size[0] != n * in)
      return false;
    dz = relu->ptr[2];
  }
  return true;
}

// The SGD step updates exactly every weight and bias with its gradient.
bool updates_the_layers(const RecordedCall& sgd, const std::vector<Layer>& layers) {
  if (sgd.updates.size() != 2 * layers.size()) return false;
  for (const Layer& layer : layers) {
    int found = 0;
    for (const backend::ParamUpdate& u : sgd.updates) {
      found +=
          u.param == layer.weight && u.grad == layer.weight_grad && u.n == layer.in * layer.out;
      found += u.param == layer.bias && u.grad == layer.bias_grad && u.n == layer.out;
    }
    if (found != 2) return false;
  }
  return true;
}

// The MlpStep of the layers, with the arrays it points to.
struct FusedStep {
  std::vector<int64_t> widths;
  std::vector<float*> weight, bias, weight_grad, bias_grad;
  backend::MlpStep step{};

  FusedStep(const std::vector<Layer>& layers, const RecordedCall& ce) {
    widths.push_back(layers.front().in);
    for (const Layer& l : layers) {
      widths.push_back(l.out);
      weight.push_back(l.weight), bias.push_back(l.bias);
      weight_grad.push_back(l.weight_grad), bias_grad.push_back(l.bias_grad);
    }
    const int64_t n = ce.size[0];
    step = {static_cast<int>(layers.size()),
            nullptr,
            nullptr,
            nullptr,
            nullptr,
            nullptr,
            static_cast<const float*>(layers.front().input),
            static_cast<const int64_t*>(ce.ptr[1]),
            n,
            nullptr,
            n,
            static_cast<float*>(const_cast<void*>(ce.ptr[2]))};
  }
  // The step with its arrays (this object may have moved since it was made).
  backend::MlpStep get() const {
    backend::MlpStep s = step;
    s.widths = widths.data(), s.weight = weight.data(), s.bias = bias.data();
    s.weight_grad = weight_grad.data(), s.bias_grad = bias_grad.data();
    return s;
  }
};

}  // namespace

std::function<void()> fuse_mlp(const std::vector<RecordedCall>& calls, backend::Backend& target,
                               const void* loss) {
  backend::FusedMlpKernels* kernels = target.fused_mlp();
  if (!kernels) return {};
  Cursor at(calls);
  std::vector<Layer> layers;
  const RecordedCall* ce = forward(at, layers, loss);
  if (!ce || !backward(at, layers, *ce)) return {};
  const RecordedCall* sgd = at.next(Kind::SgdStep);
  if (!sgd || !at.done() || !updates_the_layers(*sgd, layers)) return {};
  const backend::SgdOptions& o = sgd->sgd;
  if (o.momentum == 0.0 && !o.maximize) {  // the fused kernel's plain SGD
    const backend::MlpSgd update{static_cast<float>(o.lr), static_cast<float>(o.weight_decay)};
    return [kernels, fused = FusedStep(layers, *ce), update] {
      const backend::MlpStep s = fused.get();
      kernels->mlp_sgd_steps(s, update, 1, s.loss);
    };
  }
  return [kernels, &target, fused = FusedStep(layers, *ce), updates = sgd->updates, o] {
    kernels->mlp_step(fused.get());
    target.sgd_step(updates.data(), static_cast<int>(updates.size()), o);
  };
}

}  // namespace torchlet::compile_detail
