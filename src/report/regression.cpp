// regression_report: RMSE, MAE and R² in double precision (see regression.h).
#include "torchlet/report/regression.h"

#include <cmath>
#include <cstdint>

#include "torchlet/error.h"

namespace torchlet::report {

RegressionReport regression_report(const std::vector<double>& y_true,
                                   const std::vector<double>& y_pred) {
  TORCHLET_CHECK(!y_true.empty() && y_true.size() == y_pred.size(),
                 "regression_report: Expected as many predictions as true values (>= 1), but "
                 "got ",
                 y_pred.size(), " and ", y_true.size());
  const auto n = static_cast<double>(y_true.size());
  double mean = 0.0;
  for (double y : y_true) mean += y / n;
  double squared = 0.0, absolute = 0.0, total = 0.0;
  for (std::size_t i = 0; i < y_true.size(); ++i) {
    const double e = y_pred[i] - y_true[i];
    squared += e * e, absolute += std::abs(e);
    total += (y_true[i] - mean) * (y_true[i] - mean);
  }
  RegressionReport r;
  r.rows = static_cast<int64_t>(y_true.size());
  r.rmse = std::sqrt(squared / n);
  r.mae = absolute / n;
  r.r2 = total > 0 ? 1.0 - squared / total : squared == 0 ? 1.0 : 0.0;
  return r;
}

}  // namespace torchlet::report
