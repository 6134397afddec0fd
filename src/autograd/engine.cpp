// The backward pass: orders the graph so every node runs after all nodes that feed it a
// gradient, sums gradients arriving at the same node, and accumulates into leaves' .grad.
// The graph lives as long as the output tensor does, so backward() may run more than once
// (as PyTorch's retain_graph=True).
#include <vector>

#include "autograd/node.h"
#include "torchlet/error.h"
#include "torchlet/functional.h"

namespace torchlet::autograd {

namespace {

thread_local bool grad_enabled = true;

// Adds g into a leaf's .grad. A gradient nobody else holds becomes .grad as it is
// (Note [Gradient ownership]); otherwise it is copied, so later += cannot alias.
void accumulate(TensorImpl& leaf, Tensor g) {
  TORCHLET_CHECK(g.shape() == leaf.shape, "Expected the gradient of a leaf of shape ", leaf.shape,
                 " to have the same shape, but got ", g.shape());
  if (!leaf.grad.defined()) {
    bool sole_owner = g.impl_ptr().use_count() == 1 && g.impl()->storage.use_count() == 1;
    leaf.grad = sole_owner && g.is_contiguous() ? std::move(g) : g.clone();
  } else {
    leaf.grad = leaf.grad + g;
  }
}

}  // namespace

void connect(const Tensor& output, std::shared_ptr<Node> node,
             std::initializer_list<const Tensor*> inputs) {
  int i = 0;
  for (const Tensor* t : inputs) {
    TORCHLET_ASSERT(i < kMaxInputs);
    if (t->defined()) {
      if (t->impl()->grad_fn)
        node->next[i].node = t->impl()->grad_fn;
      else if (t->impl()->requires_grad)
        node->next[i].leaf = t->impl_ptr();
    }
    ++i;
  }
  output.impl()->grad_fn = std::move(node);
  output.impl()->requires_grad = true;
}

void run_backward(const Tensor& root, const Tensor& gradient) {
  TORCHLET_CHECK(root.requires_grad(),
                 "Expected a tensor that requires grad to call backward() on, but got one that "
                 "does not (no parameter it depends on has requires_grad, or it was computed "
                 "under NoGradGuard)");
  Tensor grad = gradient;
  if (!grad.defined()) {
    TORCHLET_CHECK(root.numel() == 1,
                   "Expected backward() without a gradient argument on a tensor of one element "
                   "(a loss), but got shape ",
                   root.shape());
    grad = ones(root.shape(), TensorOptions(root.device()));
  }
  TORCHLET_CHECK(grad.shape() == root.shape() && grad.device() == root.device(),
                 "Expected the gradient passed to backward() to have shape ", root.shape(), " on ",
                 root.device(), ", but got shape ", grad.shape(), " on ", grad.device());
  NoGradGuard no_grad;
  const std::shared_ptr<Node>& start = root.impl()->grad_fn;
  if (!start) {
    accumulate(*root.impl(), grad.clone());
    return;
  }
  // Depth-first post-order from the root, then reversed: a topological order in which each
  // node comes after every node that sends it a gradient.
  std::vector<Node*> order;
  std::vector<std::pair<Node*, int>> stack{{start.get(), 0}};
  start->pending = 1;
  while (!stack.empty()) {
    auto& [node, next_edge] = stack.back();
    if (next_edge < kMaxInputs) {
      Node* child = node->next[next_edge++].node.get();
      if (child && child->pending++ == 0) stack.push_back({child, 0});
      continue;
    }
    order.push_back(node);
    stack.pop_back();
  }
  start->grad_sum = std::move(grad);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* node = *it;
    Tensor g = std::move(node->grad_sum);
    node->pending = 0;
    if (!g.defined()) continue;
    Grads grads = node->apply(g);
    for (int i = 0; i < kMaxInputs; ++i) {
      Edge& edge = node->next[i];
      if (!grads[i].defined()) continue;
      if (edge.node) {
        Tensor& sum = edge.node->grad_sum;
        sum = sum.defined() ? sum + grads[i] : std::move(grads[i]);
      } else if (edge.leaf) {
        accumulate(*edge.leaf, std::move(grads[i]));
      }
    }
  }
}

}  // namespace torchlet::autograd

namespace torchlet {

bool is_grad_enabled() noexcept { return autograd::grad_enabled; }
void set_grad_enabled(bool enabled) noexcept { autograd::grad_enabled = enabled; }

}  // namespace torchlet
