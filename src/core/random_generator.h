// The global random generator (a 64-bit Mersenne Twister), seeded by manual_seed(). Internal.
#pragma once

#include <cstdint>

namespace torchlet::random {

// Uniform in [0, 1), 53 random bits.
double next_double();
// 64 random bits (a seed for counter-based draws such as dropout's).
uint64_t next_u64();
// Standard normal (Box-Muller).
double next_normal();

}  // namespace torchlet::random
