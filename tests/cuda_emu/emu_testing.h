// Helpers for the emulator's kernel tests: every test runs a CUDA launcher (emulated) in each
// thread order and compares its output with the CPU backend's kernel on the same inputs.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/cuda/kernels.h"
#include "cuda_emu/emu.h"

namespace torchlet::emu::testing {

namespace kernels = backend::cuda::kernels;

inline backend::Backend& cpu() { return backend::get(Device(DeviceType::CPU)); }

// Runs f once per thread order (forward, reverse, shuffled), naming the order on failure.
template <typename F>
void for_each_order(F&& f) {
  for (Order order : kOrders) {
    SCOPED_TRACE(std::string("thread order ") + order_name(order));
    set_order(order, 12345);
    f();
  }
}

// n floats uniform in [lo, hi), from seed.
inline std::vector<float> uniform(std::size_t n, uint64_t seed, float lo = -2.0f, float hi = 2.0f) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

inline std::vector<int64_t> integers(std::size_t n, uint64_t seed, int64_t lo, int64_t hi) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> d(lo, hi - 1);
  std::vector<int64_t> v(n);
  for (int64_t& x : v) x = d(rng);
  return v;
}

// Every element within rtol of the reference (relative to the larger of 1 and its magnitude),
// NaN where it is NaN; the message names what, the index and the worst element.
template <typename T>
void expect_close(const std::vector<T>& got, const std::vector<T>& want, double rtol,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t worst = 0, bad = 0;
  double worst_err = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = static_cast<double>(got[i]), w = static_cast<double>(want[i]);
    const bool both_nan = std::isnan(g) && std::isnan(w);
    const double err = both_nan ? 0.0 : std::abs(g - w) / std::max(1.0, std::abs(w));
    if (!(err <= rtol)) ++bad;
    if (!(err <= worst_err)) worst_err = err, worst = i;
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << got.size() << " elements differ; worst at "
                     << worst << ": " << got[worst] << " vs " << want[worst] << " (relative error "
                     << worst_err << ")";
}

// A device error word as the backend keeps one (kernels report bad indices through it).
struct ErrorWord {
  int64_t word = kernels::kNoError;
  kernels::ErrorFlag flag() { return {&word}; }
};

}  // namespace torchlet::emu::testing
