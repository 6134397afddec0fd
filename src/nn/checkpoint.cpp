// nn::save and nn::load: a module's parameters, and optionally an optimizer's state, to and from
// a safetensors file (the format itself is in safetensors.cpp). Loading compares the whole file
// with the module and the optimizer first, so a file that does not fit changes nothing.
#include "torchlet/nn/checkpoint.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "torchlet/autograd.h"
#include "torchlet/error.h"

namespace torchlet::nn {
namespace {

constexpr std::string_view kStatePrefix = "optimizer.";

// "'a', 'b'" for a list of names.
std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "'" : ", '") + name + "'";
  return out;
}

const Tensor* find_tensor(const NamedTensors& tensors, const std::string& name) {
  const auto found = std::find_if(tensors.begin(), tensors.end(),
                                  [&](const auto& entry) { return entry.first == name; });
  return found == tensors.end() ? nullptr : &found->second;
}

bool has_optimizer_state(const Safetensors& file) {
  return file.metadata.contains(kOptimizerStateKey);
}

// Whether the file's tensor `name` is optimizer state rather than a parameter. Only files that
// say they hold state have any, so a module with a submodule named "optimizer" still loads.
bool is_state(const Safetensors& file, const std::string& name) {
  return has_optimizer_state(file) && name.starts_with(kStatePrefix);
}

void check_metadata(const Metadata& metadata) {
  TORCHLET_CHECK(!metadata.contains(kOptimizerStateKey),
                 "save: Expected metadata without the key '", kOptimizerStateKey,
                 "' (it names the optimizer whose state the file holds), but ", "got it");
}

// Throws unless the file's parameter tensors are exactly the module's, with their shapes and
// dtypes; the error lists every difference.
void check_parameters(const Safetensors& file, const NamedTensors& params,
                      const std::string& path) {
  std::vector<std::string> missing, unexpected, mismatched;
  for (const auto& [name, param] : params) {
    const Tensor* stored = find_tensor(file.tensors, name);
    if (stored == nullptr) {
      missing.push_back(name);
    } else if (stored->shape() != param.shape() || stored->dtype() != param.dtype()) {
      mismatched.push_back("'" + name + "' (" + stored->shape().str() + " " +
                           dtype_name(stored->dtype()) + " in the file, " + param.shape().str() +
                           " " + dtype_name(param.dtype()) + " in the module)");
    }
  }
  std::size_t stored = 0;
  for (const auto& [name, tensor] : file.tensors) {
    if (is_state(file, name)) continue;
    ++stored;
    if (find_tensor(params, name) == nullptr) unexpected.push_back(name);
  }
  std::string problems;
  if (!missing.empty()) problems += "; missing: " + quoted_list(missing);
  if (!unexpected.empty()) problems += "; unexpected: " + quoted_list(unexpected);
  for (std::size_t i = 0; i < mismatched.size(); ++i)
    problems += (i ? ", " : "; wrong shape or dtype: ") + mismatched[i];
  TORCHLET_CHECK(problems.empty(), path, ": Expected the module's ", params.size(),
                 " parameters, but the file's ", stored, " tensors do not match", problems);
}

void copy_parameters(const Safetensors& file, const NamedTensors& params) {
  NoGradGuard no_grad;  // parameters are leaves that require grad
  for (const auto& [name, param] : params) {
    Tensor target = param;
    target.copy_(*find_tensor(file.tensors, name));
  }
}

// The module's name of each of the optimizer's parameters, found by identity (the optimizer
// holds the module's own Tensor handles).
std::vector<std::string> optimizer_parameter_names(const NamedTensors& params,
                                                   const optim::Optimizer& optimizer,
                                                   const std::string& where) {
  std::vector<std::string> names;
  const std::vector<Tensor>& tensors = optimizer.parameters();
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto found = std::find_if(params.begin(), params.end(), [&](const auto& entry) {
      return entry.second.is_same(tensors[i]);
    });
    TORCHLET_CHECK(found != params.end(), where, ": Expected the optimizer's parameters to be ",
                   "the module's, but its parameter ", i, " (", tensors[i].shape(),
                   ") is not one of them");
    names.push_back(found->first);
  }
  return names;
}

}  // namespace

void save(const Module& module, const std::string& path, const Metadata& metadata) {
  check_metadata(metadata);
  write_safetensors(path, module.state_dict(), metadata);
}

void save(const Module& module, const optim::Optimizer& optimizer, const std::string& path,
          const Metadata& metadata) {
  check_metadata(metadata);
  NamedTensors tensors = module.state_dict();
  const std::vector<std::string> names = optimizer_parameter_names(tensors, optimizer, "save");
  const optim::StateDict state = optimizer.state_dict();
  for (std::size_t i = 0; i < state.size(); ++i)
    for (const auto& [key, value] : state[i])
      tensors.emplace_back(std::string(kStatePrefix) + names[i] + "." + key, value);
  Metadata with_kind = metadata;
  with_kind[kOptimizerStateKey] = optimizer.name();
  write_safetensors(path, tensors, with_kind);
}

Metadata load(Module& module, const std::string& path) {
  Safetensors file = read_safetensors(path);
  const NamedTensors params = module.state_dict();
  check_parameters(file, params, path);
  copy_parameters(file, params);
  return std::move(file.metadata);
}

Metadata load(Module& module, optim::Optimizer& optimizer, const std::string& path) {
  Safetensors file = read_safetensors(path);
  const NamedTensors params = module.state_dict();
  check_parameters(file, params, path);
  const auto kind = file.metadata.find(kOptimizerStateKey);
  TORCHLET_CHECK(kind != file.metadata.end(), path, ": Expected ", optimizer.name(),
                 "'s optimizer state, but the file holds none (it was saved without an "
                 "optimizer)");
  TORCHLET_CHECK(kind->second == optimizer.name(), path, ": Expected ", optimizer.name(),
                 "'s optimizer state, but got ", kind->second, "'s");
  const std::vector<std::string> names = optimizer_parameter_names(params, optimizer, path);
  optim::StateDict state(names.size());
  std::vector<std::string> unexpected;
  for (const auto& [name, tensor] : file.tensors) {
    if (!is_state(file, name)) continue;
    // "optimizer.<parameter>.<state>": state names hold no dot, parameter names may.
    const std::string rest = name.substr(kStatePrefix.size());
    const std::size_t dot = rest.rfind('.');
    const auto owner = dot == std::string::npos
                           ? names.end()
                           : std::find(names.begin(), names.end(), rest.substr(0, dot));
    if (owner == names.end())
      unexpected.push_back(name);
    else
      state[static_cast<std::size_t>(owner - names.begin())][rest.substr(dot + 1)] = tensor;
  }
  TORCHLET_CHECK(unexpected.empty(), path, ": Expected optimizer state named '", kStatePrefix,
                 "<parameter>.<state>' for the optimizer's parameters, but got ",
                 quoted_list(unexpected));
  try {
    optimizer.load_state_dict(state);  // checks everything before it changes anything
  } catch (const Error& e) {
    throw e.with_context(path + ": ");
  }
  copy_parameters(file, params);
  return std::move(file.metadata);
}

}  // namespace torchlet::nn
