// The global random generator behind rand(), randn() and nn::Linear's initialisation.
#pragma once

#include <cstdint>

namespace torchlet {

// Reseeds the generator: the same seed gives the same initial weights and random tensors.
void manual_seed(uint64_t seed);

}  // namespace torchlet
