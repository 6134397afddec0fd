// The autograd graph's public face, as LibTorch's torch/csrc/autograd: the Node each recorded
// op output gets (its grad_fn()), autograd::grad, and custom functions written in C++.
// Note [Gradient ownership]: a Node's apply() returns fresh tensors the engine may keep as a
// leaf's .grad without copying; gradients are never written in place while being passed on.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "torchlet/autograd.h"
#include "torchlet/tensor.h"

namespace torchlet::autograd {

inline constexpr int kMaxInputs = 3;
using Grads = std::array<Tensor, kMaxInputs>;
using tensor_list = std::vector<Tensor>;

struct Edge {
  std::shared_ptr<Node> node;        // the input came from a recorded op, or
  std::shared_ptr<TensorImpl> leaf;  // the input is a leaf that requires grad, or neither
  DType dtype = kFloat32;            // the input's: its gradient is converted to it, as PyTorch's
  bool active() const noexcept { return node || leaf; }
};

// Maps the gradient of a recorded op's output to the gradients of its inputs; Edges lead to
// the nodes that produced those inputs, or to the leaf tensors that accumulate gradients.
class Node {
 public:
  virtual ~Node() = default;
  // PyTorch's name of the node's class: "MulBackward0", "AddmmBackward0"...
  virtual const char* name() const = 0;
  // Given d(root)/d(output), returns d(root)/d(input i) for each input i whose edge is
  // active (needs_grad(i)); other entries may stay undefined. Runs with grad mode off.
  virtual Grads apply(const Tensor& grad_output) = 0;
  // Frees what the node saved for backward (a backward without retain_graph calls it).
  virtual void release() {}
  bool needs_grad(int i) const noexcept { return next[i].active(); }

  std::array<Edge, kMaxInputs> next;
  // register_hook on the node's output: each may replace the gradient before apply().
  std::vector<std::function<Tensor(const Tensor&)>> pre_hooks;
  bool released = false;  // a backward without retain_graph went through it
  // Engine bookkeeping for one backward pass.
  Tensor grad_sum;
  int pending = 0;
};

// d(sum_i outputs[i] * grad_outputs[i]) / d(inputs[j]) for each input, without touching any
// .grad (grad_outputs may be left out for one-element outputs). retain_graph as backward's
// (by default create_graph's); create_graph = true is refused with an Error, and so is an
// input the outputs do not depend on unless allow_unused (then its gradient is undefined).
tensor_list grad(const tensor_list& outputs, const tensor_list& inputs,
                 const tensor_list& grad_outputs = {}, std::optional<bool> retain_graph = {},
                 bool create_graph = false, bool allow_unused = false);

// What a custom Function's forward leaves for its backward.
struct AutogradContext {
  void save_for_backward(tensor_list tensors) { saved_ = std::move(tensors); }
  // Throws after a backward without retain_graph freed them.
  const tensor_list& get_saved_variables() const;
  std::map<std::string, double> saved_data;  // non-tensor values (LibTorch's holds IValues)
  void release();

 private:
  tensor_list saved_;
  bool released_ = false;
};

namespace detail {
using CustomBackward = std::function<tensor_list(AutogradContext*, tensor_list)>;
// Records `output` of a custom function over `inputs` (its Tensor arguments; arg_index[k] is
// input k's position among all forward arguments).
Tensor record_custom(std::string name, std::shared_ptr<AutogradContext> ctx,
                     const tensor_list& inputs, const std::vector<std::size_t>& arg_index,
                     std::size_t arg_count, Tensor output, CustomBackward backward);
std::string demangle(const char* name);
}  // namespace detail

// A differentiable op written in C++, as LibTorch's torch::autograd::Function:
//   struct Cube : autograd::Function<Cube> {
//     static Tensor forward(autograd::AutogradContext* ctx, Tensor x) {
//       ctx->save_for_backward({x});
//       return x * x * x;
//     }
//     static autograd::tensor_list backward(autograd::AutogradContext* ctx,
//                                           autograd::tensor_list grads) {
//       const Tensor x = ctx->get_saved_variables()[0];
//       return {grads[0] * 3.0f * x * x};
//     }
//   };
//   Tensor y = Cube::apply(x);
// forward runs without recording; backward returns one gradient per forward argument
// (undefined for non-tensors and inputs that need none). At most kMaxInputs Tensor arguments
// and one Tensor result; grad_fn()->name() is "CubeBackward".
template <typename Derived>
struct Function {
  template <typename... Args>
  static Tensor apply(Args&&... args) {
    auto ctx = std::make_shared<AutogradContext>();
    tensor_list inputs;
    std::vector<std::size_t> arg_index;
    std::size_t position = 0;
    const auto collect = [&](const auto& arg) {
      if constexpr (std::is_same_v<std::decay_t<decltype(arg)>, Tensor>) {
        inputs.push_back(arg);
        arg_index.push_back(position);
      }
      ++position;
    };
    (collect(args), ...);
    Tensor output;
    {
      NoGradGuard no_grad;
      output = Derived::forward(ctx.get(), std::forward<Args>(args)...);
    }
    return detail::record_custom(detail::demangle(typeid(Derived).name()) + "Backward", ctx, inputs,
                                 arg_index, sizeof...(Args), std::move(output),
                                 [](AutogradContext* c, tensor_list grads) {
                                   return Derived::backward(c, std::move(grads));
                                 });
  }
};

}  // namespace torchlet::autograd
