// Regression metrics for a test set, with scikit-learn's definitions: root mean squared
// error, mean absolute error and R² (1 - residual sum of squares / total sum of squares; for
// a constant true value 1 when every prediction is exact, else 0, as r2_score's default).
#pragma once

#include <cstdint>
#include <vector>

namespace torchlet::report {

struct RegressionReport {
  double rmse = 0.0, mae = 0.0, r2 = 0.0;
  int64_t rows = 0;
};

// Throws torchlet::Error when the sizes differ or there are no rows.
RegressionReport regression_report(const std::vector<double>& y_true,
                                   const std::vector<double>& y_pred);

}  // namespace torchlet::report
