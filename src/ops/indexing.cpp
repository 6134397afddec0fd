// x.index({...}) and x.index_put({...}, v), Python's x[...] (torchlet/indexing.h). Integers,
// slices, None and Ellipsis are views (select, a strided slice, unsqueeze); tensors are advanced
// indexing, a copy made by one index_select over the indexed dimensions merged into one, so the
// gradient comes from the views and index_select. index_put indexes the element positions
// (an arange of self's shape) the same way and scatters or index_adds values there.
#include "torchlet/indexing.h"

#include <algorithm>
#include <vector>

#include "autograd/node.h"
#include "ops/common.h"
#include "torchlet/functional.h"

namespace torchlet {

namespace indexing {

TensorIndex::TensorIndex(const char* ellipsis) : kind_(Kind::Ellipsis) {
  TORCHLET_CHECK(std::string(ellipsis) == "...",
                 "TensorIndex: Expected \"...\" (the only string index), but got \"", ellipsis,
                 "\"");
}

}  // namespace indexing

namespace {

using indexing::TensorIndex;
using Kind = TensorIndex::Kind;

struct StepSliceBackward final : autograd::Node {
  const char* name() const override { return "SliceBackward"; }
  autograd::Grads apply(const Tensor& g) override;
  Shape input_shape;
  int dim;
  int64_t start, step;
};

// t[start::step] along d (a view), count elements; differentiable.
Tensor step_slice(const Tensor& t, int d, int64_t start, int64_t count, int64_t step) {
  if (step == 1) return t.slice(d, start, start + count);
  const TensorImpl& impl = *t.impl();
  Shape shape = t.shape(), strides = t.strides();
  shape[d] = count;
  strides[d] *= step;
  Tensor out(std::make_shared<TensorImpl>(impl.storage, impl.offset + start * t.strides()[d], shape,
                                          strides, impl.dtype));
  if (autograd::needs_grad({&t})) {
    auto node = std::make_shared<StepSliceBackward>();
    node->input_shape = t.shape(), node->dim = d, node->start = start, node->step = step;
    autograd::connect(out, node, {&t});
  }
  return out;
}

autograd::Grads StepSliceBackward::apply(const Tensor& g) {
  Tensor dx = zeros(input_shape, TensorOptions(g.dtype()).with_device(g.device()));
  step_slice(dx, dim, start, g.shape()[dim], step).copy_(g);
  return {dx};
}

// Python's slice.indices(size): the first element and how many there are.
std::pair<int64_t, int64_t> slice_range(const indexing::Slice& s, int64_t size) {
  const int64_t step = s.step().value_or(1);
  TORCHLET_CHECK(step > 0, "index: Expected a slice step greater than 0, but got ", step);
  auto bound = [&](std::optional<int64_t> v, int64_t fallback) {
    if (!v) return fallback;
    const int64_t b = *v < 0 ? *v + size : *v;
    return std::clamp<int64_t>(b, 0, size);
  };
  const int64_t start = bound(s.start(), 0), stop = bound(s.stop(), size);
  return {start, stop > start ? (stop - start + step - 1) / step : 0};
}

// The positions of a bool mask's true elements, one int64 tensor per mask dimension (on the
// mask's device; reading the mask waits for it, as PyTorch's does).
std::vector<Tensor> nonzero_columns(const Tensor& mask) {
  const std::vector<bool> values = mask.to(kCPU).contiguous().to_vector<bool>();
  const int k = mask.dim();
  std::vector<std::vector<int64_t>> columns(static_cast<std::size_t>(k));
  for (std::size_t flat = 0; flat < values.size(); ++flat) {
    if (!values[flat]) continue;
    int64_t rest = static_cast<int64_t>(flat);
    for (int d = k - 1; d >= 0; --d) {
      columns[d].push_back(rest % mask.shape()[d]);
      rest /= mask.shape()[d];
    }
  }
  std::vector<Tensor> out;
  for (const auto& c : columns) out.push_back(tensor(c, mask.device()));
  return out;
}

struct Advanced {
  int dim;     // in the view the basic indices made
  int source;  // in the tensor indexed, for messages
  Tensor index;
};

// An integer tensor's indices with negatives counted from the end, checked against size.
Tensor normalized(const Tensor& index, int64_t size, int dim) {
  const Tensor bad = (index < -size) | (index >= size);
  if (bad.numel() > 0 && bad.any().item<bool>()) {
    const std::vector<int64_t> v = index.to(kCPU).contiguous().to_vector<int64_t>();
    const auto it =
        std::find_if(v.begin(), v.end(), [&](int64_t i) { return i < -size || i >= size; });
    TORCHLET_CHECK_KIND(Index, false, "index: Expected index in [", -size, ", ", size,
                        ") for dimension ", dim, " of size ", size, ", but got ", *it);
  }
  return where(index < 0, index + size, index);
}

Tensor advanced_index(Tensor view, std::vector<Advanced> adv) {
  Shape common = adv[0].index.shape();
  for (const Advanced& a : adv) common = ops::broadcast_shape("index", common, a.index.shape());
  for (Advanced& a : adv) a.index = normalized(a.index, view.shape()[a.dim], a.source);
  bool adjacent = true;
  for (std::size_t i = 1; i < adv.size(); ++i)
    adjacent = adjacent && adv[i].dim == adv[i - 1].dim + 1;
  if (!adjacent) {  // NumPy's rule: the indexed dimensions go first, the result's too
    std::vector<int64_t> order;
    for (const Advanced& a : adv) order.push_back(a.dim);
    for (int d = 0; d < view.dim(); ++d)
      if (std::find(order.begin(), order.end(), d) == order.end()) order.push_back(d);
    view = view.permute(order);
    for (std::size_t i = 0; i < adv.size(); ++i) adv[i].dim = static_cast<int>(i);
  }
  const int first = adv.front().dim, last = adv.back().dim;
  // The indexed dimensions merged into one, addressed by one linear index.
  Tensor linear = zeros(common, TensorOptions(kInt64).with_device(view.device()));
  int64_t block = 1;
  for (auto a = adv.rbegin(); a != adv.rend(); ++a) {
    linear = linear + a->index * block;
    block *= view.shape()[a->dim];
  }
  std::vector<int64_t> merged, out_shape;
  for (int d = 0; d < view.dim(); ++d) {
    if (d < first || d > last) {
      merged.push_back(view.shape()[d]);
      out_shape.push_back(view.shape()[d]);
    } else if (d == first) {
      merged.push_back(block);
      out_shape.insert(out_shape.end(), common.begin(), common.end());
    }
  }
  return index_select(view.reshape(Shape(merged)), first, linear.reshape({-1}))
      .reshape(Shape(out_shape));
}

}  // namespace

Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  ops::check_defined("index", {"self", *this});
  int consumed = 0, ellipses = 0;
  for (const TensorIndex& i : indices) {
    if (i.kind() == Kind::Ellipsis) ++ellipses;
    if (i.kind() == Kind::Integer || i.kind() == Kind::Slice) ++consumed;
    if (i.kind() == Kind::Tensor) {
      ops::check_defined("index", {"indices", i.tensor()});
      ops::check_same_device("index", {{"self", *this}, {"indices", i.tensor()}});
      TORCHLET_CHECK_KIND(Index, !is_floating_point(i.tensor().dtype()),
                          "index: Expected tensors used as indices to be int64 or bool, but got ",
                          i.tensor().dtype());
      consumed += i.tensor().dtype() == kBool ? i.tensor().dim() : 1;
    }
  }
  TORCHLET_CHECK_KIND(Index, ellipses <= 1, "index: Expected at most one Ellipsis, but got ",
                      ellipses);
  TORCHLET_CHECK_KIND(Index, consumed <= dim(), "index: Expected at most ", dim(),
                      " indices (the tensor's dimensions), but got ", consumed);
  Tensor view = *this;
  int d = 0, source = 0;  // the next dimension of view and of *this
  std::vector<Advanced> adv;
  for (const TensorIndex& i : indices) {
    switch (i.kind()) {
      case Kind::None: view = view.unsqueeze(d++); break;
      case Kind::Ellipsis:
        d += dim() - consumed;
        source += dim() - consumed;
        break;
      case Kind::Integer: {
        const int64_t size = view.shape()[d], k = i.integer();
        TORCHLET_CHECK_KIND(Index, k >= -size && k < size, "index: Expected index in [", -size,
                            ", ", size, ") for dimension ", source, " of size ", size, ", but got ",
                            k);
        view = view.select(d, k);
        ++source;
        break;
      }
      case Kind::Slice: {
        const auto [start, count] = slice_range(i.slice(), view.shape()[d]);
        view = step_slice(view, d, start, count, i.slice().step().value_or(1));
        ++d, ++source;
        break;
      }
      case Kind::Tensor: {
        const Tensor& t = i.tensor();
        if (t.dtype() == kInt64) {
          adv.push_back({d++, source++, t});
          break;
        }
        if (t.dim() == 0) {  // x[True] adds a dimension of size 1, x[False] one of size 0
          view = view.unsqueeze(d);
          if (!t.item<bool>()) view = view.slice(d, 0, 0);
          ++d;
          break;
        }
        for (int k = 0; k < t.dim(); ++k)
          TORCHLET_CHECK(t.shape()[k] == view.shape()[d + k], "index: Expected a mask of shape ",
                         t.shape(), " to match the indexed shape at dimension ", d + k,
                         ", but got size ", view.shape()[d + k], " there");
        for (const Tensor& c : nonzero_columns(t)) adv.push_back({d++, source++, c});
        break;
      }
    }
  }
  return adv.empty() ? view : advanced_index(view, std::move(adv));
}

