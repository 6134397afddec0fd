// Small tabular data sets: the built-in Iris, scikit-learn's train_test_split (the exact rows
// it picks) and its MinMaxScaler and StandardScaler (its arithmetic).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "torchlet/tensor.h"

namespace torchlet::data {

struct Dataset {
  Tensor X;  // [rows, features] float32
  Tensor y;  // [rows] int64 class indices
  std::vector<std::string> feature_names;
  std::vector<std::string> class_names;
};

// The 150-row Iris data set, the values scikit-learn's load_iris() ships, on the CPU.
Dataset load_iris();

struct Split {
  Tensor X_train, X_test, y_train, y_test;
};

// Splits rows exactly as scikit-learn's train_test_split(X, y, test_size=test_size,
// random_state=random_state) does: a NumPy RandomState(random_state) permutation, the first
// ceil(test_size * n) rows for testing, the remaining n - ceil(test_size * n) for training.
// test_size must lie in (0, 1) and leave both parts non-empty; random_state < 2^32.
Split train_test_split(const Tensor& X, const Tensor& y, double test_size = 0.25,
                       uint64_t random_state = 0);
// The row indices that split picks: {train, test}.
std::pair<std::vector<int64_t>, std::vector<int64_t>> train_test_indices(int64_t n,
                                                                         double test_size,
                                                                         uint64_t random_state);

// Scales each column to [0, 1] with the training data's min and max, as scikit-learn's
// MinMaxScaler does (a constant column gets scale 1). Works on CPU tensors [rows, features].
class MinMaxScaler {
 public:
  MinMaxScaler() = default;
  // A fitted scaler from its parameters (a checkpoint's): transform computes x * scale + min.
  // data_min() and data_max() stay empty. Throws torchlet::Error unless both have the same
  // length >= 1 and are finite, with scale != 0.
  MinMaxScaler(std::vector<double> scale, std::vector<double> min);
  MinMaxScaler& fit(const Tensor& X);
  Tensor transform(const Tensor& X) const;
  Tensor fit_transform(const Tensor& X) { return fit(X).transform(X); }
  const std::vector<double>& data_min() const noexcept { return data_min_; }
  const std::vector<double>& data_max() const noexcept { return data_max_; }
  const std::vector<double>& scale() const noexcept { return scale_; }
  const std::vector<double>& min() const noexcept { return min_; }

 private:
  std::vector<double> data_min_, data_max_, scale_, min_;
};

// Scales each column to mean 0 and standard deviation 1 (population std, as scikit-learn's
// StandardScaler; a constant column gets scale 1).
class StandardScaler {
 public:
  StandardScaler() = default;
  // A fitted scaler from its parameters: transform computes (x - mean) / scale. Throws
  // torchlet::Error unless both have the same length >= 1 and are finite, with scale != 0.
  StandardScaler(std::vector<double> mean, std::vector<double> scale);
  StandardScaler& fit(const Tensor& X);
  Tensor transform(const Tensor& X) const;
  Tensor fit_transform(const Tensor& X) { return fit(X).transform(X); }
  const std::vector<double>& mean() const noexcept { return mean_; }
  const std::vector<double>& scale() const noexcept { return scale_; }

 private:
  std::vector<double> mean_, scale_;
};

// A fitted scaler's kind and parameters, with scikit-learn's attribute names, as a checkpoint
// keeps them: "minmax" (scale, min), "standard" (scale, mean) or "none".
struct ScalerParams {
  std::string kind = "none";
  std::vector<double> scale, min, mean;

  // Fits the scaler `kind` names to X (none: nothing to fit).
  static ScalerParams fit(const std::string& kind, const Tensor& X);
  // X [rows, features] float32 scaled by the scaler these parameters make (MinMaxScaler or
  // StandardScaler: the same values as the fitted one's transform); X itself for "none".
  Tensor transform(const Tensor& X) const;
};

}  // namespace torchlet::data
