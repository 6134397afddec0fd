// A counter-based random draw: uniform(seed, i) is a pure function of its arguments, so a
// kernel needs no generator state, every element can be drawn independently (by any thread,
// on any device) and the CPU and CUDA backends agree bit for bit. SplitMix64's finaliser mixes
// the counter; 24 bits make the float exact. torchlet::train's batch order draws from it too.
// Internal header, also included by .cu files.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define TORCHLET_HOST_DEVICE __host__ __device__
#else
#define TORCHLET_HOST_DEVICE
#endif

namespace torchlet::backend {

// Draw i of the stream `seed`: SplitMix64's output for the counter seed + (i + 1) * gamma.
TORCHLET_HOST_DEVICE inline uint64_t counter_bits(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

TORCHLET_HOST_DEVICE inline float dropout_uniform(uint64_t seed, uint64_t i) {
  return static_cast<float>(counter_bits(seed, i) >> 40) * (1.0f / 16777216.0f);  // [0, 1)
}

// The dropout mask value for element i: 0 with probability p, else 1 / (1 - p).
TORCHLET_HOST_DEVICE inline float dropout_mask(uint64_t seed, uint64_t i, float p) {
  return dropout_uniform(seed, i) < p ? 0.0f : 1.0f / (1.0f - p);
}

}  // namespace torchlet::backend
