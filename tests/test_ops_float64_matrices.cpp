// The float64 matrix products and softmax/cross-entropy rows of the conformance table, against
// PyTorch's float64 numbers (tests/fixtures/ops_golden.json "float64"/"matrices") and central
// finite differences; the CUDA emulator runs them too (tests/cuda_emu/CMakeLists.txt).
#include "conformance.h"
#include "ops_golden.h"
#include "testing.h"

namespace torchlet {
namespace {

using nlohmann::json;
using testing::all_close;

// The matrix products and the softmax/cross-entropy rows (float64 "matrices": a [3, 4], b [4, 2]).
Tensor matrix_row(const std::string& name, const Tensor& a, const Tensor& b) {
  if (name == "matmul") return matmul(a, b);
  if (name == "bmm") return bmm(a.reshape({2, 3, 2}), b.reshape({2, 2, 2}));
  if (name == "softmax") return softmax(a, 1) * b.sum();
  if (name == "log_softmax_dim0") return log_softmax(a, 0) * b.sum();
  return cross_entropy(matmul(a.slice(1, 0, 2), b.slice(0, 0, 2)), tensor({1, 0, 1}));
}

CONFORMANCE_TEST(Float64, MatrixProductsAndSoftmaxMatchPyTorch) {
  const auto values = [](const json& j) { return j.get<std::vector<double>>(); };
  const json& entries = testing::ops_golden()["float64"]["matrices"];
  ASSERT_EQ(entries.size(), 5u);
  for (const json& e : entries) {
    const std::string name = e["name"];
    SCOPED_TRACE(name);
    Tensor a = tensor(values(e["a"]), {3, 4}), b = tensor(values(e["b"]), {4, 2});
    a.set_requires_grad(true);
    b.set_requires_grad(true);
    const Tensor out = matrix_row(name, a, b);
    EXPECT_EQ(out.dtype(), kFloat64);
    EXPECT_EQ(out.shape(), Shape(e["shape"].get<std::vector<int64_t>>()));
    EXPECT_TRUE(all_close(out.to_vector<double>(), values(e["out"]), 1e-12, 1e-12));
    (out * tensor(values(e["w"]), out.shape())).sum().backward();
    EXPECT_TRUE(all_close(a.grad().to_vector<double>(), values(e["grad_a"]), 1e-12, 1e-12));
    EXPECT_TRUE(all_close(b.grad().to_vector<double>(), values(e["grad_b"]), 1e-12, 1e-12));
    testing::expect_gradients_match<double>(
        [&](const auto& v) { return matrix_row(name, v[0], v[1]); },
        {tensor(values(e["a"]), {3, 4}), tensor(values(e["b"]), {4, 2})}, name, 1e-6, 1e-7);
  }
}

}  // namespace
}  // namespace torchlet
