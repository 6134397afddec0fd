// nn::Module: the base of every layer and model. Holds named parameters and child modules,
// moves them between devices in place, and runs forward hooks around forward() the way
// PyTorch's nn.Module.__call__ does: model(x) is the call operator, not forward(x) directly.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "torchlet/tensor.h"

namespace torchlet::nn {

class Module;

// Runs before forward(); returning a tensor replaces forward's input.
using ForwardPreHook = std::function<std::optional<Tensor>(Module& module, const Tensor& input)>;
// Runs after forward(); returning a tensor replaces the output.
using ForwardHook =
    std::function<std::optional<Tensor>(Module& module, const Tensor& input, const Tensor& output)>;

namespace detail {
struct HookLists;
}

// Returned by register_forward_(pre_)hook; remove() unregisters the hook. Safe to call more
// than once, and after the module is gone.
class RemovableHandle {
 public:
  RemovableHandle() = default;
  RemovableHandle(std::weak_ptr<detail::HookLists> lists, uint64_t id)
      : lists_(std::move(lists)), id_(id) {}
  void remove();

 private:
  std::weak_ptr<detail::HookLists> lists_;
  uint64_t id_ = 0;
};

class Module {
 public:
  Module();
  virtual ~Module();
  // Modules hold pointers to their children: copying one would leave them dangling.
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // The call operator: pre-hooks (each may replace the input), forward(), then forward hooks
  // (each may replace the output), every list in registration order.
  Tensor operator()(const Tensor& input);
  // A layer overrides forward(input); by default it is forward({input}).
  virtual Tensor forward(const Tensor& input);
  // Several inputs (PyTorch's forward(self, x, mask)): model(x, mask) and model({x, mask}) run
  // forward(inputs) between the same hooks, which see (and may replace) the first input. A
  // module taking several tensors overrides this forward; by default it throws.
  template <typename... More>
  Tensor operator()(const Tensor& first, const Tensor& second, const More&... more) {
    return (*this)(std::vector<Tensor>{first, second, more...});
  }
  Tensor operator()(const std::vector<Tensor>& inputs);
  virtual Tensor forward(const std::vector<Tensor>& inputs);

  // Registers a child owned elsewhere (usually a member of the derived class); its
  // parameters appear as "name.param". The child must outlive this module.
  Module& register_module(const std::string& name, Module& module);
  // Registers a child this module owns.
  template <typename M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    register_module(name, static_cast<Module&>(*module));
    owned_.push_back(module);
    return module;
  }
  // Registers a parameter (marked requires_grad) and returns the stored handle.
  Tensor& register_parameter(const std::string& name, Tensor tensor, bool requires_grad = true);

  // Registers a tensor that is state but not a parameter (BatchNorm's running statistics):
  // moved by to(), saved in state_dict(), never given to an optimizer. May be undefined.
  Tensor& register_buffer(const std::string& name, Tensor tensor);

  // This module's parameters, then its children's, depth first in registration order.
  std::vector<Tensor> parameters(bool recurse = true) const;
  // The same with dotted names ("fc1.weight").
  std::vector<std::pair<std::string, Tensor>> named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  std::vector<std::pair<std::string, Tensor>> named_buffers(bool recurse = true) const;
  // Every parameter and buffer by its dotted name (PyTorch's state_dict keys), sharing storage.
  std::vector<std::pair<std::string, Tensor>> state_dict() const;
  // Copies each tensor of `state` into the parameter or buffer of the same name, checking all
  // names and shapes first (strict: no missing or unexpected names), as PyTorch's does.
  void load_state_dict(const std::vector<std::pair<std::string, Tensor>>& state,
                       bool strict = true);
  std::vector<Module*> children() const;
  const std::vector<std::pair<std::string, Module*>>& named_children() const { return children_; }

  void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const noexcept { return training_; }
  // Clears (set_to_none) or zeroes every parameter's gradient.
  void zero_grad(bool set_to_none = true);
  // Moves every parameter (and gradient) to `device` in place: Tensor handles held elsewhere,
  // an optimizer's included, see the moved data.
  void to(const Device& device);
  // Converts every floating-point parameter and buffer (and gradient) to `dtype`, float32 or
  // float64, in place (PyTorch's model.to(torch.float64), model.double()); int64 buffers stay.
  void to(DType dtype);

  RemovableHandle register_forward_pre_hook(ForwardPreHook hook);
  RemovableHandle register_forward_hook(ForwardHook hook);

  // The layer's name for printing, e.g. "Linear(in_features=4, out_features=10, bias=True)";
  // by default the C++ class name ("MLP"). operator<< prints the whole tree as PyTorch does.
  virtual std::string name() const;

 private:
  // The hooks around forward: pre-hooks may replace `first`, forward hooks the output.
  Tensor call(Tensor& first, const std::function<Tensor()>& forward);
  void collect_parameters(const std::string& prefix, bool recurse,
                          std::vector<std::pair<std::string, Tensor>>& out) const;

  void collect_buffers(const std::string& prefix, bool recurse,
                       std::vector<std::pair<std::string, Tensor>>& out) const;

  std::vector<std::pair<std::string, Tensor>> parameters_;
  std::vector<std::pair<std::string, Tensor>> buffers_;
  std::vector<std::pair<std::string, Module*>> children_;
  std::vector<std::shared_ptr<Module>> owned_;
  std::shared_ptr<detail::HookLists> hooks_;  // created by the first registration
  bool training_ = true;
};

// PyTorch's repr: "MLP(\n  (fc1): Linear(in_features=4, out_features=10, bias=True)\n  ...)".
std::ostream& operator<<(std::ostream& out, const Module& module);

}  // namespace torchlet::nn
