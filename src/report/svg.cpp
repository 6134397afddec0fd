// render_svg: a LineChart as one standalone SVG document. Axes get "nice" ticks (1-2-5 steps,
// or decades with light minor lines on log axes) and a light grid; series are polylines with
// a circle and tooltip per point, broken where points are skipped (non-finite, beyond
// +-1e300, or <= 0 on a log axis). Numbers are written with to_chars, so the output never depends
// on the locale.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "torchlet/error.h"
#include "torchlet/report/chart.h"

namespace torchlet::report {
namespace {

// Tableau's ten colours: distinct from each other, readable on white.
constexpr std::array<const char*, 10> kPalette = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                                  "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                                  "#bcbd22", "#17becf"};
constexpr double kCharWidth = 6.5;       // rough width of one 11-12px sans-serif character
constexpr int kTargetTicks = 6;          // about this many steps on a linear axis
constexpr int kMaxDecadeSteps = 8;       // at most this many on a log axis
constexpr double kLargestValue = 1e300;  // larger values are skipped: their spans overflow

std::string format(double value, std::chars_format fmt, int precision) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, fmt, precision);
  return std::string(buffer, result.ptr);
}

// A pixel coordinate.
std::string px(double value) { return format(value, std::chars_format::fixed, 1); }

// A data value in a tooltip.
std::string value_text(double value) { return format(value, std::chars_format::general, 6); }

struct Axis {
  bool log = false;
  double lo = 0.0, hi = 1.0;  // the ends, in axis units (log10 of the value on a log axis)
  std::vector<double> ticks;  // in axis units
  std::vector<std::string> tick_labels;
  std::vector<double> minor;  // minor grid lines on log axes, in axis units

  bool usable(double value) const {
    return std::abs(value) <= kLargestValue && (!log || value > 0.0);  // false for NaN too
  }
  double unit(double value) const { return log ? std::log10(value) : value; }
};

// The plot area in pixels and the axes that map data onto it.
struct Frame {
  double left, top, width, height;
  Axis x, y;

  double x_at(double unit) const { return left + (unit - x.lo) / (x.hi - x.lo) * width; }
  double y_at(double unit) const { return top + (y.hi - unit) / (y.hi - y.lo) * height; }
};

// 1, 2 or 5 times a power of ten, near span / kTargetTicks.
double nice_step(double span) {
  const double raw = span / kTargetTicks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / magnitude;
  return magnitude * (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0);
}

std::string linear_tick_label(double value, double step) {
  const double size = std::max(std::abs(value), step);
  if (size >= 1e6 || step < 1e-4) {
    // Exponent notation with enough digits to tell neighbouring ticks apart.
    const double digits = std::floor(std::log10(size)) - std::floor(std::log10(step)) + 1;
    return format(value, std::chars_format::general, static_cast<int>(std::min(digits, 17.0)));
  }
  const int decimals = step >= 1.0 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  return format(value, std::chars_format::fixed, decimals);
}

std::string decade_label(int exponent) {
  if (exponent < -4 || exponent > 6) return "1e" + std::to_string(exponent);
  return format(std::pow(10.0, exponent), std::chars_format::fixed, std::max(0, -exponent));
}

