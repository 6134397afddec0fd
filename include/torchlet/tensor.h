// Tensor: a cheap, shared handle to an n-dimensional array on a device, with autograd.
// Copying a Tensor copies the handle, not the data (as in PyTorch); clone() copies data.
// Only item(), to_vector() and to(kCPU) wait for a device; every other call may return
// before the device has finished the work.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "torchlet/device.h"
#include "torchlet/dtype.h"
#include "torchlet/scalar.h"
#include "torchlet/shape.h"

namespace torchlet {

class TensorImpl;  // src/core/tensor_impl.h
namespace indexing {
class TensorIndex;  // torchlet/indexing.h
}
namespace autograd {
class Node;  // torchlet/autograd/function.h
}

class Tensor {
 public:
  Tensor() = default;  // an undefined tensor: defined() is false
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const noexcept { return impl_ != nullptr; }
  const Shape& shape() const;
  const Shape& sizes() const { return shape(); }
  const Shape& strides() const;
  int dim() const;
  // The size of dimension d; negative d counts from the end.
  int64_t size(int64_t d) const;
  int64_t numel() const;
  DType dtype() const;
  Device device() const;
  bool is_contiguous() const;

  // --- moving and converting -----------------------------------------------------------------
  // A copy on `device`, or this same tensor if it is already there. Differentiable.
  Tensor to(const Device& device) const;
  // A copy converted to `dtype`, or this same tensor if it already has it.
  Tensor to(DType dtype) const;
  Tensor contiguous() const;
  Tensor clone() const;
  // The same data, cut from the autograd graph.
  Tensor detach() const;
  // The single value of a one-element tensor, as float (waits for the device); item<double>() is
  // exact for float32 and float64 tensors, item<int64_t>() for int64.
  float item() const;
  template <typename T>
  T item() const;
  // All values in row-major order (waits for the device).
  template <typename T>
  std::vector<T> to_vector() const;
  // Copies src's values into this tensor (same shape; converts device and dtype).
  Tensor& copy_(const Tensor& src);
  Tensor& fill_(double value);
  Tensor& zero_() { return fill_(0.0); }
  // In place from the generator manual_seed() sets (float32; PyTorch's names): normal values of
  // mean and std, uniform in [from, to), 1 with probability p and 0 otherwise.
  Tensor& normal_(double mean = 0.0, double std = 1.0);
  Tensor& uniform_(double from = 0.0, double to = 1.0);
  Tensor& bernoulli_(double p = 0.5);
  // In-place arithmetic, PyTorch's x.add_(y, alpha) (this + alpha * y), sub_, mul_, div_, and
  // the operators +=, -=, *=, /= below: the result must keep this tensor's shape (only the other
  // operand broadcasts) and fit its dtype (an int64 tensor refuses a floating result); it is
  // written into this tensor's memory, so views of it see it. When autograd records the op
  // (grad mode on and an operand that requires grad), this handle takes the differentiable
  // result instead, a new tensor (other handles keep the old values, where PyTorch would change
  // them too), and a leaf that requires grad is refused, as PyTorch refuses it.
  Tensor& add_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& add_(const Scalar& other, const Scalar& alpha = 1);
  Tensor& sub_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& sub_(const Scalar& other, const Scalar& alpha = 1);
  Tensor& mul_(const Tensor& other);
  Tensor& mul_(const Scalar& other);
  Tensor& div_(const Tensor& other);
  Tensor& div_(const Scalar& other);
  // Raw pointer to the first element, in the tensor's device memory.
  template <typename T>
  T* data_ptr() const;

  // --- autograd ------------------------------------------------------------------------------
  bool requires_grad() const;
  // Marks a leaf tensor as a parameter whose gradient backward() accumulates.
  Tensor& set_requires_grad(bool requires_grad);
  Tensor& requires_grad_(bool requires_grad = true) { return set_requires_grad(requires_grad); }
  bool is_leaf() const;
  // The accumulated gradient (undefined until a backward() reaches this tensor).
  Tensor grad() const;
  // Replaces the gradient (an undefined tensor clears it), as optimizers' zero_grad does.
  void set_grad(const Tensor& grad) const;
  // Computes d(this)/d(leaf) for every leaf that requires grad and adds it to leaf.grad().
  // This tensor must hold one element unless `gradient` (same shape) is given. The graph is
  // freed: a second backward through it throws unless the first one had retain_graph.
  // create_graph (a differentiable backward) is refused with an Error.
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false,
                bool create_graph = false) const;
  // The node that computes this tensor's inputs' gradients (null for a leaf):
  // grad_fn()->name() is PyTorch's, "MulBackward0" (torchlet/autograd/function.h).
  const std::shared_ptr<autograd::Node>& grad_fn() const;
  // hook(grad) runs whenever a backward computes this tensor's gradient (on a leaf: before it
  // is accumulated); a hook returning a defined Tensor replaces the gradient.
  template <typename Hook>
  void register_hook(Hook&& hook) const {
    if constexpr (std::is_void_v<std::invoke_result_t<Hook&, const Tensor&>>)
      add_hook([h = std::forward<Hook>(hook)](const Tensor& g) mutable {
        h(g);
        return Tensor();
      });
    else
      add_hook(std::forward<Hook>(hook));
  }

