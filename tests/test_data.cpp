// torchlet::data against scikit-learn's numbers in fixtures/data_fixtures.json (written by
// fixtures/make_data_fixtures.py): the Iris table, the exact rows train_test_split picks, the
// MinMaxScaler and StandardScaler statistics and outputs, and the errors' wording.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "testing.h"
#include "torchlet/data/dataset.h"
#include "torchlet/error.h"

namespace torchlet::data {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using torchlet::testing::error_of;

const json& fixtures() {
  static const json parsed = [] {
    const std::string path = std::string(TORCHLET_FIXTURES_DIR) + "/data_fixtures.json";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    return json::parse(in);
  }();
  return parsed;
}

void expect_near_all(const std::vector<double>& actual, const json& expected, double tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i].get<double>(), tolerance) << "at index " << i;
  }
}

// The first rows of a float32 [rows, features] tensor against a JSON list of rows.
void expect_head_near(const Tensor& t, const json& expected_rows, double tolerance) {
  const std::vector<float> values = t.to_vector<float>();
  const int64_t cols = t.size(1);
  for (size_t r = 0; r < expected_rows.size(); ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      EXPECT_NEAR(values[r * cols + c], expected_rows[r][c].get<double>(), tolerance)
          << "at row " << r << ", column " << c;
    }
  }
}

TEST(DataIris, ShapesDtypesAndNames) {
  const Dataset iris = load_iris();
  EXPECT_EQ(iris.X.shape(), Shape({150, 4}));
  EXPECT_EQ(iris.X.dtype(), kFloat32);
  EXPECT_EQ(iris.X.device(), kCPU);
  EXPECT_EQ(iris.y.shape(), Shape({150}));
  EXPECT_EQ(iris.y.dtype(), kInt64);
  EXPECT_EQ(iris.feature_names,
            (std::vector<std::string>{"sepal length (cm)", "sepal width (cm)", "petal length (cm)",
                                      "petal width (cm)"}));
  EXPECT_EQ(iris.class_names, (std::vector<std::string>{"setosa", "versicolor", "virginica"}));
}

TEST(DataIris, KnownRows) {
  const Dataset iris = load_iris();
  const std::vector<float> X = iris.X.to_vector<float>();
  const std::vector<int64_t> y = iris.y.to_vector<int64_t>();
  const auto row = [&](int r) {
    return std::vector<float>(X.begin() + 4 * r, X.begin() + 4 * r + 4);
  };
  EXPECT_EQ(row(0), (std::vector<float>{5.1f, 3.5f, 1.4f, 0.2f}));
  EXPECT_EQ(row(50), (std::vector<float>{7.0f, 3.2f, 4.7f, 1.4f}));
  EXPECT_EQ(row(149), (std::vector<float>{5.9f, 3.0f, 5.1f, 1.8f}));
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[50], 1);
  EXPECT_EQ(y[149], 2);
}

TEST(DataIris, ColumnSumsAndClassCountsMatchNumpy) {
  const Dataset iris = load_iris();
  const std::vector<float> X = iris.X.to_vector<float>();
  std::vector<double> sums(4, 0.0);
  for (size_t i = 0; i < X.size(); ++i) sums[i % 4] += X[i];
  // NumPy sums the float64 values; the float32 ones differ by at most 150 half-ulps.
  expect_near_all(sums, fixtures()["iris"]["column_sums"], 1e-4);
  std::vector<int64_t> counts(3, 0);
  for (int64_t label : iris.y.to_vector<int64_t>()) ++counts.at(label);
  EXPECT_EQ(counts, fixtures()["iris"]["class_counts"].get<std::vector<int64_t>>());
}

TEST(DataSplit, IndicesMatchScikitLearn) {
  for (const json& split : fixtures()["splits"]) {
    const auto n = split["n"].get<int64_t>();
    const auto test_size = split["test_size"].get<double>();
    const auto seed = split["random_state"].get<uint64_t>();
    SCOPED_TRACE("n = " + std::to_string(n) + ", test_size = " + std::to_string(test_size) +
                 ", random_state = " + std::to_string(seed));
    const auto [train, test] = train_test_indices(n, test_size, seed);
    EXPECT_EQ(train, split["train"].get<std::vector<int64_t>>());
    EXPECT_EQ(test, split["test"].get<std::vector<int64_t>>());
  }
}

