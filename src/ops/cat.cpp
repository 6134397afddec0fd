// Joining and cutting tensors: cat, stack, split, chunk and repeat. cat copies each input into
// its slice of the output; its gradient is the matching slice of the output's gradient. split
// and chunk return views; stack and repeat are made of views and cat.
#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace {

// A node has at most autograd::kMaxInputs inputs, so a longer list is joined in groups.
struct CatBackward final : autograd::Node {
  const char* name() const override { return "CatBackward0"; }
  autograd::Grads apply(const Tensor& g) override {
    autograd::Grads grads;
    for (int i = 0; i < inputs; ++i)
      if (needs_grad(i)) grads[i] = g.narrow(dim, offsets[i], sizes[i]);
    return grads;
  }
  int inputs = 0, dim = 0;
  std::array<int64_t, autograd::kMaxInputs> offsets{}, sizes{};
};

Tensor cat_group(const std::vector<Tensor>& tensors, int d, DType dtype) {
  Shape shape = tensors[0].shape();
  int64_t total = 0;
  for (const Tensor& t : tensors) total += t.shape()[d];
  shape[d] = total;
  Tensor out = make_tensor(shape, dtype, tensors[0].device());
  int64_t offset = 0;
  {
    NoGradGuard no_grad;
    for (const Tensor& t : tensors) {
      out.narrow(d, offset, t.shape()[d]).copy_(t);
      offset += t.shape()[d];
    }
  }
  if (tensors.size() <= static_cast<std::size_t>(autograd::kMaxInputs)) {
    std::vector<const Tensor*> inputs;
    for (const Tensor& t : tensors) inputs.push_back(&t);
    bool record = false;
    for (const Tensor* t : inputs) record = record || autograd::needs_grad({t});
    if (record) {
      auto node = std::make_shared<CatBackward>();
      node->inputs = static_cast<int>(tensors.size());
      node->dim = d;
      int64_t at = 0;
      for (int i = 0; i < node->inputs; ++i) {
        node->offsets[i] = at;
        node->sizes[i] = tensors[i].shape()[d];
        at += node->sizes[i];
      }
      const Tensor none;
      autograd::connect(out, node,
                        {inputs[0], inputs.size() > 1 ? inputs[1] : &none,
                         inputs.size() > 2 ? inputs[2] : &none});
    }
  }
  return out;
}

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  TORCHLET_CHECK(!tensors.empty(), "cat: Expected a non-empty list of tensors");
  for (std::size_t i = 0; i < tensors.size(); ++i)
    TORCHLET_CHECK(tensors[i].defined(), "cat: Expected defined tensors, but tensor ", i,
                   " is an undefined Tensor()");
  const Tensor& first = tensors[0];
  const int d = normalize_dim("cat", dim, first.dim());
  DType dtype = first.dtype();
  for (std::size_t i = 1; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    ops::check_same_device("cat", {{"tensors[0]", first}, {"tensors[i]", t}});
    TORCHLET_CHECK(t.dim() == first.dim(), "cat: Expected tensors with ", first.dim(),
                   " dimensions (as tensor 0), but tensor ", i, " has shape ", t.shape());
    for (int k = 0; k < first.dim(); ++k)
      TORCHLET_CHECK(k == d || t.shape()[k] == first.shape()[k],
                     "cat: Sizes of tensors must "
                     "match except in dimension ",
                     d, ". Expected size ", first.shape()[k], " but got size ", t.shape()[k],
                     " for tensor number ", i, " in the list.");
    dtype = promote_types(dtype, t.dtype());
  }
  const std::size_t group = autograd::kMaxInputs;
  if (tensors.size() <= group || !is_grad_enabled()) {
    std::vector<Tensor> promoted;
    for (const Tensor& t : tensors) promoted.push_back(t.to(dtype));
    return cat_group(promoted, d, dtype);
  }
  // More inputs than a node has edges: join them in groups, then the groups.
  std::vector<Tensor> joined;
  for (std::size_t i = 0; i < tensors.size(); i += group)
    joined.push_back(cat(std::vector<Tensor>(tensors.begin() + static_cast<std::ptrdiff_t>(i),
                                             tensors.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                                   i + group, tensors.size()))),
                         d));
  return cat(joined, d);
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  TORCHLET_CHECK(!tensors.empty(), "stack: Expected a non-empty list of tensors");
  const int d = normalize_dim("stack", dim, tensors[0].dim() + 1);
  std::vector<Tensor> parts;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    TORCHLET_CHECK(tensors[i].defined() && tensors[i].shape() == tensors[0].shape(),
                   "stack: Expected each tensor to be equal size, but got ", tensors[0].shape(),
                   " at entry 0 and ",
                   tensors[i].defined() ? tensors[i].shape().str() : "undefined", " at entry ", i);
    parts.push_back(tensors[i].unsqueeze(d));
  }
  return cat(parts, d);
}

std::vector<Tensor> Tensor::split(int64_t split_size, int64_t dim) const {
  const int d = normalize_dim("split", dim, this->dim());
  const int64_t size = shape()[d];
  TORCHLET_CHECK(split_size > 0 || (split_size == 0 && size == 0),
                 "split: Expected split_size > 0, but got ", split_size);
  std::vector<Tensor> out;
  for (int64_t start = 0; start < size; start += split_size)
    out.push_back(narrow(d, start, std::min(split_size, size - start)));
  if (out.empty()) out.push_back(*this);
  return out;
}

std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t dim) const {
  TORCHLET_CHECK(chunks > 0, "chunk: Expected chunks > 0, but got ", chunks);
  const int d = normalize_dim("chunk", dim, this->dim());
  const int64_t size = shape()[d];
  return split(size == 0 ? 0 : (size + chunks - 1) / chunks, d);
}

Tensor Tensor::repeat(const std::vector<int64_t>& repeats) const {
  const int nd = dim(), lead = static_cast<int>(repeats.size()) - nd;
  TORCHLET_CHECK(lead >= 0, "repeat: Expected at least ", nd,
                 " repeats (the tensor's dimensions), but got ", repeats.size());
  // Each dimension of size s repeated r times: a new [r] dimension before it, expanded, merged.
  Tensor x = *this;
  for (int i = 0; i < lead; ++i) x = x.unsqueeze(0);
  for (int64_t r : repeats) TORCHLET_CHECK(r >= 0, "repeat: Expected repeats >= 0, but got ", r);
  // One dimension at a time keeps within Shape's kMaxDims.
  for (int i = 0; i < static_cast<int>(repeats.size()); ++i) {
    if (repeats[i] == 1) continue;
    Tensor u = x.unsqueeze(i);
    Shape target = u.shape();
    target[i] = repeats[i];
    std::vector<int64_t> merged = x.shape().vec();
    merged[i] *= repeats[i];
    x = u.expand(target).reshape(Shape(merged));
  }
  return x;
}

}  // namespace torchlet
