// ModuleList and ModuleDict: PyTorch's containers that register their modules (so parameters(),
// to(), train() and the printed tree reach them) but define no forward of their own; a model
// iterates them in its forward.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "torchlet/error.h"
#include "torchlet/nn/holder.h"
#include "torchlet/nn/module.h"

namespace torchlet::nn {

namespace detail {
// list[i] or dict[key] as the layer type M, checked.
template <typename M>
M& as(Module& module, const std::string& where) {
  M* typed = dynamic_cast<M*>(&module);
  TORCHLET_CHECK(typed != nullptr, where, ": Expected a module of the requested type, but got ",
                 module.name());
  return *typed;
}
}  // namespace detail

// Modules in order, named "0", "1", ... as in PyTorch.
class ModuleList : public Module, public Holder<ModuleList> {
 public:
  ModuleList() = default;
  template <typename... Ms>
  explicit ModuleList(std::shared_ptr<Ms>... modules) {
    (push_back(std::move(modules)), ...);
  }
  void push_back(std::shared_ptr<Module> module);
  void extend(const ModuleList& other);
  std::size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  // Negative i counts from the end, as in Python.
  Module& operator[](int64_t i) const { return *ptr(i); }
  std::shared_ptr<Module> ptr(int64_t i) const;
  template <typename M>
  M& at(int64_t i) const {
    return detail::as<M>(*ptr(i), "ModuleList[" + std::to_string(i) + "]");
  }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }
  // Throws: a ModuleList is iterated, not called (PyTorch raises NotImplementedError).
  Tensor forward(const std::vector<Tensor>& inputs) override;
  std::string name() const override { return "ModuleList"; }

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};

// Modules by name, in insertion order.
class ModuleDict : public Module, public Holder<ModuleDict> {
 public:
  using Item = std::pair<std::string, std::shared_ptr<Module>>;
  ModuleDict() = default;
  explicit ModuleDict(const std::vector<Item>& items);
  // Adds a module under a new key (register_module's naming rules).
  void insert(const std::string& key, std::shared_ptr<Module> module);
  std::size_t size() const noexcept { return items_.size(); }
  bool is_empty() const noexcept { return items_.empty(); }
  bool contains(const std::string& key) const;
  Module& operator[](const std::string& key) const { return *ptr(key); }
  std::shared_ptr<Module> ptr(const std::string& key) const;
  template <typename M>
  M& at(const std::string& key) const {
    return detail::as<M>(*ptr(key), "ModuleDict['" + key + "']");
  }
  std::vector<std::string> keys() const;
  std::vector<std::shared_ptr<Module>> values() const;
  const std::vector<Item>& items() const noexcept { return items_; }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  // Throws: a ModuleDict is indexed, not called.
  Tensor forward(const std::vector<Tensor>& inputs) override;
  std::string name() const override { return "ModuleDict"; }

 private:
  std::vector<Item> items_;
};

}  // namespace torchlet::nn
