// sparkline: values as one line of the eight block characters ▁▂▃▄▅▆▇█, for a terminal.
// Long inputs are averaged in equal buckets; non-finite values are left out of the averages,
// and a bucket with none of its values finite shows as a space.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "torchlet/error.h"
#include "torchlet/report/chart.h"

namespace torchlet::report {
namespace {

constexpr std::array<const char*, 8> kBlocks = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};

}  // namespace

std::string sparkline(const std::vector<double>& values, int width) {
  TORCHLET_CHECK(width >= 1, "Expected a sparkline width of at least 1, but got ", width);
  const size_t n = values.size();
  const size_t columns = std::min(n, static_cast<size_t>(width));
  // Bucket c averages values [c * n / columns, (c + 1) * n / columns); NaN marks an empty one.
  std::vector<double> buckets(columns, std::numeric_limits<double>::quiet_NaN());
  for (size_t c = 0; c < columns; ++c) {
    const auto first = values.begin() + static_cast<std::ptrdiff_t>(c * n / columns);
    const auto last = values.begin() + static_cast<std::ptrdiff_t>((c + 1) * n / columns);
    const auto count =
        static_cast<double>(std::count_if(first, last, [](double v) { return std::isfinite(v); }));
    if (count == 0) continue;
    double mean = 0.0;  // a sum of v / count, which cannot overflow as a sum of v could
    for (auto it = first; it != last; ++it) {
      if (std::isfinite(*it)) mean += *it / count;
    }
    buckets[c] = mean;
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double v : buckets) {
    if (std::isnan(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  std::string line;
  for (double v : buckets) {
    if (std::isnan(v)) {
      line += ' ';
    } else if (!(hi / 2 > lo / 2)) {
      line += kBlocks[3];  // all equal: a flat line at mid height
    } else {
      // Halved so that values near +-DBL_MAX do not overflow the differences.
      const double level = std::round((v / 2 - lo / 2) / (hi / 2 - lo / 2) * 7.0);
      line += kBlocks[static_cast<size_t>(std::clamp(level, 0.0, 7.0))];
    }
  }
  return line;
}

}  // namespace torchlet::report