Tensor Tensor::index_put(const std::vector<TensorIndex>& indices, const Tensor& values,
                         bool accumulate) const {
  ops::check_defined("index_put", {"self", *this});
  ops::check_defined("index_put", {"values", values});
  ops::check_same_device("index_put", {{"self", *this}, {"values", values}});
  const Tensor positions = arange(numel(), TensorOptions(kInt64).with_device(device()));
  const Tensor where_to = positions.reshape(shape()).index(indices);
  TORCHLET_CHECK(
      ops::broadcast_shape("index_put", where_to.shape(), values.shape()) == where_to.shape(),
      "index_put: Expected values that broadcast to the indexed shape ", where_to.shape(),
      ", but got ", values.shape());
  const Tensor flat_index = where_to.reshape({-1});
  const Tensor flat_values = values.to(dtype()).expand(where_to.shape()).reshape({-1});
  const Tensor flat = reshape({-1});
  const Tensor out = accumulate ? torchlet::index_add(flat, 0, flat_index, flat_values)
                                : torchlet::scatter(flat, 0, flat_index, flat_values);
  return out.reshape(shape());
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Tensor& values,
                           bool accumulate) {
  return ops::assign_in_place(*this, "index_put_", index_put(indices, values, accumulate));
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Scalar& value) {
  const double v = dtype() == kInt64 ? static_cast<double>(value.to_int64()) : value.to_double();
  return index_put_(indices, full({}, v, TensorOptions(dtype()).with_device(device())));
}

}  // namespace torchlet