  // --- views -----------------------------------------------------------------------------------
  // These share storage with this tensor.
  Tensor t() const;                                                 // 2-D transpose
  Tensor slice(int64_t dim, int64_t start, int64_t end) const;      // [start, end) along dim
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;  // slice by length
  // The same elements in a new shape (-1 infers one size): a view when the strides allow it
  // (always for contiguous tensors), else a copy.
  Tensor reshape(const Shape& shape) const;
  // Always a view; throws as PyTorch does when the strides do not allow one (use reshape).
  Tensor view(const Shape& shape) const;
  bool can_view(const Shape& shape) const;
  // N-d views, as PyTorch's: dims reordered, two swapped, a size-1 dimension added or removed,
  // size-1 dimensions repeated with stride 0 (-1 keeps a size), one dimension split in several.
  Tensor permute(const std::vector<int64_t>& dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor expand(const Shape& sizes) const;
  Tensor unflatten(int64_t dim, const std::vector<int64_t>& sizes) const;
  // The sub-tensor at `index` along dim (that dimension removed); x[i] is x.select(0, i).
  Tensor select(int64_t dim, int64_t index) const;
  Tensor operator[](int64_t index) const;
  // Views of pieces of split_size (the last may be smaller) / of `chunks` nearly equal pieces.
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  // The tensor tiled repeats[i] times along dimension i (leading repeats add dimensions).
  Tensor repeat(const std::vector<int64_t>& repeats) const;

  // --- indexing (torchlet/indexing.h, and the free functions of functional.h) ------------------
  // x.index({0, Slice(1, None), None, Ellipsis, t}) as Python's x[0, 1:, None, ..., t]: integers,
  // slices, None and Ellipsis give views; int64 and bool tensors (advanced indexing) give copies.
  Tensor index(const std::vector<indexing::TensorIndex>& indices) const;
  // A copy with index(indices) replaced by (or, with accumulate, increased by) values, broadcast
  // to it; differentiable in this tensor and in values.
  Tensor index_put(const std::vector<indexing::TensorIndex>& indices, const Tensor& values,
                   bool accumulate = false) const;
  // The same in place, as the other in-place ops: differentiable in values, and in this tensor
  // unless it is a leaf that requires grad (which throws, as in PyTorch). When autograd records
  // it, this handle takes the result (views made before do not see the write).
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, const Tensor& values,
                     bool accumulate = false);
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, const Scalar& value);
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source,
                   const Scalar& alpha = 1) const;

  // --- math (see functional.h for the free functions) ------------------------------------------
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& other) const;
  Tensor sum() const;
  Tensor sum(int64_t dim, bool keepdim = false) const;
  Tensor mean() const;
  Tensor mean(int64_t dim, bool keepdim = false) const;
  Tensor argmax(int64_t dim, bool keepdim = false) const;
  Tensor sum(const std::vector<int64_t>& dims, bool keepdim = false) const;
  Tensor mean(const std::vector<int64_t>& dims, bool keepdim = false) const;
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor max() const;
  Tensor min() const;
  Tensor argmin(int64_t dim, bool keepdim = false) const;
  Tensor prod() const;
  Tensor prod(int64_t dim, bool keepdim = false) const;
  Tensor cumsum(int64_t dim) const;
  Tensor all() const;
  Tensor any() const;
  Tensor relu() const;
  Tensor softmax(int64_t dim) const;
  Tensor log_softmax(int64_t dim) const;
  // Elementwise maths, as the free functions of functional.h: x.exp(), x.sin() ..., one per
  // `function` line of torchlet/unary_ops.def.
