// MinMaxScaler and StandardScaler with scikit-learn's arithmetic: statistics in double over the
// float32 values, near-constant columns scaled by 1 as its _handle_zeros_in_scale and
// _is_constant_feature decide, and transform computed in double, returned as float32 on the CPU.
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "torchlet/data/dataset.h"
#include "torchlet/error.h"

namespace torchlet::data {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

// A [rows, features] tensor's values widened to double, row-major.
struct Table {
  std::vector<double> values;
  int64_t rows = 0;
  int64_t cols = 0;

  double at(int64_t row, int64_t col) const { return values[row * cols + col]; }
};

// X's values, checked to be a float32 matrix; `caller` names the method in messages.
Table read_table(const Tensor& X, const char* caller) {
  TORCHLET_CHECK(X.dim() == 2, "Expected ", caller,
                 "'s X to be 2-D [rows, features], but got shape ", X.shape());
  TORCHLET_CHECK(X.dtype() == kFloat32, "Expected ", caller, "'s X of dtype float32, but got ",
                 X.dtype());
  const std::vector<float> values = X.to(kCPU).to_vector<float>();
  return Table{std::vector<double>(values.begin(), values.end()), X.size(0), X.size(1)};
}

// As read_table, for fit: at least one row and one feature to take statistics of.
Table read_fit_table(const Tensor& X, const char* caller) {
  Table table = read_table(X, caller);
  TORCHLET_CHECK(table.rows > 0 && table.cols > 0, "Expected ", caller,
                 "'s X to have at least one row and one feature, but got shape ", X.shape());
  return table;
}

// X's values for transform, checked against the `fitted` feature count (0: never fitted).
Table read_transform_table(const Tensor& X, size_t fitted, const char* caller) {
  TORCHLET_CHECK(fitted > 0, "Expected fit() before ", caller,
                 ", but got a scaler that was never fitted");
  Table table = read_table(X, caller);
  TORCHLET_CHECK(table.cols == static_cast<int64_t>(fitted), "Expected ", caller, "'s X to have ",
                 fitted, " features, as in fit(), but got shape ", X.shape());
  return table;
}

// f(value, column) for every value, as a float32 CPU tensor of the table's shape.
template <typename F>
Tensor map_values(const Table& table, F f) {
  std::vector<float> out(table.values.size());
  for (int64_t r = 0; r < table.rows; ++r) {
    for (int64_t c = 0; c < table.cols; ++c) {
      out[r * table.cols + c] = static_cast<float>(f(table.at(r, c), c));
    }
  }
  return tensor(out, {table.rows, table.cols});
}

// Parameters of a scaler made from them: one value per feature, finite, scale != 0.
void check_params(const std::vector<double>& scale, const std::vector<double>& offset,
                  const char* offset_name, const char* caller) {
  TORCHLET_CHECK(!scale.empty() && scale.size() == offset.size(), "Expected ", caller,
                 "'s scale and ", offset_name, " with the same number (>= 1) of values, but got ",
                 scale.size(), " and ", offset.size());
  for (std::size_t c = 0; c < scale.size(); ++c)
    TORCHLET_CHECK(std::isfinite(scale[c]) && scale[c] != 0 && std::isfinite(offset[c]),
                   "Expected ", caller, "'s parameters finite with scale != 0, but got scale ",
                   scale[c], " and ", offset_name, " ", offset[c], " for feature ", c);
}

}  // namespace

MinMaxScaler::MinMaxScaler(std::vector<double> scale, std::vector<double> min)
    : scale_(std::move(scale)), min_(std::move(min)) {
  check_params(scale_, min_, "min", "MinMaxScaler");
}

StandardScaler::StandardScaler(std::vector<double> mean, std::vector<double> scale)
    : mean_(std::move(mean)), scale_(std::move(scale)) {
  check_params(scale_, mean_, "mean", "StandardScaler");
}

ScalerParams ScalerParams::fit(const std::string& kind, const Tensor& X) {
  ScalerParams params{kind, {}, {}, {}};
  if (kind == "minmax") {
    MinMaxScaler scaler;
    scaler.fit(X);
    params.scale = scaler.scale(), params.min = scaler.min();
  } else if (kind == "standard") {
    StandardScaler scaler;
    scaler.fit(X);
    params.scale = scaler.scale(), params.mean = scaler.mean();
  } else {
    TORCHLET_CHECK(kind == "none", "Expected a scaler minmax, standard or none, but got '", kind,
                   "'");
  }
  return params;
}

Tensor ScalerParams::transform(const Tensor& X) const {
  if (kind == "minmax") return MinMaxScaler(scale, min).transform(X);
  if (kind == "standard") return StandardScaler(mean, scale).transform(X);
  TORCHLET_CHECK(kind == "none", "Expected a scaler minmax, standard or none, but got '", kind,
                 "'");
  return X;
}

MinMaxScaler& MinMaxScaler::fit(const Tensor& X) {
  const Table table = read_fit_table(X, "MinMaxScaler.fit");
  const auto cols = static_cast<size_t>(table.cols);
  data_min_.assign(table.values.begin(), table.values.begin() + table.cols);
  data_max_ = data_min_;
  for (int64_t r = 1; r < table.rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      const double value = table.at(r, static_cast<int64_t>(c));
      data_min_[c] = std::fmin(data_min_[c], value);
      data_max_[c] = std::fmax(data_max_[c], value);
    }
  }
  scale_.resize(cols);
  min_.resize(cols);
  for (size_t c = 0; c < cols; ++c) {
    const double range = data_max_[c] - data_min_[c];
    scale_[c] = 1.0 / (range < 10 * kEps ? 1.0 : range);
    min_[c] = 0.0 - data_min_[c] * scale_[c];
  }
  return *this;
}

Tensor MinMaxScaler::transform(const Tensor& X) const {
  const Table table = read_transform_table(X, scale_.size(), "MinMaxScaler.transform");
  return map_values(table, [this](double value, int64_t c) { return value * scale_[c] + min_[c]; });
}

StandardScaler& StandardScaler::fit(const Tensor& X) {
  const Table table = read_fit_table(X, "StandardScaler.fit");
  const auto cols = static_cast<size_t>(table.cols);
  const auto n = static_cast<double>(table.rows);
  mean_.assign(cols, 0.0);
  scale_.assign(cols, 0.0);
  for (size_t c = 0; c < cols; ++c) {
    const auto col = static_cast<int64_t>(c);
    double sum = 0.0;
    for (int64_t r = 0; r < table.rows; ++r) sum += table.at(r, col);
    mean_[c] = sum / n;
    // The corrected two-pass variance (Chan, Golub and LeVeque), as scikit-learn computes it.
    double deviation_sum = 0.0;
    double squared_sum = 0.0;
    for (int64_t r = 0; r < table.rows; ++r) {
      const double deviation = table.at(r, col) - mean_[c];
      deviation_sum += deviation;
      squared_sum += deviation * deviation;
    }
    const double var = (squared_sum - deviation_sum * deviation_sum / n) / n;
    const double rounding_bound = n * kEps * var + (n * mean_[c] * kEps) * (n * mean_[c] * kEps);
    scale_[c] = var <= rounding_bound ? 1.0 : std::sqrt(var);
  }
  return *this;
}

Tensor StandardScaler::transform(const Tensor& X) const {
  const Table table = read_transform_table(X, scale_.size(), "StandardScaler.transform");
  return map_values(table,
                    [this](double value, int64_t c) { return (value - mean_[c]) / scale_[c]; });
}

}  // namespace torchlet::data
