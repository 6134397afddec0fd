// nn::save and nn::load: a module's parameters to and from a safetensors file (the format
// itself is in safetensors.cpp). Loading compares the whole file with the module first, so a
// file that does not fit changes nothing.
#include "torchlet/nn/checkpoint.h"

#include <algorithm>
#include <string>
#include <vector>

#include "torchlet/autograd.h"
#include "torchlet/error.h"

namespace torchlet::nn {
namespace {

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

}  // namespace

void save(const Module& module, const std::string& path, const Metadata& metadata) {
  write_safetensors(path, module.named_parameters(), metadata);
}

Metadata load(Module& module, const std::string& path) {
  Safetensors file = read_safetensors(path);
  const NamedTensors params = module.named_parameters();
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
  for (const auto& [name, stored] : file.tensors)
    if (find_tensor(params, name) == nullptr) unexpected.push_back(name);
  std::string problems;
  if (!missing.empty()) problems += "; missing: " + quoted_list(missing);
  if (!unexpected.empty()) problems += "; unexpected: " + quoted_list(unexpected);
  for (std::size_t i = 0; i < mismatched.size(); ++i)
    problems += (i ? ", " : "; wrong shape or dtype: ") + mismatched[i];
  TORCHLET_CHECK(problems.empty(), path, ": Expected the module's ", params.size(),
                 " parameters, but the file's ", file.tensors.size(), " tensors do not match",
                 problems);
  NoGradGuard no_grad;  // parameters are leaves that require grad
  for (const auto& [name, param] : params) {
    Tensor target = param;
    target.copy_(*find_tensor(file.tensors, name));
  }
  return std::move(file.metadata);
}

}  // namespace torchlet::nn