#define TORCHLET_UNARY_function(name) Tensor name() const;
#define TORCHLET_UNARY_own(name)
#define TORCHLET_UNARY(op, name, api, ...) TORCHLET_UNARY_##api(name)
#include "torchlet/unary_ops.def"
#undef TORCHLET_UNARY
#undef TORCHLET_UNARY_own
#undef TORCHLET_UNARY_function
  Tensor pow(const Scalar& exponent) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor clamp(const std::optional<Scalar>& min, const std::optional<Scalar>& max = {}) const;
  Tensor clamp_min(const Scalar& min) const;
  Tensor clamp_max(const Scalar& max) const;
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  // Comparisons and logic: bool tensors, not differentiable.
  Tensor eq(const Tensor& other) const;
  Tensor eq(const Scalar& other) const;
  Tensor ne(const Tensor& other) const;
  Tensor ne(const Scalar& other) const;
  Tensor lt(const Tensor& other) const;
  Tensor lt(const Scalar& other) const;
  Tensor le(const Tensor& other) const;
  Tensor le(const Scalar& other) const;
  Tensor gt(const Tensor& other) const;
  Tensor gt(const Scalar& other) const;
  Tensor ge(const Tensor& other) const;
  Tensor ge(const Scalar& other) const;
  Tensor logical_and(const Tensor& other) const;
  Tensor logical_or(const Tensor& other) const;
  Tensor logical_not() const;
  Tensor isnan() const;
  Tensor isfinite() const;
  // Elements where mask (bool, broadcast to this shape) is true replaced by value.
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;

  std::string str() const;
  // True when both handles refer to the same tensor.
  bool is_same(const Tensor& other) const noexcept { return impl_ == other.impl_; }
  TensorImpl* impl() const noexcept { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const noexcept { return impl_; }

 private:
  void add_hook(std::function<Tensor(const Tensor&)> hook) const;
  std::shared_ptr<TensorImpl> impl_;
};

// Elementwise arithmetic; shapes broadcast as in PyTorch (e.g. [N, C] with [C]) and dtypes
// promote as in PyTorch: int64 with float32 gives float32, an int64 tensor times 2 stays int64,
// times 2.5 becomes float32, and / always divides as floating point (int64 / int64 is float32).
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& s);
Tensor operator-(const Tensor& a, const Scalar& s);
Tensor operator*(const Tensor& a, const Scalar& s);
Tensor operator/(const Tensor& a, const Scalar& s);
Tensor operator+(const Scalar& s, const Tensor& a);
Tensor operator-(const Scalar& s, const Tensor& a);
Tensor operator*(const Scalar& s, const Tensor& a);
Tensor operator/(const Scalar& s, const Tensor& a);
Tensor operator-(const Tensor& a);
// In place (see Tensor::add_).
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Scalar& s);
Tensor& operator-=(Tensor& a, const Scalar& s);
Tensor& operator*=(Tensor& a, const Scalar& s);
Tensor& operator/=(Tensor& a, const Scalar& s);
// Elementwise comparisons, bool tensors (not differentiable).
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Scalar& s);
Tensor operator!=(const Tensor& a, const Scalar& s);
Tensor operator<(const Tensor& a, const Scalar& s);
Tensor operator<=(const Tensor& a, const Scalar& s);
Tensor operator>(const Tensor& a, const Scalar& s);
Tensor operator>=(const Tensor& a, const Scalar& s);
// On bool tensors, as LibTorch: & is logical_and, | logical_or, ~ logical_not.
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator~(const Tensor& a);

std::ostream& operator<<(std::ostream& out, const Tensor& tensor);

// --- factories ---------------------------------------------------------------------------------

// Where and of what type a new tensor is; converts from a Device, a DType or a device string,
// so zeros({2, 3}, kInt64) and zeros({2, 3}, Device("cuda:0")) both read naturally.
struct TensorOptions {
  DType dtype = kFloat32;
  Device device = kCPU;
  bool requires_grad = false;

  TensorOptions() = default;
  TensorOptions(DType d) : dtype(d) {}                 // NOLINT
  TensorOptions(const Device& d) : device(d) {}        // NOLINT
  TensorOptions(const char* d) : device(Device(d)) {}  // NOLINT
  TensorOptions& with_dtype(DType d) { return dtype = d, *this; }
  TensorOptions& with_device(const Device& d) { return device = d, *this; }
  TensorOptions& with_requires_grad(bool r = true) { return requires_grad = r, *this; }
};

