// The backward pass: orders the graph so every node runs after all nodes that feed it a
// gradient, sums gradients arriving at the same node, runs tensor hooks, and accumulates into
// leaves' .grad (or, for autograd::grad, hands the inputs' gradients back). Without
// retain_graph a pass frees the graph: its nodes are released, and a second pass through
// them throws, as PyTorch's.
#include <optional>
#include <utility>
#include <vector>

#include "autograd/node.h"
#include "torchlet/error.h"
#include "torchlet/functional.h"

namespace torchlet::autograd {

namespace {

thread_local bool grad_enabled = true;

constexpr const char* kFreed =
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd::grad(). Specify retain_graph=true if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.";

// g after each hook (a defined result replaces it).
Tensor run_hooks(const std::vector<std::function<Tensor(const Tensor&)>>& hooks, Tensor g) {
  for (const auto& hook : hooks) {
    Tensor replaced = hook(g);
    if (!replaced.defined()) continue;
    TORCHLET_CHECK(replaced.shape() == g.shape(), "Expected a hook to return a gradient of shape ",
                   g.shape(), ", but got ", replaced.shape());
    g = std::move(replaced);
  }
  return g;
}

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

void add_to(Tensor& sum, Tensor g) { sum = sum.defined() ? sum + g : std::move(g); }

// Where a pass delivers gradients: into leaves' .grad, or (autograd::grad) into `grads`, one
// per input, and nowhere else.
struct Sink {
  const tensor_list* inputs = nullptr;
  tensor_list grads;
  // Leaves with hooks: their gradients summed over the pass, hooked and accumulated as soon as
  // every edge into them has delivered (so DistributedDataParallel can send a gradient while
  // backward goes on), or at the pass's end when some edge carried no gradient.
  struct Hooked {
    TensorImpl* impl;
    Tensor sum;
    int pending = 0;  // edges into the leaf still to deliver
    bool done = false;
  };
  std::vector<Hooked> hooked;

  Hooked& entry(TensorImpl* impl) {
    for (Hooked& h : hooked)
      if (h.impl == impl) return h;
    return hooked.emplace_back(Hooked{impl, Tensor()});
  }
  // An edge of the pass leads to `impl`.
  void expect(TensorImpl* impl) {
    if (!inputs && !impl->hooks.empty()) ++entry(impl).pending;
  }
  void flush(Hooked& h) {
    if (h.done || !h.sum.defined()) return;
    h.done = true;
    accumulate(*h.impl, run_hooks(h.impl->hooks, std::move(h.sum)));
  }
  void leaf(TensorImpl* impl, Tensor g) {
    if (inputs) {
      for (std::size_t k = 0; k < inputs->size(); ++k)
        if ((*inputs)[k].impl() == impl) add_to(grads[k], g);
      return;
    }
    if (impl->hooks.empty()) return accumulate(*impl, std::move(g));
    Hooked& h = entry(impl);
    add_to(h.sum, std::move(g));
    if (--h.pending == 0) flush(h);
  }
  // A non-leaf input's gradient, when its grad_fn runs.
  void node(const Node* node, const Tensor& g) {
    if (!inputs) return;
    for (std::size_t k = 0; k < inputs->size(); ++k)
      if ((*inputs)[k].impl()->grad_fn.get() == node) grads[k] = g;
  }
  void finish() {
    for (Hooked& h : hooked) flush(h);
    if (!inputs) return;
    for (std::size_t k = 0; k < inputs->size(); ++k)
      if (grads[k].defined() && (*inputs)[k].is_leaf())
        grads[k] = run_hooks((*inputs)[k].impl()->hooks, std::move(grads[k]));
  }
};

// The gradient of each root: `gradient` or, for a one-element root, ones.
Tensor root_gradient(const Tensor& root, const Tensor& gradient) {
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
    grad = ones(root.shape(), TensorOptions(root.dtype()).with_device(root.device()));
  }
  TORCHLET_CHECK(grad.shape() == root.shape() && grad.device() == root.device(),
                 "Expected the gradient passed to backward() to have shape ", root.shape(), " on ",
                 root.device(), ", but got shape ", grad.shape(), " on ", grad.device());
  return grad;
}

void execute(const tensor_list& roots, const tensor_list& gradients, bool retain_graph,
             Sink& sink) {
  NoGradGuard no_grad;
  std::vector<std::pair<Node*, Tensor>> starts;
  for (std::size_t r = 0; r < roots.size(); ++r) {
    Tensor grad = root_gradient(roots[r], r < gradients.size() ? gradients[r] : Tensor());
    if (const std::shared_ptr<Node>& node = roots[r].impl()->grad_fn)
      starts.emplace_back(node.get(), std::move(grad));
    else
      sink.leaf(roots[r].impl(), grad.clone());
  }
  // Depth-first post-order from the roots, then reversed: a topological order in which each
  // node comes after every node that sends it a gradient.
  std::vector<Node*> order;
  bool freed = false;
  for (const auto& [start, grad] : starts) {
    if (start->pending++ != 0) continue;
    std::vector<std::pair<Node*, int>> stack{{start, 0}};
    while (!stack.empty()) {
      auto& [node, next_edge] = stack.back();
      if (next_edge < kMaxInputs) {
        Node* child = node->next[next_edge++].node.get();
        if (child && child->pending++ == 0) stack.push_back({child, 0});
        continue;
      }
      freed = freed || node->released;
      order.push_back(node);
      stack.pop_back();
    }
  }
  if (freed) {
    for (Node* node : order) node->pending = 0;
    TORCHLET_CHECK(false, kFreed);
  }
  for (Node* node : order)
    for (const Edge& edge : node->next)
      if (edge.leaf) sink.expect(edge.leaf.get());
  for (auto& [start, grad] : starts) add_to(start->grad_sum, std::move(grad));
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* node = *it;
    Tensor g = std::move(node->grad_sum);
    node->pending = 0;
    if (!retain_graph) node->released = true;
    if (!g.defined()) continue;
    g = run_hooks(node->pre_hooks, std::move(g));
    sink.node(node, g);
    Grads grads = node->apply(g);
    if (!retain_graph) node->release();
    for (int i = 0; i < kMaxInputs; ++i) {
      Edge& edge = node->next[i];
      if (!grads[i].defined() || !edge.active()) continue;
      if (grads[i].dtype() != edge.dtype) grads[i] = grads[i].to(edge.dtype);
      if (edge.node)
        add_to(edge.node->grad_sum, std::move(grads[i]));
      else if (edge.leaf)
        sink.leaf(edge.leaf.get(), std::move(grads[i]));
    }
  }
  sink.finish();
}

}  // namespace

