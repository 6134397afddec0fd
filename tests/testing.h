// Test helpers: comparing values with a tolerance and a useful message, seeded random
// inputs, and a central-finite-difference gradient check for any differentiable function.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "torchlet/torchlet.h"

namespace torchlet::testing {

// Passes when |got - want| <= atol + rtol * |want| everywhere; otherwise names the worst index.
inline ::testing::AssertionResult all_close(const std::vector<float>& got,
                                            const std::vector<float>& want, double atol = 1e-5,
                                            double rtol = 1e-5) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure()
           << "size " << got.size() << " but expected " << want.size();
  double worst = 0.0;
  std::size_t worst_i = 0;
  bool ok = true;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = std::abs(double(got[i]) - double(want[i]));
    const double excess = err - (atol + rtol * std::abs(double(want[i])));
    if (!(excess <= 0.0)) ok = false;  // NaN fails too
    if (!(err <= worst)) worst = err, worst_i = i;
  }
  if (ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "worst element " << worst_i << ": got " << got[worst_i] << ", expected "
         << want[worst_i] << " (|diff| " << worst << ", atol " << atol << ", rtol " << rtol << ")";
}

// Seeded uniform values in [lo, hi).
inline std::vector<float> random_values(int64_t n, uint32_t seed, float lo = -1.0f,
                                        float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

inline Tensor random_tensor(const Shape& shape, uint32_t seed, bool requires_grad = false) {
  Tensor t = tensor(random_values(shape.numel(), seed), shape);
  if (requires_grad) t.set_requires_grad(true);
  return t;
}

// Checks the gradients backward() gives for every input of f against central differences
// of the scalar sum(f(inputs) * w), w a fixed random weighting (so every output element's
// gradient matters). Float32 differences are coarse: eps 1e-2 and a 1e-2 tolerance.
inline void expect_gradients_match(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                                   std::vector<Tensor> inputs, const std::string& what,
                                   double eps = 1e-2, double tol = 1e-2) {
  for (Tensor& x : inputs) {
    x.set_requires_grad(true);
    x.set_grad(Tensor());  // a fresh start when the same inputs are checked again
  }
  Tensor out = f(inputs);
  const Tensor w = random_tensor(out.shape(), 99);
  (out * w).sum().backward();
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    std::vector<float> values = inputs[k].to_vector<float>();
    std::vector<float> numeric(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      auto objective = [&](float delta) {
        std::vector<float> shifted = values;
        shifted[i] += delta;
        std::vector<Tensor> args = inputs;
        args[k] = tensor(shifted, inputs[k].shape());
        NoGradGuard no_grad;
        return static_cast<double>((f(args) * w).sum().item());
      };
      numeric[i] = static_cast<float>((objective(eps) - objective(-eps)) / (2 * eps));
    }
    ASSERT_TRUE(inputs[k].grad().defined()) << what << ": no gradient for input " << k;
    EXPECT_TRUE(all_close(inputs[k].grad().to_vector<float>(), numeric, tol, tol))
        << what << ": gradient of input " << k << " of shape " << inputs[k].shape();
  }
}

}  // namespace torchlet::testing