TEST(DataSplit, IrisTensorsHoldTheChosenRows) {
  const Dataset iris = load_iris();
  const json& expected = fixtures()["iris_split"];
  const auto test_size = expected["test_size"].get<double>();
  const auto seed = expected["random_state"].get<uint64_t>();
  const Split split = train_test_split(iris.X, iris.y, test_size, seed);
  EXPECT_EQ(split.X_train.shape(), Shape({120, 4}));
  EXPECT_EQ(split.X_test.shape(), Shape({30, 4}));
  EXPECT_EQ(split.y_train.shape(), Shape({120}));
  EXPECT_EQ(split.y_test.shape(), Shape({30}));
  EXPECT_EQ(split.X_train.dtype(), kFloat32);
  EXPECT_EQ(split.y_train.dtype(), kInt64);
  EXPECT_EQ(split.y_train.to_vector<int64_t>(), expected["y_train"].get<std::vector<int64_t>>());
  EXPECT_EQ(split.y_test.to_vector<int64_t>(), expected["y_test"].get<std::vector<int64_t>>());

  const std::vector<float> X = iris.X.to_vector<float>();
  const auto [train, test] = train_test_indices(150, test_size, seed);
  for (const auto& [part, rows] :
       {std::pair{split.X_train, train}, std::pair{split.X_test, test}}) {
    const std::vector<float> got = part.to_vector<float>();
    for (size_t i = 0; i < rows.size(); ++i) {
      for (int c = 0; c < 4; ++c) EXPECT_EQ(got[4 * i + c], X[4 * rows[i] + c]) << "row " << i;
    }
  }
}

TEST(DataSplit, GathersRowsOfAnyWidthWithDefaults) {
  // X[r] = {3r, 3r + 1, 3r + 2} and y[r] = r, so every output row names its source row.
  const int64_t n = 37;
  std::vector<float> x_values;
  std::vector<int64_t> y_values;
  for (int64_t r = 0; r < n; ++r) {
    for (int c = 0; c < 3; ++c) x_values.push_back(static_cast<float>(3 * r + c));
    y_values.push_back(r);
  }
  const Split split = train_test_split(tensor(x_values, {n, 3}), tensor(y_values, {n}));
  const auto [train, test] = train_test_indices(n, 0.25, 0);  // the defaults
  EXPECT_EQ(train.size(), 27u);
  EXPECT_EQ(test.size(), 10u);
  EXPECT_EQ(split.y_train.to_vector<int64_t>(), train);
  EXPECT_EQ(split.y_test.to_vector<int64_t>(), test);
  const std::vector<float> X_test = split.X_test.to_vector<float>();
  ASSERT_EQ(X_test.size(), 3 * test.size());
  for (size_t i = 0; i < test.size(); ++i) {
    EXPECT_EQ(X_test[3 * i + 2], static_cast<float>(3 * test[i] + 2)) << "row " << i;
  }
}

TEST(DataSplit, ErrorsNameTheArgument) {
  const Dataset iris = load_iris();
  for (double bad : {0.0, 1.0, 1.5, -0.25, std::nan("")}) {
    EXPECT_THAT(error_of([&] { train_test_split(iris.X, iris.y, bad); }),
                HasSubstr("Expected test_size in (0, 1), but got "));
  }
  EXPECT_EQ(error_of([&] { train_test_split(iris.X, iris.y, 1.5); }),
            "Expected test_size in (0, 1), but got 1.5");
  const Tensor y_short = tensor(std::vector<int64_t>(149, 0), {149});
  EXPECT_EQ(error_of([&] { train_test_split(iris.X, y_short); }),
            "Expected y to have as many rows as X (150), but got 149");
  EXPECT_EQ(error_of([&] { train_test_split(iris.y, iris.y); }),
            "Expected X to be 2-D [rows, features], but got shape [150]");
  EXPECT_EQ(error_of([&] { train_test_split(iris.X, iris.X); }),
            "Expected y to be 1-D [rows], but got shape [150, 4]");
  const Tensor y_float = tensor(std::vector<float>(150, 0.0f), {150});
  EXPECT_EQ(error_of([&] { train_test_split(iris.X, y_float); }),
            "Expected y of dtype int64, but got float32");
  EXPECT_EQ(error_of([] { train_test_indices(1, 0.5, 0); }),
            "Expected test_size to leave a non-empty train set, but got test_size = 0.5 with "
            "n = 1, so 1 test rows and 0 train rows");
  EXPECT_EQ(error_of([] { train_test_indices(0, 0.5, 0); }),
            "Expected at least one row to split, but got n = 0");
  EXPECT_EQ(error_of([] { train_test_indices(10, 0.5, uint64_t{1} << 32); }),
            "Expected random_state < 2^32 (NumPy's RandomState seed range), but got 4294967296");
}

// The Iris training and test features of the fixture's split.
std::pair<Tensor, Tensor> iris_split_features() {
  const Dataset iris = load_iris();
  const json& expected = fixtures()["iris_split"];
  const Split split = train_test_split(iris.X, iris.y, expected["test_size"].get<double>(),
                                       expected["random_state"].get<uint64_t>());
  return {split.X_train, split.X_test};
}

