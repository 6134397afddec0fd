// matmul: [m, k] x [k, n] -> [m, n] through the backend's GEMM. Transposed views are passed
// to the GEMM as transposes instead of being copied.
#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

// How the GEMM should read a 2-D tensor: directly, transposed, or after a copy.
struct GemmOperand {
  Tensor tensor;  // contiguous, or a transpose of a contiguous tensor
  bool trans;
  int64_t ld;
};

GemmOperand gemm_operand(const Tensor& t) {
  if (t.strides()[1] == 1 && t.strides()[0] >= t.shape()[1]) return {t, false, t.strides()[0]};
  if (t.strides()[0] == 1 && t.strides()[1] >= t.shape()[0]) return {t, true, t.strides()[1]};
  Tensor c = t.contiguous();
  return {c, false, c.shape()[1]};
}

struct MatmulBackward final : autograd::Node {
  const char* name() const override { return "MmBackward0"; }
  autograd::Grads apply(const Tensor& g) override {
    autograd::Grads grads;
    if (needs_grad(0)) grads[0] = mm(g, b.t());  // dA = dC B^T
    if (needs_grad(1)) grads[1] = mm(a.t(), g);  // dB = A^T dC
    return grads;
  }
  Tensor a, b;
};

// out (contiguous [m, n] at element `offset` of out's storage) = a [m, k] x b [k, n], no grads.
void gemm_into(const Tensor& a, const Tensor& b, Tensor& out, int64_t offset) {
  const int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  GemmOperand ga = gemm_operand(a), gb = gemm_operand(b);
  if (a.dtype() == kFloat64)
    backend_of(out).gemm_float64(ga.trans, gb.trans, m, n, k, 1.0, ga.tensor.data_ptr<double>(),
                                 ga.ld, gb.tensor.data_ptr<double>(), gb.ld, 0.0,
                                 out.data_ptr<double>() + offset, n);
  else
    backend_of(out).gemm(ga.trans, gb.trans, m, n, k, 1.0f, ga.tensor.data_ptr<float>(), ga.ld,
                         gb.tensor.data_ptr<float>(), gb.ld, 0.0f, out.data_ptr<float>() + offset,
                         n);
}

Tensor batched_mm(const Tensor& a, const Tensor& b);

// The batched product's gradients, batched products themselves (one node, not one per matrix).
struct BatchedMatmulBackward final : autograd::Node {
  const char* name() const override { return "BmmBackward0"; }
  autograd::Grads apply(const Tensor& g) override {
    autograd::Grads grads;
    if (needs_grad(0)) grads[0] = batched_mm(g, b.transpose(1, 2));
    if (needs_grad(1)) grads[1] = batched_mm(a.transpose(1, 2), g);
    return grads;
  }
  Tensor a, b;
};

// [B, m, k] x [B, k, n]: one GEMM per matrix into one output, and one autograd node.
Tensor batched_mm(const Tensor& a, const Tensor& b) {
  ops::check_same_device("matmul", {{"self", a}, {"other", b}});
  ops::check_dtype("matmul", {"self", a}, is_floating_point(a.dtype()) ? a.dtype() : kFloat32);
  ops::check_dtype("matmul", {"other", b}, a.dtype());
  const int64_t m = a.size(1), n = b.size(2);
  Tensor out = make_tensor(Shape{a.size(0), m, n}, a.dtype(), a.device());
  {
    const Tensor da = a.detach(), db = b.detach();
    for (int64_t i = 0; i < a.size(0); ++i) gemm_into(da[i], db[i], out, i * m * n);
  }
  if (autograd::needs_grad({&a, &b})) {
    auto node = std::make_shared<BatchedMatmulBackward>();
    node->a = a.detach();
    node->b = b.detach();
    autograd::connect(out, node, {&a, &b});
  }
  return out;
}

}  // namespace

// The 2-D product: one GEMM.
Tensor mm(const Tensor& a, const Tensor& b) {
  ops::check_defined("matmul", {"self", a});
  ops::check_defined("matmul", {"other", b});
  ops::check_same_device("matmul", {{"self", a}, {"other", b}});
  // float32 or float64, both the same (as torch.mm).
  ops::check_dtype("matmul", {"self", a}, is_floating_point(a.dtype()) ? a.dtype() : kFloat32);
  ops::check_dtype("matmul", {"other", b}, a.dtype());
  ops::check_dim("matmul", {"self", a}, 2);
  ops::check_dim("matmul", {"other", b}, 2);
  TORCHLET_CHECK(a.shape()[1] == b.shape()[0],
                 "matmul: Expected the inner sizes to match "
                 "([m, k] x [k, n]), but got shapes ",
                 a.shape(), " and ", b.shape());
  Tensor out = make_tensor(Shape{a.shape()[0], b.shape()[1]}, a.dtype(), a.device());
  gemm_into(a, b, out, 0);
  if (autograd::needs_grad({&a, &b})) {
    auto node = std::make_shared<MatmulBackward>();
    node->a = a.detach();
    node->b = b.detach();
    autograd::connect(out, node, {&a, &b});
  }
  return out;
}

