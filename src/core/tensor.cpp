// Tensor's accessors, autograd fields, reading values back, printing, and the factories.
#include <cmath>
#include <cstring>
#include <sstream>

#include "autograd/node.h"
#include "backends/recorder.h"
#include "core/random_generator.h"
#include "core/tensor_impl.h"
#include "torchlet/error.h"

namespace torchlet {

namespace {

const TensorImpl& checked(const TensorImpl* impl) {
  TORCHLET_CHECK(impl,
                 "Expected a defined tensor, but got an undefined Tensor() (a default-"
                 "constructed handle, or a grad() that backward() has not filled yet)");
  return *impl;
}

// Refuses what a compiled step cannot record: a value the host would read once and freeze.
void check_not_recording(const char* op, const char* why) {
  TORCHLET_CHECK(!backend::active_recorder(), "compile: Expected a step that only runs device ",
                 "kernels, but got ", op, " inside it (", why, "); call it outside the step");
}

}  // namespace

Storage::Storage(backend::Backend& owner, std::size_t size) : backend(&owner), nbytes(size) {
  backend::Recorder* recorder = backend::active_recorder();
  if (recorder && &recorder->target() == &owner) {
    pool = recorder->pool();
    data = pool->allocate(size);
  } else {  // through routed(): a test's counting backend sees the call
    data = backend::routed(owner).allocate(size);
  }
}

Storage::Storage(backend::Backend& owner, void* foreign_data, std::size_t size,
                 std::function<void(void*)> deleter)
    : backend(&owner),
      nbytes(size),
      data(foreign_data),
      foreign(true),
      deleter(std::move(deleter)) {}

Storage::~Storage() {
  if (foreign) {
    if (deleter) deleter(data);
    return;
  }
  backend::Recorder* recorder = backend::active_recorder();
  const bool recording = recorder && &recorder->target() == backend;
  if (pool && recording && pool != recorder->pool())  // an earlier recording's block
    pool->hand_over(data, nbytes, *recorder->pool());
  else if (pool)
    pool->deallocate(data, nbytes);
  else if (recording)
    recorder->pool()->retain(data, nbytes);
  else
    backend::routed(*backend).deallocate(data, nbytes);
}

Shape contiguous_strides(const Shape& shape) {
  Shape strides = shape;
  int64_t stride = 1;
  for (int d = shape.size() - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

Tensor make_tensor(const Shape& shape, DType dtype, const Device& device) {
  for (int64_t s : shape)
    TORCHLET_CHECK(s >= 0, "Expected non-negative sizes, but got shape ", shape);
  backend::Backend& owner = backend::get(device);
  auto storage = std::make_shared<Storage>(owner, shape.numel() * element_size(dtype));
  return Tensor(
      std::make_shared<TensorImpl>(std::move(storage), 0, shape, contiguous_strides(shape), dtype));
}

const Shape& Tensor::shape() const { return checked(impl_.get()).shape; }
const Shape& Tensor::strides() const { return checked(impl_.get()).strides; }
int Tensor::dim() const { return shape().size(); }
int64_t Tensor::numel() const { return shape().numel(); }
DType Tensor::dtype() const { return checked(impl_.get()).dtype; }
Device Tensor::device() const { return checked(impl_.get()).device(); }

int64_t Tensor::size(int64_t d) const { return shape()[normalize_dim("size", d, dim())]; }

bool Tensor::is_contiguous() const {
  const Shape& s = shape();
  int64_t expected = 1;
  for (int d = s.size() - 1; d >= 0; --d) {
    if (s[d] != 1 && impl_->strides[d] != expected) return false;
    expected *= s[d];
  }
  return true;
}

template <typename T>
T* Tensor::data_ptr() const {
  TORCHLET_CHECK(dtype() == dtype_of<T>(), "data_ptr: Expected a tensor of dtype ", dtype_of<T>(),
                 ", but got ", dtype());
  return static_cast<T*>(impl_->data());
}
template float* Tensor::data_ptr<float>() const;
template double* Tensor::data_ptr<double>() const;
template int64_t* Tensor::data_ptr<int64_t>() const;
template bool* Tensor::data_ptr<bool>() const;

// --- autograd fields ---------------------------------------------------------------------------

bool Tensor::requires_grad() const {
  const TensorImpl& impl = checked(impl_.get());
  return impl.requires_grad || impl.grad_fn;
}

Tensor& Tensor::set_requires_grad(bool requires_grad) {
  TORCHLET_CHECK(is_leaf(),
                 "set_requires_grad: Expected a leaf tensor, but got the result of an "
                 "op (call detach() first to make a new leaf)");
  TORCHLET_CHECK(!requires_grad || is_floating_point(dtype()),
                 "set_requires_grad: Expected a float32 or float64 "
                 "tensor (only floating-point tensors have gradients), but got ",
                 dtype());
  impl_->requires_grad = requires_grad;
  return *this;
}

bool Tensor::is_leaf() const { return !checked(impl_.get()).grad_fn; }
Tensor Tensor::grad() const { return checked(impl_.get()).grad; }

void Tensor::set_grad(const Tensor& grad) const {
  checked(impl_.get());
  TORCHLET_CHECK(!grad.defined() || (grad.shape() == shape() && grad.device() == device()),
                 "set_grad: Expected a gradient of shape ", shape(), " on ", device(),
                 ", but got shape ", grad.shape(), " on ", grad.device());
  impl_->grad = grad;
}

void Tensor::backward(const Tensor& gradient, bool retain_graph, bool create_graph) const {
  checked(impl_.get());
  TORCHLET_CHECK(!create_graph,
                 "backward: Expected create_graph=false (a differentiable backward is not "
                 "supported), but got true");
  autograd::run_backward(*this, gradient, retain_graph);
}

const std::shared_ptr<autograd::Node>& Tensor::grad_fn() const {
  return checked(impl_.get()).grad_fn;
}

void Tensor::add_hook(std::function<Tensor(const Tensor&)> hook) const {
  checked(impl_.get());
  TensorImpl& impl = *impl_;
  TORCHLET_CHECK(impl.requires_grad,
                 "register_hook: Expected a tensor that requires grad, but got one that does not");
  if (impl.grad_fn)
    impl.grad_fn->pre_hooks.push_back(std::move(hook));
  else
    impl.hooks.push_back(std::move(hook));
}

// --- reading values ----------------------------------------------------------------------------

template <typename T>
std::vector<T> Tensor::to_vector() const {
  check_not_recording("to_vector()", "a read to the host, whose value would be frozen");
  Tensor src = to(dtype_of<T>()).contiguous();
  std::vector<T> out(static_cast<std::size_t>(src.numel()));
  if constexpr (std::is_same_v<T, bool>) {
    auto bytes = std::make_unique<bool[]>(out.size());
    backend_of(src).copy_to_host(bytes.get(), src.impl()->data(), out.size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = bytes[i];
  } else {
    backend_of(src).copy_to_host(out.data(), src.impl()->data(), out.size() * sizeof(T));
  }
  return out;
}
template std::vector<float> Tensor::to_vector<float>() const;
template std::vector<double> Tensor::to_vector<double>() const;
template std::vector<int64_t> Tensor::to_vector<int64_t>() const;
template std::vector<bool> Tensor::to_vector<bool>() const;

template <typename T>
T Tensor::item() const {
  TORCHLET_CHECK(numel() == 1, "item: Expected a tensor with one element, but got shape ", shape());
  check_not_recording("item()", "a read to the host, whose value would be frozen");
  // The common case (the tensor's own dtype) reads the one element where it lies: no
  // conversion, no copy to a contiguous tensor, no vector (a per-epoch loss.item() pays this).
  if (dtype() == dtype_of<T>()) {
    T value;
    backend_of(*this).copy_to_host(&value, impl_->data(), sizeof(T));
    return value;
  }
  return to_vector<T>()[0];
}
template float Tensor::item<float>() const;
template double Tensor::item<double>() const;  // exact for float64 and float32 tensors
template int64_t Tensor::item<int64_t>() const;
template bool Tensor::item<bool>() const;

template <>
int Tensor::item<int>() const {
  return static_cast<int>(item<int64_t>());
}

float Tensor::item() const { return item<float>(); }

std::string Tensor::str() const {
  if (!defined()) return "Tensor(undefined)";
  std::ostringstream out;
  out << "tensor(";
  auto values = [&]<typename T>() {
    const auto v = to_vector<T>();
    out << "[";
    for (std::size_t i = 0; i < v.size() && i < 20; ++i) out << (i ? ", " : "") << v[i];
    out << (v.size() > 20 ? ", ...]" : "]");
  };
  if (dtype() == kFloat32)
    values.template operator()<float>();
  else if (dtype() == kFloat64)
    values.template operator()<double>();
  else
    values.template operator()<int64_t>();
  out << ", shape=" << shape() << ", dtype=" << dtype() << ", device=" << device();
  if (requires_grad()) out << ", requires_grad=true";
  out << ")";
  return out.str();
}

std::ostream& operator<<(std::ostream& out, const Tensor& tensor) { return out << tensor.str(); }

// --- factories ---------------------------------------------------------------------------------

namespace {

template <typename T>
Tensor from_host(const std::vector<T>& values, const Shape& shape, const Device& device) {
  TORCHLET_CHECK(static_cast<int64_t>(values.size()) == shape.numel(), "tensor: Expected ",
                 shape.numel(), " values for shape ", shape, ", but got ", values.size());
  Tensor t = make_tensor(shape, dtype_of<T>(), device);
  backend_of(t).copy_from_host(t.impl()->data(), values.data(), values.size() * sizeof(T));
  return t;
}

Tensor with_grad(Tensor t, const TensorOptions& options) {
  if (options.requires_grad) t.set_requires_grad(true);
  return t;
}

// Values made on the host by `draw` (doubles, rounded once to float32 for a float32 tensor),
// then moved to the options' device.
template <typename Draw>
Tensor random_tensor(const Shape& shape, const TensorOptions& options, Draw&& draw) {
  TORCHLET_CHECK(is_floating_point(options.dtype),
                 "Expected dtype float32 or float64 for a random tensor, but got ", options.dtype);
  check_not_recording("a random tensor (rand, uniform, randn)",
                      "its values are drawn on the host and would be frozen");
  auto make = [&]<typename T>() {
    std::vector<T> values(static_cast<std::size_t>(shape.numel()));
    for (T& v : values) v = static_cast<T>(draw());
    return with_grad(from_host(values, shape, options.device), options);
  };
  if (options.dtype == kFloat64) return make.template operator()<double>();
  return make.template operator()<float>();
}

}  // namespace

Tensor tensor(const std::vector<float>& values, const Shape& shape, const Device& device) {
  return from_host(values, shape, device);
}
Tensor tensor(const std::vector<double>& values, const Shape& shape, const Device& device) {
  return from_host(values, shape, device);
}
Tensor tensor(const std::vector<int64_t>& values, const Shape& shape, const Device& device) {
  return from_host(values, shape, device);
}
Tensor tensor(const std::vector<float>& values, const Device& device) {
  return from_host(values, Shape{static_cast<int64_t>(values.size())}, device);
}
Tensor tensor(const std::vector<double>& values, const Device& device) {
  return from_host(values, Shape{static_cast<int64_t>(values.size())}, device);
}
Tensor tensor(const std::vector<int64_t>& values, const Device& device) {
  return from_host(values, Shape{static_cast<int64_t>(values.size())}, device);
}

Tensor empty(const Shape& shape, const TensorOptions& options) {
  return with_grad(make_tensor(shape, options.dtype, options.device), options);
}

Tensor full(const Shape& shape, double value, const TensorOptions& options) {
  Tensor t = make_tensor(shape, options.dtype, options.device);
  backend_of(t).fill(t.impl()->data(), t.dtype(), t.numel(), value);
  return with_grad(t, options);
}
Tensor zeros(const Shape& shape, const TensorOptions& options) { return full(shape, 0.0, options); }
Tensor ones(const Shape& shape, const TensorOptions& options) { return full(shape, 1.0, options); }

Tensor rand(const Shape& shape, const TensorOptions& options) {
  return uniform(shape, 0.0, 1.0, options);
}

Tensor uniform(const Shape& shape, double low, double high, const TensorOptions& options) {
  TORCHLET_CHECK(low <= high, "uniform: Expected low <= high, but got low ", low, " and high ",
                 high);
  return random_tensor(shape, options, [&] { return low + (high - low) * random::next_double(); });
}

Tensor randn(const Shape& shape, const TensorOptions& options) {
  return random_tensor(shape, options, [] { return random::next_normal(); });
}

namespace {

// PyTorch refuses an end on the wrong side of start for the step's sign (an empty range of
// length 0 is fine).
void check_arange_direction(double start, double end, double step) {
  TORCHLET_CHECK(step > 0 ? end >= start : end <= start, "arange: Expected end ",
                 step > 0 ? ">=" : "<=", " start for a ", step > 0 ? "positive" : "negative",
                 " step, but got start ", start, ", end ", end, ", step ", step);
}

}  // namespace

Tensor arange(int64_t end, const TensorOptions& options) { return arange(0, end, 1, options); }

Tensor arange(int64_t start, int64_t end, int64_t step, const TensorOptions& options) {
  TORCHLET_CHECK(step != 0, "arange: Expected a non-zero step, but got 0");
  check_arange_direction(static_cast<double>(start), static_cast<double>(end),
                         static_cast<double>(step));
  const int64_t n = std::max<int64_t>(0, (end - start + step - (step > 0 ? 1 : -1)) / step);
  std::vector<int64_t> values(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[i] = start + i * step;
  return with_grad(from_host(values, Shape{n}, options.device).to(options.dtype), options);
}

Tensor arange_floating(double start, double end, double step, const TensorOptions& options) {
  TORCHLET_CHECK(step != 0.0, "arange: Expected a non-zero step, but got 0");
  TORCHLET_CHECK(std::isfinite(start) && std::isfinite(end) && std::isfinite(step),
                 "arange: Expected finite bounds and step, but got start ", start, ", end ", end,
                 ", step ", step);
  check_arange_direction(start, end, step);
  TORCHLET_CHECK(options.dtype != kBool, "arange: Expected a numeric dtype, but got bool");
  const double count = std::ceil((end - start) / step);
  TORCHLET_CHECK(count < 1e12, "arange: Expected fewer than 1e12 values, but (", end, " - ", start,
                 ") / ", step, " asks for ", count);
  const auto n = static_cast<int64_t>(std::max(0.0, count));
  std::vector<double> values(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[i] = start + static_cast<double>(i) * step;
  return with_grad(from_host(values, Shape{n}, options.device).to(options.dtype), options);
}

}  // namespace torchlet
