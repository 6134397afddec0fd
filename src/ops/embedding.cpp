// embedding: the rows of a weight that an index tensor lists, gathered by index_select's
// kernel. The backward adds each index's gradient row into its weight row (index_add, one pass
// over the gradient, in the gradient's dtype); the padding row's gradient rows are zeroed first,
// so it gets none.
#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

struct EmbeddingBackward final : autograd::Node {
  const char* name() const override { return "EmbeddingBackward"; }
  autograd::Grads apply(const Tensor& g) override {
    Tensor dy = g.reshape({indices.numel(), weight_shape[1]});
    if (padding_idx) dy = dy * (indices != *padding_idx).unsqueeze(1).to(g.dtype());
    const Tensor dw = zeros(weight_shape, TensorOptions(g.device()).with_dtype(g.dtype()));
    return {Tensor(), index_add(dw, 0, indices, dy)};
  }
  Tensor indices;  // [n]
  std::optional<int64_t> padding_idx;
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
    node->indices = flat;
    node->padding_idx = padding_idx;
    node->weight_shape = weight.shape();
    autograd::connect(out, node, {&input, &weight});
  }
  return out;
}

}  // namespace torchlet
