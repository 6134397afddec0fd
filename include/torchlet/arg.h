// TORCHLET_ARG, the option builders' accessor pair (LibTorch's TORCH_ARG): in a struct with a
// member name_, TORCHLET_ARG(type, name) defines the chained setter name(value), which returns
// the struct, and the getter name(). Used by optim/options.h and nn/options.h.
#pragma once

#define TORCHLET_ARG(type, name)  \
  auto& name(const type& value) { \
    name##_ = value;              \
    return *this;                 \
  }                               \
  const type& name() const noexcept { return name##_; }
