// Turning gradient recording off and on. Recording is per thread and on by default.
#pragma once

namespace torchlet {

bool is_grad_enabled() noexcept;
void set_grad_enabled(bool enabled) noexcept;

// RAII: no autograd graph is recorded while one is alive (evaluation, optimizer updates).
class NoGradGuard {
 public:
  NoGradGuard() noexcept : previous_(is_grad_enabled()) { set_grad_enabled(false); }
  ~NoGradGuard() { set_grad_enabled(previous_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace torchlet
