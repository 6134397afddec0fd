// The generator behind manual_seed, rand, randn and parameter initialisation.
#include "torchlet/random.h"

#include <cmath>
#include <mutex>
#include <numbers>
#include <random>

#include "core/random_generator.h"

namespace torchlet {

namespace {

struct Generator {
  std::mutex mutex;
  std::mt19937_64 engine{0};
};

Generator& generator() {
  static Generator g;
  return g;
}

uint64_t next_bits() {
  Generator& g = generator();
  std::lock_guard lock(g.mutex);
  return g.engine();
}

}  // namespace

void manual_seed(uint64_t seed) {
  Generator& g = generator();
  std::lock_guard lock(g.mutex);
  g.engine.seed(seed);
}

namespace random {

uint64_t next_u64() { return next_bits(); }

double next_double() { return static_cast<double>(next_bits() >> 11) * 0x1.0p-53; }

double next_normal() {
  const double u1 = 1.0 - next_double();  // in (0, 1], so log is finite
  const double u2 = next_double();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace random
}  // namespace torchlet
