// Test helpers: comparing values with a tolerance and a useful message, seeded random
// inputs, a central-finite-difference gradient check for any differentiable function, a small
// MLP and its weights, the message of a torchlet::Error, and scratch folders and files.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "torchlet/torchlet.h"

// Skips a test that needs a GPU where there is none (ctest then reports it as skipped).
#define SKIP_WITHOUT_GPU()             \
  if (!torchlet::cuda::is_available()) \
  GTEST_SKIP() << "no CUDA device (torchlet::cuda::is_available())"

namespace torchlet::testing {

// The GPU the Cuda* tests run on.
inline const Device kGpu("cuda:0");

// An MLP 4-hidden-3 as `torchlet train` builds it (parameters "0.weight", "0.bias",
// "2.weight", "2.bias"), with the initial weights of manual_seed(seed).
inline std::shared_ptr<nn::Sequential> small_mlp(uint64_t seed, int64_t hidden = 7) {
  manual_seed(seed);
  auto model = std::make_shared<nn::Sequential>();
  model->add<nn::Linear>(4, hidden);
  model->add<nn::ReLU>();
  model->add<nn::Linear>(hidden, 3);
  return model;
}

// The course's model as its lesson writes it (examples/iris_mlp.cpp): a struct of layers,
// registered by name, with its own forward.
struct CourseMlp : nn::Module {
  nn::Linear fc1{4, 10};
  nn::ReLU relu;
  nn::Linear fc2{10, 3};
  CourseMlp() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  Tensor forward(const Tensor& x) override { return fc2(relu(fc1(x))); }
};

// The values of every parameter of `m`, in parameters() order.
inline std::vector<std::vector<float>> parameter_values(const nn::Module& m) {
  std::vector<std::vector<float>> out;
  for (const Tensor& p : m.parameters()) out.push_back(p.to_vector<float>());
  return out;
}

// The message of the torchlet::Error that f throws, or "(no error)" when it throws none (so
// a comparison with the expected message fails and shows why).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// A file's whole content ("" when it cannot be read).
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A new empty folder named after the running test, left behind for a look after a failure.
inline std::filesystem::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "_" + info->name();
  for (char& c : name)
    if (c == '/') c = '_';
  auto dir = std::filesystem::path(::testing::TempDir()) / ("torchlet_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A fresh folder under GoogleTest's temporary directory, removed with everything in it when
// the object goes; `folder / "name"` is a path in it as a string.
class TempFolder {
 public:
  TempFolder() {
    std::string name = ::testing::TempDir() + "torchlet-XXXXXX";
    path_ = mkdtemp(name.data());
  }
  ~TempFolder() { std::filesystem::remove_all(path_); }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Passes when |got - want| <= atol + rtol * |want| everywhere; otherwise names the worst index.
template <typename T>
::testing::AssertionResult all_close_of(const std::vector<T>& got, const std::vector<T>& want,
                                        double atol, double rtol) {
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
inline ::testing::AssertionResult all_close(const std::vector<float>& got,
                                            const std::vector<float>& want, double atol = 1e-5,
                                            double rtol = 1e-5) {
  return all_close_of(got, want, atol, rtol);
}
inline ::testing::AssertionResult all_close(const std::vector<double>& got,
                                            const std::vector<double>& want, double atol,
                                            double rtol) {
  return all_close_of(got, want, atol, rtol);
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

// What the CUDA tests compare between devices: f's output and every input's gradient of
// sum(f(inputs) * w), w a fixed random weighting (so every output element's gradient matters),
// copied back to the CPU. inputs are leaves on one device that require grad; the output must
// stay on their device. An input without a gradient gives an empty vector.
struct OutputAndGrads {
  std::vector<float> out;
  std::vector<std::vector<float>> grads;
};
inline OutputAndGrads output_and_grads(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                                       const std::vector<Tensor>& inputs, const std::string& what) {
  Tensor out = f(inputs);
  EXPECT_EQ(out.device(), inputs.front().device()) << what;
  const Tensor w = random_tensor(out.shape(), 99).to(out.device());
  (out * w).sum().backward();
  OutputAndGrads r{out.to(kCPU).to_vector<float>(), {}};
  for (const Tensor& x : inputs)
    r.grads.push_back(x.grad().defined() ? x.grad().to(kCPU).to_vector<float>()
                                         : std::vector<float>{});
  return r;
}

// Checks the gradients backward() gives for every input of f against central differences
// of the scalar sum(f(inputs) * w), w a fixed random weighting (so every output element's
// gradient matters). Float32 differences are coarse: eps 1e-2 and a 1e-2 tolerance. T double:
// the inputs are float64 (and f computes in float64), whose differences are far finer.
template <typename T = float>
void expect_gradients_match(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                            std::vector<Tensor> inputs, const std::string& what, double eps = 1e-2,
                            double tol = 1e-2) {
  for (Tensor& x : inputs) {
    x.set_requires_grad(true);
    x.set_grad(Tensor());  // a fresh start when the same inputs are checked again
  }
  Tensor out = f(inputs);
  const Tensor w = random_tensor(out.shape(), 99);
  (out * w).sum().backward();
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    std::vector<T> values = inputs[k].to_vector<T>();
    std::vector<T> numeric(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      auto objective = [&](T delta) {
        std::vector<T> shifted = values;
        shifted[i] += delta;
        std::vector<Tensor> args = inputs;
        args[k] = tensor(shifted, inputs[k].shape());
        NoGradGuard no_grad;
        return (f(args) * w).sum().item<double>();
      };
      numeric[i] = static_cast<T>(
          (objective(static_cast<T>(eps)) - objective(static_cast<T>(-eps))) / (2 * eps));
    }
    ASSERT_TRUE(inputs[k].grad().defined()) << what << ": no gradient for input " << k;
    EXPECT_TRUE(all_close(inputs[k].grad().to_vector<T>(), numeric, tol, tol))
        << what << ": gradient of input " << k << " of shape " << inputs[k].shape();
  }
}

}  // namespace torchlet::testing