// An axis covering `values` (all usable), with ticks at nice round values at or beyond both
// ends. No values give 0..1 (1..10 on a log axis); equal values get a margin around them.
Axis make_axis(const std::vector<double>& values, bool log) {
  Axis axis;
  axis.log = log;
  double lo = 0.0, hi = 1.0;
  if (!values.empty()) {
    const auto [min, max] = std::minmax_element(values.begin(), values.end());
    lo = axis.unit(*min);
    hi = axis.unit(*max);
  }
  if (log) {
    const int first = static_cast<int>(std::floor(lo));
    const int last = std::max(static_cast<int>(std::ceil(hi)), first + 1);
    const int every = (last - first + kMaxDecadeSteps - 1) / kMaxDecadeSteps;
    axis.lo = first;
    axis.hi = first + every * ((last - first + every - 1) / every);
    for (int k = first; k <= axis.hi; k += every) {
      axis.ticks.push_back(k);
      axis.tick_labels.push_back(decade_label(k));
      if (every > 1 || k == axis.hi) continue;
      for (int m = 2; m <= 9; ++m) axis.minor.push_back(k + std::log10(m));
    }
    return axis;
  }
  // Values equal to about nine digits get a margin, so that the ticks stay few and distinct.
  if (hi - lo <= 1e-9 * std::max(std::abs(lo), std::abs(hi))) {
    const double margin = lo == 0.0 ? 1.0 : std::abs(lo) * 0.1;
    lo -= margin;
    hi += margin;
  }
  const double step = nice_step(hi - lo);
  const double first = std::floor(lo / step);
  const auto count = static_cast<int>(std::ceil(hi / step) - first);
  axis.lo = first * step;
  axis.hi = (first + count) * step;
  for (int i = 0; i <= count; ++i) {
    const double k = first + i;
    const double tick = k == 0.0 ? 0.0 : k * step;  // never "-0"
    axis.ticks.push_back(tick);
    axis.tick_labels.push_back(linear_tick_label(tick, step));
  }
  return axis;
}

// Vertical lines at x units and horizontal ones at y units, across the plot area.
void write_grid(std::ostringstream& svg, const Frame& frame, const std::vector<double>& x_units,
                const std::vector<double>& y_units, const char* colour) {
  const std::string top = px(frame.top), bottom = px(frame.top + frame.height);
  const std::string left = px(frame.left), right = px(frame.left + frame.width);
  svg << "<g stroke=\"" << colour << "\" stroke-width=\"1\">\n";
  for (double u : x_units) {
    const std::string x = px(frame.x_at(u));
    svg << "<line x1=\"" << x << "\" y1=\"" << top << "\" x2=\"" << x << "\" y2=\"" << bottom
        << "\"/>\n";
  }
  for (double u : y_units) {
    const std::string y = px(frame.y_at(u));
    svg << "<line x1=\"" << left << "\" y1=\"" << y << "\" x2=\"" << right << "\" y2=\"" << y
        << "\"/>\n";
  }
  svg << "</g>\n";
}

size_t longest(const std::vector<std::string>& texts) {
  size_t n = 0;
  for (const std::string& text : texts) n = std::max(n, text.size());
  return n;
}

// Frame, grid, tick labels, axis labels, and "no data" when nothing can be drawn.
void write_axes(std::ostringstream& svg, const Frame& frame, const LineChart& chart,
                bool has_points) {
  write_grid(svg, frame, frame.x.minor, frame.y.minor, "#f0f0f0");
  write_grid(svg, frame, frame.x.ticks, frame.y.ticks, "#dddddd");
  const double bottom = frame.top + frame.height, middle_x = frame.left + frame.width / 2;
  svg << "<rect x=\"" << px(frame.left) << "\" y=\"" << px(frame.top) << "\" width=\""
      << px(frame.width) << "\" height=\"" << px(frame.height)
      << "\" fill=\"none\" stroke=\"#888888\"/>\n<g font-size=\"11\" fill=\"#444444\">\n";
  for (size_t i = 0; i < frame.x.ticks.size(); ++i) {
    svg << "<text x=\"" << px(frame.x_at(frame.x.ticks[i])) << "\" y=\"" << px(bottom + 16)
        << "\" text-anchor=\"middle\">" << xml_escape(frame.x.tick_labels[i]) << "</text>\n";
  }
  for (size_t i = 0; i < frame.y.ticks.size(); ++i) {
    svg << "<text x=\"" << px(frame.left - 6) << "\" y=\"" << px(frame.y_at(frame.y.ticks[i]) + 4)
        << "\" text-anchor=\"end\">" << xml_escape(frame.y.tick_labels[i]) << "</text>\n";
  }
  svg << "</g>\n";
  if (!chart.x_label.empty()) {
    svg << "<text x=\"" << px(middle_x) << "\" y=\"" << px(bottom + 40)
        << "\" text-anchor=\"middle\" font-size=\"13\" fill=\"#222222\">"
        << xml_escape(chart.x_label) << "</text>\n";
  }
  if (!chart.y_label.empty()) {
    const std::string y = px(frame.top + frame.height / 2);
    svg << "<text x=\"18\" y=\"" << y << "\" transform=\"rotate(-90 18 " << y
        << ")\" text-anchor=\"middle\" font-size=\"13\" fill=\"#222222\">"
        << xml_escape(chart.y_label) << "</text>\n";
  }
  if (!has_points) {
    svg << "<text x=\"" << px(middle_x) << "\" y=\"" << px(frame.top + frame.height / 2)
        << "\" text-anchor=\"middle\" font-size=\"13\" fill=\"#888888\">no data</text>\n";
  }
}

