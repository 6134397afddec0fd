// The autograd graph. Each recorded op output gets a Node (its grad_fn) that maps the
// gradient of the output to the gradients of the op's inputs; Edges lead to the nodes that
// produced those inputs, or to the leaf tensors that accumulate gradients.
// Note [Gradient ownership]: a Node's apply() returns fresh tensors the engine may keep as a
// leaf's .grad without copying; gradients are never written in place while being passed on.
#pragma once

#include <array>
#include <initializer_list>
#include <memory>

#include "core/tensor_impl.h"
#include "torchlet/autograd.h"

namespace torchlet::autograd {

inline constexpr int kMaxInputs = 3;
using Grads = std::array<Tensor, kMaxInputs>;

struct Edge {
  std::shared_ptr<Node> node;        // the input came from a recorded op, or
  std::shared_ptr<TensorImpl> leaf;  // the input is a leaf that requires grad, or neither
  bool active() const noexcept { return node || leaf; }
};

class Node {
 public:
  virtual ~Node() = default;
  virtual const char* name() const = 0;
  // Given d(root)/d(output), returns d(root)/d(input i) for each input i whose edge is
  // active (needs_grad(i)); other entries may stay undefined. Runs with grad mode off.
  virtual Grads apply(const Tensor& grad_output) = 0;
  bool needs_grad(int i) const noexcept { return next[i].active(); }

  std::array<Edge, kMaxInputs> next;
  // Engine bookkeeping for one backward pass.
  Tensor grad_sum;
  int pending = 0;
};

// True when an op on these inputs must be recorded: grad mode is on and one requires grad.
inline bool needs_grad(std::initializer_list<const Tensor*> inputs) {
  if (!is_grad_enabled()) return false;
  for (const Tensor* t : inputs)
    if (t->defined() && t->requires_grad()) return true;
  return false;
}

// Makes `node` the grad_fn of `output`, with one edge per input (undefined inputs allowed).
void connect(const Tensor& output, std::shared_ptr<Node> node,
             std::initializer_list<const Tensor*> inputs);

// Runs the backward pass from root (see Tensor::backward).
void run_backward(const Tensor& root, const Tensor& gradient);

}  // namespace torchlet::autograd