TEST(DataScaler, MinMaxMatchesScikitLearn) {
  const auto [X_train, X_test] = iris_split_features();
  const json& expected = fixtures()["minmax"];
  MinMaxScaler scaler;
  const Tensor train_scaled = scaler.fit_transform(X_train);
  expect_near_all(scaler.data_min(), expected["data_min"], 1e-12);
  expect_near_all(scaler.data_max(), expected["data_max"], 1e-12);
  expect_near_all(scaler.scale(), expected["scale"], 1e-12);
  expect_near_all(scaler.min(), expected["min"], 1e-12);
  EXPECT_EQ(train_scaled.shape(), Shape({120, 4}));
  EXPECT_EQ(train_scaled.dtype(), kFloat32);
  EXPECT_EQ(train_scaled.device(), kCPU);
  expect_head_near(train_scaled, expected["train_head"], 1e-6);
  expect_head_near(scaler.transform(X_test), expected["test_head"], 1e-6);
  // Every training column spans exactly [0, 1].
  const std::vector<float> values = train_scaled.to_vector<float>();
  for (int c = 0; c < 4; ++c) {
    float lo = 1.0f;
    float hi = 0.0f;
    for (size_t i = c; i < values.size(); i += 4) {
      lo = std::min(lo, values[i]);
      hi = std::max(hi, values[i]);
    }
    EXPECT_EQ(lo, 0.0f);
    EXPECT_NEAR(hi, 1.0f, 1e-6);
  }
}

TEST(DataScaler, StandardMatchesScikitLearn) {
  const auto [X_train, X_test] = iris_split_features();
  const json& expected = fixtures()["standard"];
  StandardScaler scaler;
  const Tensor train_scaled = scaler.fit_transform(X_train);
  expect_near_all(scaler.mean(), expected["mean"], 1e-12);
  expect_near_all(scaler.scale(), expected["scale"], 1e-12);
  EXPECT_EQ(train_scaled.shape(), Shape({120, 4}));
  EXPECT_EQ(train_scaled.dtype(), kFloat32);
  expect_head_near(train_scaled, expected["train_head"], 1e-6);
  expect_head_near(scaler.transform(X_test), expected["test_head"], 1e-6);
}

TEST(DataScaler, ConstantColumnsGetScaleOne) {
  // Column 0 is constant; column 1 varies.
  const Tensor X = tensor(std::vector<float>{2.0f, 1.0f, 2.0f, 3.0f}, {2, 2});
  MinMaxScaler minmax;
  EXPECT_EQ(minmax.fit_transform(X).to_vector<float>(), (std::vector<float>{0, 0, 0, 1}));
  EXPECT_EQ(minmax.scale(), (std::vector<double>{1.0, 0.5}));
  EXPECT_EQ(minmax.min(), (std::vector<double>{-2.0, -0.5}));
  StandardScaler standard;
  EXPECT_EQ(standard.fit_transform(X).to_vector<float>(), (std::vector<float>{0, -1, 0, 1}));
  EXPECT_EQ(standard.mean(), (std::vector<double>{2.0, 2.0}));
  EXPECT_EQ(standard.scale(), (std::vector<double>{1.0, 1.0}));
}

TEST(DataScaler, ErrorsNameTheProblem) {
  const Tensor X4 = tensor(std::vector<float>(8, 1.0f), {2, 4});
  const Tensor X3 = tensor(std::vector<float>(6, 1.0f), {2, 3});
  EXPECT_EQ(error_of([&] { MinMaxScaler().transform(X4); }),
            "Expected fit() before MinMaxScaler.transform, but got a scaler that was never fitted");
  EXPECT_EQ(error_of([&] { StandardScaler().transform(X4); }),
            "Expected fit() before StandardScaler.transform, but got a scaler that was never "
            "fitted");
  MinMaxScaler minmax;
  minmax.fit(X4);
  EXPECT_EQ(error_of([&] { minmax.transform(X3); }),
            "Expected MinMaxScaler.transform's X to have 4 features, as in fit(), but got shape "
            "[2, 3]");
  StandardScaler standard;
  standard.fit(X4);
  EXPECT_THAT(error_of([&] { standard.transform(X3); }),
              HasSubstr("to have 4 features, as in fit(), but got shape [2, 3]"));
  EXPECT_EQ(error_of([] {
              StandardScaler().fit(tensor(std::vector<float>{1, 2}, {2}));
            }),
            "Expected StandardScaler.fit's X to be 2-D [rows, features], but got shape [2]");
  EXPECT_EQ(error_of([] {
              MinMaxScaler().fit(tensor(std::vector<float>{}, {0, 4}));
            }),
            "Expected MinMaxScaler.fit's X to have at least one row and one feature, but got "
            "shape [0, 4]");
}

}  // namespace
}  // namespace torchlet::data
