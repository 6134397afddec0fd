// The generator behind manual_seed, rand, randn and parameter initialisation, and the draws
// made from it here: randint, randperm and the in-place normal_, uniform_ and bernoulli_.
#include "torchlet/random.h"

#include <cmath>
#include <mutex>
#include <numbers>
#include <random>
#include <vector>

#include "backends/recorder.h"
#include "core/random_generator.h"
#include "torchlet/error.h"
#include "torchlet/tensor.h"

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

namespace {

// Integer draws are made on the host, as rand's are: a compiled step would freeze them.
void check_host_draw(const char* op) {
  TORCHLET_CHECK(!backend::active_recorder(), "compile: Expected a step that only runs device ",
                 "kernels, but got ", op, " inside it (its values are drawn on the host and ",
                 "would be frozen); call it outside the step");
}

// A uniform integer in [0, n), n >= 1: 64-bit draws below the largest multiple of n, reduced
// modulo n (no bias).
int64_t below(int64_t n) {
  const auto range = static_cast<uint64_t>(n);
  const uint64_t limit = UINT64_MAX / range * range;
  uint64_t bits = random::next_u64();
  while (bits >= limit) bits = random::next_u64();
  return static_cast<int64_t>(bits % range);
}

void check_float(const char* op, const Tensor& t) {
  TORCHLET_CHECK(is_floating_point(t.dtype()), op,
                 ": Expected a float32 or float64 tensor, but got dtype ", t.dtype());
}

}  // namespace

Tensor randint(int64_t low, int64_t high, const Shape& shape, const TensorOptions& options) {
  TORCHLET_CHECK(low < high, "randint: Expected low < high, but got low ", low, " and high ", high);
  check_host_draw("randint");
  std::vector<int64_t> values(static_cast<std::size_t>(shape.numel()));
  for (int64_t& v : values) v = low + below(high - low);
  return tensor(values, shape, options.device).to(options.dtype);
}

Tensor randint(int64_t high, const Shape& shape, const TensorOptions& options) {
  return randint(0, high, shape, options);
}

Tensor randperm(int64_t n, const TensorOptions& options) {
  TORCHLET_CHECK(n >= 0, "randperm: Expected n >= 0, but got n = ", n);
  check_host_draw("randperm");
  std::vector<int64_t> values(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[i] = i;
  for (int64_t i = n - 1; i > 0; --i) std::swap(values[i], values[below(i + 1)]);  // Fisher-Yates
  return tensor(values, Shape{n}, options.device).to(options.dtype);
}

Tensor& Tensor::normal_(double mean, double std) {
  check_float("normal_", *this);
  TORCHLET_CHECK(std >= 0.0, "normal_: Expected std >= 0, but got std = ", std);
  return copy_(randn(shape(), dtype()) * std + mean);
}

Tensor& Tensor::uniform_(double from, double to) {
  check_float("uniform_", *this);
  return copy_(uniform(shape(), from, to, dtype()));
}

Tensor& Tensor::bernoulli_(double p) {
  check_float("bernoulli_", *this);
  TORCHLET_CHECK(p >= 0.0 && p <= 1.0, "bernoulli_: Expected a probability p between 0 and 1, ",
                 "but got p = ", p);
  return copy_(rand(shape()) < p);
}

}  // namespace torchlet
