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
  const char* name() const override { return "MatmulBackward"; }
  autograd::Grads apply(const Tensor& g) override {
    autograd::Grads grads;
    if (needs_grad(0)) grads[0] = matmul(g, b.t());  // dA = dC B^T
    if (needs_grad(1)) grads[1] = matmul(a.t(), g);  // dB = A^T dC
    return grads;
  }
  Tensor a, b;
};

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  ops::check_defined("matmul", {"self", a});
  ops::check_defined("matmul", {"other", b});
  ops::check_same_device("matmul", {{"self", a}, {"other", b}});
  ops::check_dtype("matmul", {"self", a}, kFloat32);
  ops::check_dtype("matmul", {"other", b}, kFloat32);
  ops::check_dim("matmul", {"self", a}, 2);
  ops::check_dim("matmul", {"other", b}, 2);
  TORCHLET_CHECK(a.shape()[1] == b.shape()[0],
                 "matmul: Expected the inner sizes to match "
                 "([m, k] x [k, n]), but got shapes ",
                 a.shape(), " and ", b.shape());
  const int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  GemmOperand ga = gemm_operand(a), gb = gemm_operand(b);
  Tensor out = make_tensor(Shape{m, n}, kFloat32, a.device());
  backend_of(out).gemm(ga.trans, gb.trans, m, n, k, 1.0f, ga.tensor.data_ptr<float>(), ga.ld,
                       gb.tensor.data_ptr<float>(), gb.ld, 0.0f, out.data_ptr<float>(), n);
  if (autograd::needs_grad({&a, &b})) {
    auto node = std::make_shared<MatmulBackward>();
    node->a = a.detach();
    node->b = b.detach();
    autograd::connect(out, node, {&a, &b});
  }
  return out;
}

Tensor Tensor::matmul(const Tensor& other) const { return torchlet::matmul(*this, other); }

}  // namespace torchlet
