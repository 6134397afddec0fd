// nn::Module: registration, recursive parameter listing, device moves, and the call operator
// with its forward pre-hooks and forward hooks.
#include "torchlet/nn/module.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <typeinfo>

#include "core/tensor_impl.h"
#include "torchlet/autograd.h"
#include "torchlet/error.h"

namespace torchlet::nn {

namespace detail {

struct HookLists {
  uint64_t next_id = 1;
  std::vector<std::pair<uint64_t, ForwardPreHook>> pre;
  std::vector<std::pair<uint64_t, ForwardHook>> post;
};

}  // namespace detail

void RemovableHandle::remove() {
  auto lists = lists_.lock();
  if (!lists) return;
  auto has_id = [this](const auto& entry) { return entry.first == id_; };
  std::erase_if(lists->pre, has_id);
  std::erase_if(lists->post, has_id);
  lists_.reset();
}

Module::Module() = default;
Module::~Module() = default;

Tensor Module::operator()(const Tensor& input) {
  if (!hooks_ || (hooks_->pre.empty() && hooks_->post.empty())) return forward(input);
  Tensor x = input;
  return call(x, [&] { return forward(x); });
}

Tensor Module::operator()(const std::vector<Tensor>& inputs) {
  TORCHLET_CHECK(!inputs.empty(), name(), ": Expected at least one input, but got none");
  std::vector<Tensor> xs = inputs;
  return call(xs[0], [&] { return forward(xs); });
}

Tensor Module::forward(const Tensor& input) { return forward(std::vector<Tensor>{input}); }

Tensor Module::forward(const std::vector<Tensor>& inputs) {
  TORCHLET_CHECK(false, name(), ": Expected a module that overrides forward(input) or forward(",
                 "inputs), but got one that overrides neither (called with ", inputs.size(),
                 " inputs)");
  return Tensor();
}

Tensor Module::call(Tensor& first, const std::function<Tensor()>& forward) {
  if (!hooks_) return forward();
  // Copies of the lists, so a hook may remove itself (or others) while they run.
  for (auto [id, hook] : std::vector(hooks_->pre))
    if (std::optional<Tensor> replaced = hook(*this, first)) first = *replaced;
  Tensor y = forward();
  for (auto [id, hook] : std::vector(hooks_->post))
    if (std::optional<Tensor> replaced = hook(*this, first, y)) y = *replaced;
  return y;
}

Module& Module::register_module(const std::string& name, Module& module) {
  TORCHLET_CHECK(!name.empty() && name.find('.') == std::string::npos,
                 "register_module: Expected a non-empty name without '.', but got '", name, "'");
  TORCHLET_CHECK(&module != this, "register_module: Expected a module other than itself for '",
                 name, "'");
  for (const auto& [existing, child] : children_)
    TORCHLET_CHECK(existing != name, "register_module: Expected a new name, but '", name,
                   "' is already a child");
  children_.emplace_back(name, &module);
  return module;
}

Tensor& Module::register_parameter(const std::string& name, Tensor tensor, bool requires_grad) {
  TORCHLET_CHECK(!name.empty() && name.find('.') == std::string::npos,
                 "register_parameter: Expected a non-empty name without '.', but got '", name, "'");
  TORCHLET_CHECK(tensor.defined(), "register_parameter: Expected a defined tensor for '", name,
                 "', but got an undefined Tensor()");
  for (const auto& [existing, param] : parameters_)
    TORCHLET_CHECK(existing != name, "register_parameter: Expected a new name, but '", name,
                   "' is already a parameter");
  tensor.set_requires_grad(requires_grad);
  parameters_.emplace_back(name, std::move(tensor));
  return parameters_.back().second;
}

void Module::collect_parameters(const std::string& prefix, bool recurse,
                                std::vector<std::pair<std::string, Tensor>>& out) const {
  for (const auto& [name, param] : parameters_) out.emplace_back(prefix + name, param);
  if (!recurse) return;
  for (const auto& [name, child] : children_)
    child->collect_parameters(prefix + name + ".", true, out);
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters(bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect_parameters("", recurse, out);
  return out;
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& [name, param] : named_parameters(recurse)) out.push_back(std::move(param));
  return out;
}

Tensor& Module::register_buffer(const std::string& name, Tensor tensor) {
  TORCHLET_CHECK(!name.empty() && name.find('.') == std::string::npos,
                 "register_buffer: Expected a non-empty name without '.', but got '", name, "'");
  for (const auto& [existing, buffer] : buffers_)
    TORCHLET_CHECK(existing != name, "register_buffer: Expected a new name, but '", name,
                   "' is already a buffer");
  buffers_.emplace_back(name, std::move(tensor));
  return buffers_.back().second;
}

void Module::collect_buffers(const std::string& prefix, bool recurse,
                             std::vector<std::pair<std::string, Tensor>>& out) const {
  for (const auto& [name, buffer] : buffers_)
    if (buffer.defined()) out.emplace_back(prefix + name, buffer);
  if (!recurse) return;
  for (const auto& [name, child] : children_)
    child->collect_buffers(prefix + name + ".", true, out);
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers(bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect_buffers("", recurse, out);
  return out;
}

std::vector<Tensor> Module::buffers(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& [name, buffer] : named_buffers(recurse)) out.push_back(std::move(buffer));
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::state_dict() const {
  std::vector<std::pair<std::string, Tensor>> out = named_parameters();
  for (auto& entry : named_buffers()) out.push_back(std::move(entry));
  return out;
}

void Module::load_state_dict(const std::vector<std::pair<std::string, Tensor>>& state,
                             bool strict) {
  std::map<std::string, Tensor> mine;
  for (auto& [name, t] : state_dict()) mine.emplace(name, t);
  std::map<std::string, const Tensor*> given;
  for (const auto& [name, t] : state) {
    TORCHLET_CHECK(given.emplace(name, &t).second,
                   "load_state_dict: Expected each name once, but '", name, "' appears twice");
    const auto found = mine.find(name);
    TORCHLET_CHECK(found != mine.end() || !strict, "load_state_dict: Unexpected key '", name,
                   "' in state_dict");
    if (found == mine.end()) continue;
    TORCHLET_CHECK(t.defined() && t.shape() == found->second.shape(),
                   "load_state_dict: size "
                   "mismatch for ",
                   name, ": copying a param with shape ",
                   t.defined() ? t.shape().str() : "undefined", ", the shape in current model is ",
                   found->second.shape());
  }
  if (strict)
    for (const auto& [name, t] : mine)
      TORCHLET_CHECK(given.count(name), "load_state_dict: Missing key '", name, "' in state_dict");
  NoGradGuard no_grad;
  for (const auto& [name, t] : given)
    if (mine.count(name)) mine.at(name).copy_(*t);
}

std::string Module::name() const {
  const char* mangled = typeid(*this).name();
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  std::string full = status == 0 && demangled ? demangled.get() : mangled;
  const std::size_t colon = full.rfind("::");
  return colon == std::string::npos ? full : full.substr(colon + 2);
}

namespace {

void print_tree(std::ostream& out, const Module& m, const std::string& indent) {
  const std::string name = m.name();
  if (m.named_children().empty()) {
    out << name << (name.find('(') == std::string::npos ? "()" : "");
    return;
  }
  out << name.substr(0, name.find('(')) << "(\n";
  for (const auto& [child_name, child] : m.named_children()) {
    out << indent << "  (" << child_name << "): ";
    print_tree(out, *child, indent + "  ");
    out << "\n";
  }
  out << indent << ")";
}

}  // namespace

std::ostream& operator<<(std::ostream& out, const Module& module) {
  print_tree(out, module, "");
  return out;
}

std::vector<Module*> Module::children() const {
  std::vector<Module*> out;
  for (const auto& [name, child] : children_) out.push_back(child);
  return out;
}

void Module::train(bool on) {
  training_ = on;
  for (const auto& [name, child] : children_) child->train(on);
}

void Module::zero_grad(bool set_to_none) {
  for (const Tensor& p : parameters()) {
    if (set_to_none)
      p.set_grad(Tensor());
    else if (p.grad().defined())
      p.grad().zero_();
  }
}

void Module::to(const Device& device) {
  for (const Tensor& p : parameters()) move_in_place(p, device);
  for (const Tensor& b : buffers()) move_in_place(b, device);
}

void Module::to(DType dtype) {
  TORCHLET_CHECK(is_floating_point(dtype),
                 "Module::to: Expected dtype float32 or float64, but got ", dtype);
  for (const Tensor& p : parameters()) convert_in_place(p, dtype);
  for (const Tensor& b : buffers())
    if (is_floating_point(b.dtype())) convert_in_place(b, dtype);
}

RemovableHandle Module::register_forward_pre_hook(ForwardPreHook hook) {
  if (!hooks_) hooks_ = std::make_shared<detail::HookLists>();
  const uint64_t id = hooks_->next_id++;
  hooks_->pre.emplace_back(id, std::move(hook));
  return RemovableHandle(hooks_, id);
}

RemovableHandle Module::register_forward_hook(ForwardHook hook) {
  if (!hooks_) hooks_ = std::make_shared<detail::HookLists>();
  const uint64_t id = hooks_->next_id++;
  hooks_->post.emplace_back(id, std::move(hook));
  return RemovableHandle(hooks_, id);
}

}  // namespace torchlet::nn
