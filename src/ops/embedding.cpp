// embedding: the rows of a weight that an index tensor lists, gathered by index_select's
// kernel. The backward sums each row's gradients with a GEMM, one_hot(indices)^T dY, in chunks
// of indices that keep the one-hot matrix under kOneHotFloats; the padding row's column of the
// one-hot matrix is left out, so that row gets no gradient.
#include <algorithm>

#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

constexpr int64_t kOneHotFloats = int64_t{8} << 20;  // 32 MB at most

struct EmbeddingBackward final : autograd::Node {
  const char* name() const override { return "EmbeddingBackward"; }
  autograd::Grads apply(const Tensor& g) override {
    const int64_t n = indices.numel(), dim = weight_shape[1], rows = weight_shape[0];
    Tensor dy = g.reshape({n, dim});
    const Tensor classes = arange(rows, TensorOptions(kInt64).with_device(g.device())).unsqueeze(0);
    const int64_t chunk =
        std::clamp<int64_t>(kOneHotFloats / std::max<int64_t>(rows, 1), 1, std::max<int64_t>(n, 1));
    Tensor dw = zeros(weight_shape, g.device());
    for (int64_t first = 0; first < n; first += chunk) {
      const int64_t len = std::min(chunk, n - first);
      const Tensor one_hot = eq(indices.narrow(0, first, len).unsqueeze(1), classes).to(kFloat32);
      dw = dw + matmul(one_hot.t(), dy.narrow(0, first, len));
    }
    return {Tensor(), dw};
  }
  Tensor indices;  // [n], the padding index replaced by -1 (no row)
  Shape weight_shape;
};

}  // namespace

Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx) {
  ops::check_defined("embedding", {"input", input});
  ops::check_defined("embedding", {"weight", weight});
  ops::check_same_device("embedding", {{"weight", weight}, {"input", input}});
  ops::check_dtype("embedding", {"input", input}, kInt64);
  TORCHLET_CHECK(weight.dim() == 2, "embedding: Expected 2-D weight [num_embeddings, ",
                 "embedding_dim], but got weight of shape ", weight.shape());
  const int64_t rows = weight.size(0);
  if (padding_idx) {
    TORCHLET_CHECK(*padding_idx >= -rows && *padding_idx < rows, "embedding: Expected ",
                   "padding_idx in [", -rows, ", ", rows, "), but got ", *padding_idx);
    if (*padding_idx < 0) *padding_idx += rows;
  }
  const Tensor flat = input.reshape({input.numel()});
  Tensor out = index_select(weight.detach(), flat);
  std::vector<int64_t> sizes = input.shape().vec();
  sizes.push_back(weight.size(1));
  out = out.reshape(Shape(sizes));
  if (autograd::needs_grad({&weight})) {
    auto node = std::make_shared<EmbeddingBackward>();
    node->indices = padding_idx ? where(flat == *padding_idx, int64_t{-1}, flat) : flat;
    node->weight_shape = weight.shape();
    autograd::connect(out, node, {&input, &weight});
  }
  return out;
}

}  // namespace torchlet
