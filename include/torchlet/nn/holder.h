// LibTorch reaches a layer through a holder (a shared pointer): fc->weight, fc->parameters(),
// conv1->forward(x), for (auto& m : *blocks). A torchlet layer is the module itself; deriving
// from Holder<Layer> lets the same code read: fc->weight is fc.weight, *blocks is blocks.
// Every layer of layers.h, norm.h, activations.h and containers.h has it.
#pragma once

namespace torchlet::nn {

template <typename Derived>
class Holder {
 public:
  Derived* operator->() noexcept { return static_cast<Derived*>(this); }
  const Derived* operator->() const noexcept { return static_cast<const Derived*>(this); }
  Derived& operator*() noexcept { return static_cast<Derived&>(*this); }
  const Derived& operator*() const noexcept { return static_cast<const Derived&>(*this); }
};

}  // namespace torchlet::nn
