// index_select: gathers rows of a tensor by index, how training draws mini-batches.
#include "ops/common.h"
#include "torchlet/autograd.h"
#include "torchlet/functional.h"

namespace torchlet {

Tensor index_select(const Tensor& x, const Tensor& index) {
  ops::check_defined("index_select", {"self", x});
  ops::check_defined("index_select", {"index", index});
  ops::check_same_device("index_select", {{"self", x}, {"index", index}});
  ops::check_dtype("index_select", {"index", index}, kInt64);
  ops::check_dim("index_select", {"index", index}, 1);
  TORCHLET_CHECK(x.dim() >= 1,
                 "index_select: Expected a tensor with at least one dimension, "
                 "but got shape ",
                 x.shape());
  const int64_t rows = x.shape()[0];
  TORCHLET_CHECK(!(is_grad_enabled() && x.requires_grad()),
                 "index_select: Expected a tensor "
                 "that does not require grad (index_select is not differentiable), but got one "
                 "that does");
  Tensor src = x.contiguous();
  Shape shape = x.shape();
  shape[0] = index.numel();
  Tensor out = make_tensor(shape, x.dtype(), x.device());
  const std::size_t row_bytes = (rows ? x.numel() / rows : 0) * element_size(x.dtype());
  Tensor idx = index.contiguous();
  // The backend checks the indices (a GPU without waiting for them: see backend.h).
  backend_of(out).gather_rows(src.impl()->data(), rows, idx.data_ptr<int64_t>(), out.impl()->data(),
                              index.numel(), row_bytes);
  return out;
}

}  // namespace torchlet