// From host values; shape defaults to 1-D, and its numel must match values.size(). A vector of
// double makes a float64 tensor (as torch.from_numpy of a float64 array).
Tensor tensor(const std::vector<float>& values, const Shape& shape, const Device& device = kCPU);
Tensor tensor(const std::vector<double>& values, const Shape& shape, const Device& device = kCPU);
Tensor tensor(const std::vector<int64_t>& values, const Shape& shape, const Device& device = kCPU);
Tensor tensor(const std::vector<float>& values, const Device& device = kCPU);
Tensor tensor(const std::vector<double>& values, const Device& device = kCPU);
Tensor tensor(const std::vector<int64_t>& values, const Device& device = kCPU);
// Brace lists: tensor({1.5f, 2.0f}, {2}) and tensor({0.5, 1.0}) are float32,
// tensor({0, 2, 1}) is int64, as in PyTorch.
inline Tensor tensor(std::initializer_list<float> values, const Shape& shape,
                     const Device& device = kCPU) {
  return tensor(std::vector<float>(values), shape, device);
}
inline Tensor tensor(std::initializer_list<double> values, const Shape& shape,
                     const Device& device = kCPU) {
  return tensor(std::vector<float>(values.begin(), values.end()), shape, device);
}
inline Tensor tensor(std::initializer_list<int> values, const Shape& shape,
                     const Device& device = kCPU) {
  return tensor(std::vector<int64_t>(values.begin(), values.end()), shape, device);
}
inline Tensor tensor(std::initializer_list<float> values, const Device& device = kCPU) {
  return tensor(std::vector<float>(values), device);
}
inline Tensor tensor(std::initializer_list<double> values, const Device& device = kCPU) {
  return tensor(std::vector<float>(values.begin(), values.end()), device);
}
inline Tensor tensor(std::initializer_list<int> values, const Device& device = kCPU) {
  return tensor(std::vector<int64_t>(values.begin(), values.end()), device);
}

// Uninitialised memory (fast; values are whatever was there).
Tensor empty(const Shape& shape, const TensorOptions& options = {});
Tensor zeros(const Shape& shape, const TensorOptions& options = {});
Tensor ones(const Shape& shape, const TensorOptions& options = {});
Tensor full(const Shape& shape, double value, const TensorOptions& options = {});
// Uniform in [0, 1) and standard normal, from the generator manual_seed() sets; float32 or
// float64 (drawn in double, rounded once for float32).
Tensor rand(const Shape& shape, const TensorOptions& options = {});
Tensor randn(const Shape& shape, const TensorOptions& options = {});
// Uniform in [low, high), as nn::Linear's initialisation uses.
Tensor uniform(const Shape& shape, double low, double high, const TensorOptions& options = {});
// 0, 1, ..., end - 1 (int64 unless options say float32 or float64).
Tensor arange(int64_t end, const TensorOptions& options = kInt64);
Tensor arange(int64_t start, int64_t end, int64_t step = 1, const TensorOptions& options = kInt64);
// A floating bound or step: start, start + step, ... while below end (above it for a negative
// step), ceil((end - start) / step) values computed in double, float32 unless options say
// float64, as PyTorch's arange(0, 1, 0.1).
Tensor arange_floating(double start, double end, double step, const TensorOptions& options);
template <typename T>
requires std::is_floating_point_v<T> Tensor arange(T end, const TensorOptions& options = kFloat32) {
  return arange_floating(0.0, static_cast<double>(end), 1.0, options);
}
template <typename Start, typename End, typename Step = int64_t>
requires(std::is_arithmetic_v<Start>&& std::is_arithmetic_v<End>&& std::is_arithmetic_v<Step> &&
         (std::is_floating_point_v<Start> || std::is_floating_point_v<End> ||
          std::is_floating_point_v<Step>)) Tensor
    arange(Start start, End end, Step step = 1, const TensorOptions& options = kFloat32) {
  return arange_floating(static_cast<double>(start), static_cast<double>(end),
                         static_cast<double>(step), options);
}
// Integers uniform in [low, high) (int64 unless options say float32), and a random
// permutation of 0, 1, ..., n - 1, from the generator manual_seed() sets.
Tensor randint(int64_t low, int64_t high, const Shape& shape,
               const TensorOptions& options = kInt64);
Tensor randint(int64_t high, const Shape& shape, const TensorOptions& options = kInt64);
Tensor randperm(int64_t n, const TensorOptions& options = kInt64);

}  // namespace torchlet
