// Moving and converting tensors: to(device), to(dtype), contiguous, clone, detach, copy_,
// fill_. Copies between two non-CPU devices go through host memory.
#include <vector>

#include "autograd/node.h"
#include "ops/common.h"

namespace torchlet {

namespace {

// Copies src's elements into dst (same shape, dtype and device), any strides on both sides.
void strided_copy(const Tensor& src, const Tensor& dst) {
  backend::Loop loop{src.shape(), src.strides(), dst.strides()};
  backend_of(dst).strided_copy(src.impl()->data(), dst.impl()->data(), dst.dtype(),
                               ops::coalesce(loop));
}

struct IdentityBackward final : autograd::Node {
  const char* name() const override { return "CloneBackward0"; }
  autograd::Grads apply(const Tensor& g) override { return {g}; }
};

// float32 <-> float64: the gradient converted back to the source's dtype.
struct ToDtypeBackward final : autograd::Node {
  explicit ToDtypeBackward(DType d) : source(d) {}
  const char* name() const override { return "ToCopyBackward0"; }
  autograd::Grads apply(const Tensor& g) override { return {g.to(source)}; }
  DType source;
};

struct ToDeviceBackward final : autograd::Node {
  explicit ToDeviceBackward(const Device& d) : source(d) {}
  const char* name() const override { return "ToCopyBackward0"; }
  autograd::Grads apply(const Tensor& g) override { return {g.to(source)}; }
  Device source;
};

void check_writable(const Tensor& t, const char* op) {
  TORCHLET_CHECK(!(is_grad_enabled() && t.is_leaf() && t.requires_grad()), op,
                 ": Expected a tensor that does not require grad, but got a leaf that requires "
                 "grad; change parameters under NoGradGuard");
}

}  // namespace

Tensor Tensor::to(const Device& device) const {
  if (device == this->device()) return *this;
  Tensor src = contiguous();
  Tensor out = make_tensor(shape(), dtype(), device);
  const std::size_t nbytes = numel() * element_size(dtype());
  void* dst_data = out.impl()->data();
  const void* src_data = src.impl()->data();
  if (src.device().is_cpu()) {
    backend_of(out).copy_from_host(dst_data, src_data, nbytes);
  } else if (device.is_cpu()) {
    backend_of(src).copy_to_host(dst_data, src_data, nbytes);
  } else {
    std::vector<char> staging(nbytes);
    backend_of(src).copy_to_host(staging.data(), src_data, nbytes);
    backend_of(out).copy_from_host(dst_data, staging.data(), nbytes);
  }
  if (autograd::needs_grad({this}))
    autograd::connect(out, std::make_shared<ToDeviceBackward>(this->device()), {this});
  return out;
}

Tensor Tensor::to(DType dtype) const {
  if (dtype == this->dtype()) return *this;
  Tensor src = contiguous();
  Tensor out = make_tensor(shape(), dtype, device());
  backend_of(out).cast(src.impl()->data(), src.dtype(), out.impl()->data(), dtype, numel());
  // Between floating dtypes the conversion is differentiable; to int64 or bool it is not, as in
  // PyTorch.
  if (is_floating_point(dtype) && autograd::needs_grad({this}))
    autograd::connect(out, std::make_shared<ToDtypeBackward>(this->dtype()), {this});
  return out;
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

Tensor Tensor::clone() const {
  Tensor out = make_tensor(shape(), dtype(), device());
  strided_copy(*this, out);
  if (autograd::needs_grad({this}))
    autograd::connect(out, std::make_shared<IdentityBackward>(), {this});
  return out;
}

Tensor Tensor::detach() const {
  const TensorImpl& impl = *this->impl();
  return Tensor(std::make_shared<TensorImpl>(impl.storage, impl.offset, impl.shape, impl.strides,
                                             impl.dtype));
}

namespace {

// t (and its gradient) replaced in place by to(target): every handle to t sees the copy.
template <typename Target>
void replace_in_place(const Tensor& t, const Target& target) {
  TensorImpl& impl = *t.impl();
  if (impl.grad.defined()) replace_in_place(impl.grad, target);
  NoGradGuard no_grad;
  const Tensor copy = t.to(target);
  if (copy.is_same(t)) return;  // already there
  impl.storage = copy.impl()->storage;
  impl.offset = 0;
  impl.strides = copy.strides();
  impl.dtype = copy.dtype();
}

}  // namespace

void move_in_place(const Tensor& t, const Device& device) { replace_in_place(t, device); }
void convert_in_place(const Tensor& t, DType dtype) { replace_in_place(t, dtype); }

Tensor& Tensor::copy_(const Tensor& src) {
  ops::check_defined("copy_", {"src", src});
  TORCHLET_CHECK(src.shape() == shape(), "copy_: Expected a source of shape ", shape(),
                 ", but got ", src.shape());
  check_writable(*this, "copy_");
  strided_copy(src.to(device()).to(dtype()), *this);
  return *this;
}

Tensor& Tensor::fill_(double value) {
  check_writable(*this, "fill_");
  if (is_contiguous())
    backend_of(*this).fill(impl()->data(), dtype(), numel(), value);
  else
    strided_copy(full(shape(), value, TensorOptions(dtype()).with_device(device())), *this);
  return *this;
}

}  // namespace torchlet
