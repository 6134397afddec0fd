// The autograd graph's internals: when an op is recorded, how it is connected, and the
// backward pass. Node and Edge are public (torchlet/autograd/function.h).
#pragma once

#include <initializer_list>
#include <memory>

#include "core/tensor_impl.h"
#include "torchlet/autograd.h"
#include "torchlet/autograd/function.h"

namespace torchlet::autograd {

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
void run_backward(const Tensor& root, const Tensor& gradient, bool retain_graph);

}  // namespace torchlet::autograd