// Dashed vertical lines; labels are staggered so that neighbours do not overprint, and turn
// left near the right edge.
void write_markers(std::ostringstream& svg, const Frame& frame,
                   const std::vector<Marker>& markers) {
  for (size_t i = 0; i < markers.size(); ++i) {
    if (!frame.x.usable(markers[i].x)) continue;
    const double x = frame.x_at(frame.x.unit(markers[i].x));
    const bool flip = x > frame.left + 0.75 * frame.width;
    svg << "<line x1=\"" << px(x) << "\" y1=\"" << px(frame.top) << "\" x2=\"" << px(x)
        << "\" y2=\"" << px(frame.top + frame.height)
        << "\" stroke=\"#555555\" stroke-dasharray=\"5 4\"/>\n<text x=\""
        << px(flip ? x - 4 : x + 4) << "\" y=\""
        << px(frame.top + 14 + 14 * static_cast<double>(i % 3)) << "\" text-anchor=\""
        << (flip ? "end" : "start") << "\" font-size=\"11\" fill=\"#333333\">"
        << xml_escape(markers[i].label) << "</text>\n";
  }
}

// The series' own colour, or the palette's for its position. Only "#" and hex digits are
// kept, so that a colour cannot break the document.
std::string colour_of(const std::vector<Series>& series, size_t s) {
  std::string colour;
  for (char c : series[s].colour)
    if (c == '#' || std::isxdigit(static_cast<unsigned char>(c))) colour += c;
  return colour.size() == 7 && colour[0] == '#' ? colour : kPalette[s % kPalette.size()];
}

// A polyline per unbroken run of usable points, then a circle with a tooltip per point.
void write_series(std::ostringstream& svg, const Frame& frame, const Series& series,
                  const std::string& colour) {
  const std::string dash = series.dashed ? "\" stroke-dasharray=\"7 4" : "";
  const std::string prefix = series.name.empty() ? "" : xml_escape(series.name) + ": ";
  std::string polylines, circles, run;
  size_t run_points = 0;
  const auto end_run = [&] {
    if (run_points > 1 && !series.points_only) {
      polylines += "<polyline points=\"" + run + "\" fill=\"none\" stroke=\"" + colour +
                   "\" stroke-width=\"2\" stroke-linejoin=\"round" + dash + "\"/>\n";
    }
    run.clear();
    run_points = 0;
  };
  for (size_t i = 0; i < series.x.size(); ++i) {
    if (!frame.x.usable(series.x[i]) || !frame.y.usable(series.y[i])) {
      end_run();
      continue;
    }
    const std::string x = px(frame.x_at(frame.x.unit(series.x[i])));
    const std::string y = px(frame.y_at(frame.y.unit(series.y[i])));
    run += (run.empty() ? "" : " ") + x + "," + y;
    ++run_points;
    circles += "<circle cx=\"" + x + "\" cy=\"" + y + "\" r=\"2.5\" fill=\"" + colour +
               "\"><title>" + prefix + "(" + value_text(series.x[i]) + ", " +
               value_text(series.y[i]) + ")</title></circle>\n";
  }
  end_run();
  svg << "<g>\n" << polylines << circles << "</g>\n";
}

