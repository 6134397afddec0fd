// The least-squares fit behind `torchlet bench overhead`: it recovers known costs from
// synthetic timings, says how sure it is, and copes with columns the data cannot determine.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "torchlet/error.h"
#include "torchlet/report/fit.h"

namespace torchlet {
namespace {

using report::least_squares;

// The overhead bench's design: record every 1, 10, 100, 200, 1000 epochs or never, each
// with item() per record or deferred, printing every 100 epochs or never, over 20,000 epochs.
// Columns: 1 (the base), syncs, prints.
std::vector<std::vector<double>> overhead_design() {
  std::vector<std::vector<double>> rows;
  for (double every : {1.0, 10.0, 100.0, 200.0, 1000.0, 0.0}) {
    for (bool sync : {true, false}) {
      if (every == 0.0 && !sync) continue;
      for (double print_every : {100.0, 0.0}) {
        const double records = every > 0 ? 20000.0 / every : 0.0;
        const double prints = print_every > 0 ? 20000.0 / print_every : 0.0;
        rows.push_back({1.0, (sync ? records : 0.0) + prints + 1.0, prints});
      }
    }
  }
  return rows;
}

TEST(LeastSquares, RecoversKnownCostsFromExactTimings) {
  // 0.4 s base, 25 us per sync, 3 us per print: the shape of a GPU run's costs.
  const auto rows = overhead_design();
  std::vector<double> y;
  for (const auto& r : rows) y.push_back(0.4 + 25e-6 * r[1] + 3e-6 * r[2]);
  const auto fit = least_squares(rows, y);
  ASSERT_EQ(fit.coefficients.size(), 3u);
  EXPECT_NEAR(fit.coefficients[0], 0.4, 1e-12);
  EXPECT_NEAR(fit.coefficients[1], 25e-6, 1e-15);
  EXPECT_NEAR(fit.coefficients[2], 3e-6, 1e-14);
  EXPECT_NEAR(fit.r2, 1.0, 1e-12);
  EXPECT_LT(fit.rms_residual, 1e-12);
  for (bool d : fit.determined) EXPECT_TRUE(d);
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(fit.fitted[i], y[i], 1e-12);
}

TEST(LeastSquares, NoisyTimingsLandWithinTheirStandardErrors) {
  const auto rows = overhead_design();
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.0, 2e-3);  // 2 ms of scheduling noise per run
  std::vector<double> y;
  for (int repeat = 0; repeat < 4; ++repeat)
    for (const auto& r : rows) y.push_back(0.4 + 25e-6 * r[1] + 3e-6 * r[2] + noise(rng));
  std::vector<std::vector<double>> all;
  for (int repeat = 0; repeat < 4; ++repeat) all.insert(all.end(), rows.begin(), rows.end());
  const auto fit = least_squares(all, y);
  const double want[3] = {0.4, 25e-6, 3e-6};
  for (int j = 0; j < 3; ++j) {
    EXPECT_GT(fit.std_errors[j], 0.0) << j;
    EXPECT_LT(std::abs(fit.coefficients[j] - want[j]), 4 * fit.std_errors[j]) << j;
  }
  // Syncs vary by 20,000 between settings (0.5 s), far above the noise: well explained.
  EXPECT_GT(fit.r2, 0.99);
  EXPECT_LT(fit.r2, 1.0);
  EXPECT_NEAR(fit.rms_residual, 2e-3, 1e-3);
}

TEST(LeastSquares, PureNoiseExplainsNothing) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(1.0, 0.1);
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (int i = 0; i < 400; ++i) {
    rows.push_back({1.0, static_cast<double>(i % 7)});
    y.push_back(noise(rng));
  }
  const auto fit = least_squares(rows, y);
  EXPECT_LT(fit.r2, 0.05);
  EXPECT_NEAR(fit.coefficients[0], 1.0, 0.05);
  EXPECT_LT(std::abs(fit.coefficients[1]), 4 * fit.std_errors[1]);
}

TEST(LeastSquares, ColumnsTheDataCannotDetermineAreMarked) {
  // An all-zero column (no prints in any run) and a column equal to twice another.
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (double s : {0.0, 10.0, 100.0, 1000.0}) {
    rows.push_back({1.0, s, 0.0, 2 * s});
    y.push_back(2.0 + 0.5 * s);
  }
  const auto fit = least_squares(rows, y);
  EXPECT_TRUE(fit.determined[0]);
  EXPECT_FALSE(fit.determined[2]);
  EXPECT_EQ(fit.coefficients[2], 0.0);
  EXPECT_EQ(fit.std_errors[2], 0.0);
  // One of the two collinear columns is dropped; the other carries the whole effect.
  EXPECT_NE(fit.determined[1], fit.determined[3]);
  const double slope = fit.coefficients[1] + 2 * fit.coefficients[3];
  EXPECT_NEAR(slope, 0.5, 1e-12);
  EXPECT_NEAR(fit.coefficients[0], 2.0, 1e-9);
  EXPECT_NEAR(fit.r2, 1.0, 1e-12);
}

TEST(LeastSquares, AsManyRowsAsColumnsFitsExactlyWithUnknownErrors) {
  const auto fit = least_squares({{1.0, 0.0}, {1.0, 1.0}}, {3.0, 5.0});
  EXPECT_NEAR(fit.coefficients[0], 3.0, 1e-12);
  EXPECT_NEAR(fit.coefficients[1], 2.0, 1e-12);
  EXPECT_TRUE(std::isnan(fit.std_errors[0]));
}

TEST(LeastSquares, ConstantTimingsMatchedExactlyCountAsExplained) {
  const auto fit = least_squares({{1.0}, {1.0}, {1.0}}, {0.25, 0.25, 0.25});
  EXPECT_NEAR(fit.coefficients[0], 0.25, 1e-15);
  EXPECT_EQ(fit.r2, 1.0);
}

TEST(LeastSquares, BadInputIsRefusedWithTheReason) {
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] { least_squares({}, {}); }).find("Expected at least one row"),
            std::string::npos);
  EXPECT_NE(message([] {
              least_squares({{1.0}}, {1.0, 2.0});
            }).find("1 rows and 2 values"),
            std::string::npos);
  EXPECT_NE(message([] {
              least_squares({{1.0, 2.0}, {1.0}}, {1.0, 2.0});
            }).find("row 1 has 1"),
            std::string::npos);
  EXPECT_NE(message([] { least_squares({{}}, {1.0}); }).find("at least one column"),
            std::string::npos);
  EXPECT_NE(message([] { least_squares({{1.0}}, {NAN}); }).find("finite"), std::string::npos);
}

}  // namespace
}  // namespace torchlet
