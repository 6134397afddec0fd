// ModuleList and ModuleDict: registration under PyTorch's names, checked indexing.
#include "torchlet/nn/containers.h"

#include <algorithm>

namespace torchlet::nn {

void ModuleList::push_back(std::shared_ptr<Module> module) {
  TORCHLET_CHECK(module != nullptr, "ModuleList: Expected a module, but got a null pointer");
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

void ModuleList::extend(const ModuleList& other) {
  TORCHLET_CHECK(&other != this,
                 "ModuleList: Expected another list to extend with, but got itself");
  for (const auto& module : other) push_back(module);
}

std::shared_ptr<Module> ModuleList::ptr(int64_t i) const {
  const auto n = static_cast<int64_t>(modules_.size());
  TORCHLET_CHECK(i >= -n && i < n, "ModuleList: Expected an index in [", -n, ", ", n, "), but got ",
                 i);
  return modules_[static_cast<std::size_t>(i < 0 ? i + n : i)];
}

Tensor ModuleList::forward(const std::vector<Tensor>&) {
  TORCHLET_CHECK(false, "ModuleList: Expected to be iterated in a model's forward, but got ",
                 "called (a ModuleList has no forward)");
  return Tensor();
}

ModuleDict::ModuleDict(const std::vector<Item>& items) {
  for (const auto& [key, module] : items) insert(key, module);
}

void ModuleDict::insert(const std::string& key, std::shared_ptr<Module> module) {
  TORCHLET_CHECK(module != nullptr, "ModuleDict: Expected a module for '", key,
                 "', but got a null pointer");
  register_module(key, module);
  items_.emplace_back(key, std::move(module));
}

bool ModuleDict::contains(const std::string& key) const {
  return std::any_of(items_.begin(), items_.end(),
                     [&](const Item& item) { return item.first == key; });
}

std::shared_ptr<Module> ModuleDict::ptr(const std::string& key) const {
  for (const auto& [name, module] : items_)
    if (name == key) return module;
  TORCHLET_CHECK(false, "ModuleDict: Expected one of its keys, but got '", key, "'");
  return nullptr;
}

std::vector<std::string> ModuleDict::keys() const {
  std::vector<std::string> out;
  for (const auto& item : items_) out.push_back(item.first);
  return out;
}

std::vector<std::shared_ptr<Module>> ModuleDict::values() const {
  std::vector<std::shared_ptr<Module>> out;
  for (const auto& item : items_) out.push_back(item.second);
  return out;
}

Tensor ModuleDict::forward(const std::vector<Tensor>&) {
  TORCHLET_CHECK(false, "ModuleDict: Expected to be indexed in a model's forward, but got ",
                 "called (a ModuleDict has no forward)");
  return Tensor();
}

}  // namespace torchlet::nn