void write_legend(std::ostringstream& svg, const Frame& frame, const std::vector<Series>& series) {
  const double x = frame.left + frame.width + 16;
  svg << "<g font-size=\"12\" fill=\"#222222\">\n";
  for (size_t s = 0; s < series.size(); ++s) {
    const double y = frame.top + 10 + 18 * static_cast<double>(s);
    svg << "<line x1=\"" << px(x) << "\" y1=\"" << px(y) << "\" x2=\"" << px(x + 18) << "\" y2=\""
        << px(y) << "\" stroke=\"" << colour_of(series, s) << "\" stroke-width=\"3"
        << (series[s].dashed ? "\" stroke-dasharray=\"6 3" : "") << "\"/>\n<text x=\"" << px(x + 24)
        << "\" y=\"" << px(y + 4) << "\">" << xml_escape(series[s].name) << "</text>\n";
  }
  svg << "</g>\n";
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render_svg(const LineChart& chart) {
  TORCHLET_CHECK(chart.width >= 200 && chart.height >= 150,
                 "Expected a chart of at least 200x150 pixels, but got ", chart.width, "x",
                 chart.height);
  Axis x_axis, y_axis;
  x_axis.log = chart.log_x;
  y_axis.log = chart.log_y;
  std::vector<double> xs, ys;
  for (const Series& series : chart.series) {
    TORCHLET_CHECK(series.x.size() == series.y.size(), "Expected series '", series.name,
                   "' to have as many x as y values, but got ", series.x.size(), " x and ",
                   series.y.size(), " y");
    for (size_t i = 0; i < series.x.size(); ++i) {
      if (!x_axis.usable(series.x[i]) || !y_axis.usable(series.y[i])) continue;
      xs.push_back(series.x[i]);
      ys.push_back(series.y[i]);
    }
  }
  const bool has_points = !xs.empty();
  for (const Marker& marker : chart.markers) {
    if (x_axis.usable(marker.x)) xs.push_back(marker.x);
  }

  // Margins fit the title, the y tick labels, the axis labels and a legend on the right.
  Frame frame{0.0, 0.0, 0.0, 0.0, make_axis(xs, chart.log_x), make_axis(ys, chart.log_y)};
  std::vector<std::string> names;
  for (const Series& series : chart.series) names.push_back(series.name);
  const bool legend = chart.series.size() > 1;
  const double width = chart.width, height = chart.height;
  const double legend_width =
      legend ? std::min(width / 3.0, 40.0 + kCharWidth * static_cast<double>(longest(names))) : 0.0;
  frame.left = 18.0 + (chart.y_label.empty() ? 0.0 : 20.0) +
               kCharWidth * static_cast<double>(longest(frame.y.tick_labels));
  frame.top = chart.title.empty() ? 16.0 : 44.0;
  // The last x tick label is centred on the right edge: leave room for its half.
  const double right = std::max(
      24.0, 10.0 + kCharWidth / 2 * static_cast<double>(frame.x.tick_labels.back().size()));
  frame.width = width - frame.left - right - legend_width;
  frame.height = height - frame.top - 30.0 - (chart.x_label.empty() ? 0.0 : 22.0);

  std::ostringstream svg;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << chart.width << "\" height=\""
      << chart.height << "\" viewBox=\"0 0 " << chart.width << " " << chart.height
      << "\" font-family=\"system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  if (!chart.title.empty()) {
    svg << "<text x=\"" << px(width / 2) << "\" y=\"26\" text-anchor=\"middle\" font-size=\"16\" "
        << "font-weight=\"600\" fill=\"#222222\">" << xml_escape(chart.title) << "</text>\n";
  }
  write_axes(svg, frame, chart, has_points);
  write_markers(svg, frame, chart.markers);
  for (size_t s = 0; s < chart.series.size(); ++s) {
    write_series(svg, frame, chart.series[s], colour_of(chart.series, s));
  }
  if (legend) write_legend(svg, frame, chart.series);
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace torchlet::report