// PyTorch's matmul: 1-D operands gain (and lose) a dimension; N-D operands multiply their last two
// dimensions, broadcasting the batch dimensions in front. Batches run as one GEMM when the
// first operand's batch can be folded into its rows (b 2-D), else one GEMM per matrix; each is
// a GEMM into one output with one autograd node (batched_mm).
Tensor matmul(const Tensor& a, const Tensor& b) {
  ops::check_defined("matmul", {"self", a});
  ops::check_defined("matmul", {"other", b});
  TORCHLET_CHECK(a.dim() >= 1 && b.dim() >= 1,
                 "matmul: Expected tensors with at least one "
                 "dimension, but got shapes ",
                 a.shape(), " and ", b.shape());
  if (a.dim() == 2 && b.dim() == 2) return mm(a, b);
  if (a.dim() == 1 && b.dim() == 1) {
    TORCHLET_CHECK(a.size(0) == b.size(0), "matmul: Expected vectors of the same size, but got ",
                   a.shape(), " and ", b.shape());
    return mm(a.unsqueeze(0), b.unsqueeze(1)).reshape({});
  }
  if (a.dim() == 1) return matmul(a.unsqueeze(0), b).squeeze(-2);
  if (b.dim() == 1) return matmul(a, b.unsqueeze(1)).squeeze(-1);
  const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  TORCHLET_CHECK(b.size(-2) == k,
                 "matmul: Expected the inner sizes to match ([..., m, k] x "
                 "[..., k, n]), but got shapes ",
                 a.shape(), " and ", b.shape());
  if (b.dim() == 2) {  // [..., m, k] x [k, n]: the batch folds into the rows
    std::vector<int64_t> out = a.shape().vec();
    out.back() = n;
    return mm(a.reshape({-1, k}), b).reshape(Shape(out));
  }
  const Shape batch_a(std::span<const int64_t>(a.shape().begin(), a.dim() - 2));
  const Shape batch_b(std::span<const int64_t>(b.shape().begin(), b.dim() - 2));
  const Shape batch = ops::broadcast_shape("matmul", batch_a, batch_b);
  std::vector<int64_t> ea = batch.vec(), eb = batch.vec();
  ea.insert(ea.end(), {m, k});
  eb.insert(eb.end(), {k, n});
  const Tensor xa = a.expand(Shape(ea)).reshape({-1, m, k});
  const Tensor xb = b.expand(Shape(eb)).reshape({-1, k, n});
  std::vector<int64_t> out = batch.vec();
  out.insert(out.end(), {m, n});
  if (xa.size(0) == 0) return zeros(Shape(out), TensorOptions(a.dtype()).with_device(a.device()));
  return batched_mm(xa, xb).reshape(Shape(out));
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  ops::check_defined("bmm", {"self", a});
  ops::check_defined("bmm", {"mat2", b});
  ops::check_dim("bmm", {"self", a}, 3);
  ops::check_dim("bmm", {"mat2", b}, 3);
  TORCHLET_CHECK(a.size(0) == b.size(0), "bmm: Expected the same batch size, but got shapes ",
                 a.shape(), " and ", b.shape());
  return matmul(a, b);
}

Tensor addmm(const Tensor& input, const Tensor& a, const Tensor& b, const Scalar& beta,
             const Scalar& alpha) {
  ops::check_dim("addmm", {"mat1", a}, 2);
  ops::check_dim("addmm", {"mat2", b}, 2);
  return input * beta + mm(a, b) * alpha;
}

Tensor baddbmm(const Tensor& input, const Tensor& a, const Tensor& b, const Scalar& beta,
               const Scalar& alpha) {
  return input * beta + bmm(a, b) * alpha;
}

Tensor outer(const Tensor& a, const Tensor& b) {
  ops::check_dim("outer", {"self", a}, 1);
  ops::check_dim("outer", {"vec2", b}, 1);
  return a.unsqueeze(1) * b.unsqueeze(0);
}

Tensor Tensor::matmul(const Tensor& other) const { return torchlet::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& other) const { return torchlet::mm(*this, other); }

}  // namespace torchlet
