// A Backend that counts the calls of each of its entries and passes every call on to the
// backend it wraps: installed on a thread (CountingScope), every kernel of that backend's tensors
// goes through it (backend::routed, as torchlet::compile's recorder), so a test can name the
// entries a table of ops never reached (test_backend_coverage.cpp). kEntries lists every virtual
// function of backends/backend.h's Backend and FusedMlpKernels (the kernels through
// backends/entries.def, as backend.h declares them); a test checks that list against the two
// files, so an entry added to backend.h without one here fails.
#pragma once

#include <array>
#include <atomic>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "backends/backend.h"
#include "torchlet/error.h"

namespace torchlet::testing {

class CountingBackend final : public backend::Backend, public backend::FusedMlpKernels {
 public:
  // Every virtual function of Backend and FusedMlpKernels: those backend.h declares itself, then
  // the kernels of backends/entries.def.
  static constexpr auto kEntries = std::to_array<std::string_view>({
      "device",
      "allocate",
      "deallocate",
      "copy_from_host",
      "copy_to_host",
      "synchronize",
      "capturing",
      "linear_forward",
      "fused_mlp",
      "mlp_step",
      "mlp_sgd_steps",
#define TORCHLET_KERNEL(name, recording, params, args) #name,
#include "backends/entries.def"
#undef TORCHLET_KERNEL
  });

  explicit CountingBackend(backend::Backend& target) : target_(target) {}
  backend::Backend& target() const { return target_; }
  // How many times entry kEntries[k] was called.
  int64_t calls(std::size_t k) const { return calls_[k].load(); }

  using Loop = backend::Loop;
  using IndexLoop = backend::IndexLoop;
  using BinaryOp = backend::BinaryOp;
  using UnaryOp = backend::UnaryOp;
  using ReduceOp = backend::ReduceOp;
  using Window2d = backend::Window2d;
  using ParamUpdate = backend::ParamUpdate;
  using SgdOptions = backend::SgdOptions;
  using AdamOptions = backend::AdamOptions;
  using RmspropOptions = backend::RmspropOptions;
  using AdagradOptions = backend::AdagradOptions;
  using MlpStep = backend::MlpStep;
  using MlpSgd = backend::MlpSgd;
  using FusedMlpKernels = backend::FusedMlpKernels;

  Device device() const override {
    hit("device");
    return target_.device();
  }
  void* allocate(std::size_t nbytes) override {
    hit("allocate");
    return target_.allocate(nbytes);
  }
  void deallocate(void* ptr, std::size_t nbytes) noexcept override {
    hit("deallocate");
    target_.deallocate(ptr, nbytes);
  }
  void copy_from_host(void* dst, const void* src, std::size_t nbytes) override {
    hit("copy_from_host");
    target_.copy_from_host(dst, src, nbytes);
  }
  void copy_to_host(void* dst, const void* src, std::size_t nbytes) override {
    hit("copy_to_host");
    target_.copy_to_host(dst, src, nbytes);
  }
  void synchronize() override {
    hit("synchronize");
    target_.synchronize();
  }
  bool capturing() const override {
    hit("capturing");
    return target_.capturing();
  }
#define TORCHLET_KERNEL(name, recording, params, args) \
  void name params override {                          \
    hit(#name);                                        \
    target_.name args;                                 \
  }
#include "backends/entries.def"
#undef TORCHLET_KERNEL
  void linear_forward(const float* x, const float* w, const float* bias, float* y, int64_t rows,
                      int64_t in, int64_t out) override {
    hit("linear_forward");
    target_.linear_forward(x, w, bias, y, rows, in, out);
  }
  FusedMlpKernels* fused_mlp() override {
    hit("fused_mlp");
    return target_.fused_mlp() ? this : nullptr;
  }
  void mlp_step(const MlpStep& step) override {
    hit("mlp_step");
    target_.fused_mlp()->mlp_step(step);
  }
  void mlp_sgd_steps(const MlpStep& step, const MlpSgd& sgd, int64_t steps,
                     float* losses) override {
    hit("mlp_sgd_steps");
    target_.fused_mlp()->mlp_sgd_steps(step, sgd, steps, losses);
  }

 private:
  void hit(std::string_view entry) const noexcept {
    for (std::size_t k = 0; k < kEntries.size(); ++k)
      if (kEntries[k] == entry) ++calls_[k];
  }

  backend::Backend& target_;
  mutable std::array<std::atomic<int64_t>, kEntries.size()> calls_{};
};

// Routes this thread's kernels for `tensors` (by default counter.target()) through counter
// while it lives.
class CountingScope {
 public:
  explicit CountingScope(CountingBackend& counter) : CountingScope(counter, counter.target()) {}
  CountingScope(CountingBackend& counter, backend::Backend& tensors) {
    TORCHLET_ASSERT(!backend::detail::routing.target, "CountingScope inside a recording");
    backend::detail::routing = {&tensors, &counter};
  }
  ~CountingScope() { backend::detail::routing = {}; }
  CountingScope(const CountingScope&) = delete;
  CountingScope& operator=(const CountingScope&) = delete;
};

// The function names (destructors left out) that the first group of `declaration` matches in
// the header at `path`: the entries a backend's header declares, to check a list against.
inline std::set<std::string> functions_declared_in(const std::string& path,
                                                   const std::regex& declaration) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  const std::string source = text.str();
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(source.begin(), source.end(), declaration);
       it != std::sregex_iterator(); ++it)
    if ((*it)[1].str()[0] != '~') names.insert((*it)[1].str());
  return names;
}

// The kernels listed in backends/entries.def under `source_dir` (the checkout's root).
inline std::set<std::string> kernels_of_entries_def(const std::string& source_dir) {
  return functions_declared_in(source_dir + "/src/backends/entries.def",
                               std::regex(R"(TORCHLET_KERNEL\((\w+), (plain|own),)"));
}

}  // namespace torchlet::testing
