// least_squares: the normal equations (X^T X) b = X^T y on columns scaled to unit length, so
// that a column counting thousands of syncs and one counting a handful of prints are equally
// well conditioned. A column whose pivot vanishes (relative to its own length) is dropped and
// the rest solved again; its coefficient is reported as undetermined.
#include "torchlet/report/fit.h"

#include <cmath>
#include <limits>
#include <numeric>

#include "torchlet/error.h"

namespace torchlet::report {
namespace {

using Matrix = std::vector<std::vector<double>>;

// Inverts the symmetric matrix a (p x p) by Gauss-Jordan elimination with partial pivoting.
// Returns the index of a column whose pivot fell below `tiny`, or -1 when a was inverted.
int invert(Matrix a, Matrix& inverse, double tiny) {
  const std::size_t p = a.size();
  inverse.assign(p, std::vector<double>(p, 0.0));
  for (std::size_t i = 0; i < p; ++i) inverse[i][i] = 1.0;
  std::vector<std::size_t> column(p);  // original column of each row position
  std::iota(column.begin(), column.end(), 0);
  for (std::size_t c = 0; c < p; ++c) {
    std::size_t best = c;
    for (std::size_t r = c + 1; r < p; ++r)
      if (std::abs(a[r][c]) > std::abs(a[best][c])) best = r;
    if (std::abs(a[best][c]) <= tiny) return static_cast<int>(c);
    std::swap(a[c], a[best]);
    std::swap(inverse[c], inverse[best]);
    const double pivot = a[c][c];
    for (std::size_t k = 0; k < p; ++k) a[c][k] /= pivot, inverse[c][k] /= pivot;
    for (std::size_t r = 0; r < p; ++r) {
      if (r == c || a[r][c] == 0.0) continue;
      const double f = a[r][c];
      for (std::size_t k = 0; k < p; ++k)
        a[r][k] -= f * a[c][k], inverse[r][k] -= f * inverse[c][k];
    }
  }
  return -1;
}

}  // namespace

LeastSquaresFit least_squares(const std::vector<std::vector<double>>& rows,
                              const std::vector<double>& y) {
  TORCHLET_CHECK(!rows.empty(), "least_squares: Expected at least one row, but got none");
  TORCHLET_CHECK(rows.size() == y.size(),
                 "least_squares: Expected as many rows as y values, "
                 "but got ",
                 rows.size(), " rows and ", y.size(), " values");
  const std::size_t n = rows.size(), p = rows[0].size();
  TORCHLET_CHECK(p > 0, "least_squares: Expected at least one column, but got none");
  for (std::size_t i = 0; i < n; ++i) {
    TORCHLET_CHECK(rows[i].size() == p, "least_squares: Expected ", p,
                   " columns in every row, "
                   "but row ",
                   i, " has ", rows[i].size());
    TORCHLET_CHECK(std::isfinite(y[i]), "least_squares: Expected finite values, but y[", i, "] is ",
                   y[i]);
    for (double v : rows[i])
      TORCHLET_CHECK(std::isfinite(v), "least_squares: Expected finite values, but row ", i,
                     " holds ", v);
  }
  // Column lengths, to scale each column to unit length (all-zero columns are undetermined).
  std::vector<double> norm(p, 0.0);
  for (const auto& row : rows)
    for (std::size_t j = 0; j < p; ++j) norm[j] += row[j] * row[j];
  std::vector<std::size_t> active;
  for (std::size_t j = 0; j < p; ++j) {
    norm[j] = std::sqrt(norm[j]);
    if (norm[j] > 0.0) active.push_back(j);
  }
  Matrix inverse;
  for (;;) {
    const std::size_t q = active.size();
    if (q == 0) break;
    Matrix xtx(q, std::vector<double>(q, 0.0));
    for (const auto& row : rows)
      for (std::size_t a = 0; a < q; ++a)
        for (std::size_t b = 0; b < q; ++b)
          xtx[a][b] += row[active[a]] / norm[active[a]] * (row[active[b]] / norm[active[b]]);
    // On unit-length columns the diagonal is 1, so an absolute threshold is a relative one.
    const int bad = invert(xtx, inverse, 1e-10);
    if (bad < 0) break;
    active.erase(active.begin() + bad);
  }

  LeastSquaresFit fit;
  fit.coefficients.assign(p, 0.0);
  fit.determined.assign(p, false);
  fit.std_errors.assign(p, 0.0);
  const std::size_t q = active.size();
  std::vector<double> xty(q, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t a = 0; a < q; ++a) xty[a] += rows[i][active[a]] / norm[active[a]] * y[i];
  for (std::size_t a = 0; a < q; ++a) {
    double b = 0.0;
    for (std::size_t c = 0; c < q; ++c) b += inverse[a][c] * xty[c];
    fit.coefficients[active[a]] = b / norm[active[a]];
    fit.determined[active[a]] = true;
  }
  double ss_res = 0.0, ss_tot = 0.0;
  const double mean = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(n);
  fit.fitted.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    double f = 0.0;
    for (std::size_t j = 0; j < p; ++j) f += fit.coefficients[j] * rows[i][j];
    fit.fitted[i] = f;
    ss_res += (y[i] - f) * (y[i] - f);
    ss_tot += (y[i] - mean) * (y[i] - mean);
  }
  fit.rms_residual = std::sqrt(ss_res / static_cast<double>(n));
  // Relative to y's size, a residual at rounding level counts as an exact fit.
  const double scale = std::max(ss_tot, mean * mean * static_cast<double>(n));
  fit.r2 = ss_tot > 0.0 ? 1.0 - ss_res / ss_tot : (ss_res <= 1e-20 * scale ? 1.0 : 0.0);
  const double dof = static_cast<double>(n) - static_cast<double>(q);
  for (std::size_t a = 0; a < q; ++a) {
    fit.std_errors[active[a]] = dof > 0 ? std::sqrt(ss_res / dof * inverse[a][a]) / norm[active[a]]
                                        : std::numeric_limits<double>::quiet_NaN();
  }
  return fit;
}

}  // namespace torchlet::report