void connect(const Tensor& output, std::shared_ptr<Node> node,
             std::initializer_list<const Tensor*> inputs) {
  int i = 0;
  for (const Tensor* t : inputs) {
    TORCHLET_ASSERT(i < kMaxInputs);
    if (t->defined()) {
      node->next[i].dtype = t->dtype();
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

void run_backward(const Tensor& root, const Tensor& gradient, bool retain_graph) {
  Sink sink;
  execute({root}, {gradient}, retain_graph, sink);
}

tensor_list grad(const tensor_list& outputs, const tensor_list& inputs,
                 const tensor_list& grad_outputs, std::optional<bool> retain_graph,
                 bool create_graph, bool allow_unused) {
  TORCHLET_CHECK(!create_graph,
                 "autograd::grad: Expected create_graph=false (a differentiable backward is not "
                 "supported), but got true");
  TORCHLET_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(),
                 "autograd::grad: Expected one grad_output per output (", outputs.size(),
                 "), but got ", grad_outputs.size());
  for (std::size_t k = 0; k < inputs.size(); ++k)
    TORCHLET_CHECK(inputs[k].defined() && inputs[k].requires_grad(),
                   "autograd::grad: Expected inputs that require grad, but input ", k, " does not");
  Sink sink;
  sink.inputs = &inputs;
  sink.grads.resize(inputs.size());
  execute(outputs, grad_outputs, retain_graph.value_or(create_graph), sink);
  for (std::size_t k = 0; k < inputs.size(); ++k)
    TORCHLET_CHECK(allow_unused || sink.grads[k].defined(), "autograd::grad: One of the ",
                   "differentiated Tensors (input ", k, ") appears to not have been used in the ",
                   "graph. Set allow_unused=true if this is the desired behavior.");
  return sink.grads;
}

}  // namespace torchlet::autograd

namespace torchlet {

bool is_grad_enabled() noexcept { return autograd::grad_enabled; }
void set_grad_enabled(bool enabled) noexcept { autograd::grad_enabled = enabled; }

}  // namespace torchlet
