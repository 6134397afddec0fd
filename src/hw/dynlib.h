// A library opened at run time with dlopen, and typed lookups of its functions (internal).
// Used for libcuda, NVML, libcudart and cuDNN, none of which torchlet links at build time.
#pragma once

#include <string>
#include <vector>

namespace torchlet::hw {

class DynLib {
 public:
  // Tries each soname in turn; found() tells whether one opened, error() why none did.
  explicit DynLib(const std::vector<std::string>& sonames);
  ~DynLib();
  DynLib(const DynLib&) = delete;
  DynLib& operator=(const DynLib&) = delete;

  bool found() const { return handle_ != nullptr; }
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

  // The function `symbol` as type F (a function pointer type), or nullptr.
  template <typename F>
  F get(const char* symbol) const {
    return reinterpret_cast<F>(lookup(symbol));
  }

 private:
  void* lookup(const char* symbol) const;

  void* handle_ = nullptr;
  std::string path_;
  std::string error_;
};

}  // namespace torchlet::hw
