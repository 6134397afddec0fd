// Ordinary least squares for small models: y ~ b0 * x0 + b1 * x1 + ... over a few columns,
// solved through the normal equations. `torchlet bench overhead` uses it to split a training
// run's time into a fixed part and a cost per synchronisation and per printed line.
#pragma once

#include <string>
#include <vector>

namespace torchlet::report {

struct LeastSquaresFit {
  // One per column, in the order given; 0 for a column the data cannot determine (all zero,
  // or a combination of the others), which `determined` marks false.
  std::vector<double> coefficients;
  std::vector<bool> determined;
  // Standard errors of the coefficients (NaN when there are no more rows than determined
  // columns, 0 for undetermined ones): how far noise alone could move each estimate.
  std::vector<double> std_errors;
  std::vector<double> fitted;  // the model's value for each row
  // 1 - residual sum of squares / total sum of squares about the mean of y: the share of the
  // variation of y between rows that the model explains (1 when y is constant and matched).
  double r2 = 0.0;
  double rms_residual = 0.0;  // sqrt(mean squared residual), in y's unit
};

// Fits y[i] ~ sum_j b[j] * rows[i][j]. For an intercept give every row a column of 1s. Each row
// must have the same number of columns (at least one), as many rows as y values, at least one
// row, and finite values; otherwise throws torchlet::Error naming the problem.
LeastSquaresFit least_squares(const std::vector<std::vector<double>>& rows,
                              const std::vector<double>& y);

}  // namespace torchlet::report
