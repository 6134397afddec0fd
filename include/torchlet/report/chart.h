// Charts as standalone SVG (readable in any browser) and terminal sparklines, for the loss
// curve of `torchlet train` and the charts of `torchlet bench`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace torchlet::report {

struct Series {
  std::string name;  // shown in the legend when the chart has more than one series
  std::vector<double> x, y;
  // Drawing: a colour ("#rrggbb"; empty: the palette's colour for the series' position) and a
  // dashed line, so that e.g. colour can say the model width and the dash the device.
  std::string colour{};
  bool dashed = false;
  bool points_only = false;  // a scatter: the points' circles without a line through them
};

// A vertical line with a label, e.g. where the GPU starts to win.
struct Marker {
  double x;
  std::string label;
};

struct LineChart {
  std::string title, x_label, y_label;  // labels should carry units, e.g. "time per epoch (ms)"
  std::vector<Series> series;
  std::vector<Marker> markers;
  bool log_x = false, log_y = false;
  int width = 720, height = 420;
};

// A complete SVG document: title, axes with labels, "nice" tick values, one polyline per
// series (each point also a small circle, with a <title> tooltip), a legend, and markers.
// Non-finite points are skipped. Text is XML-escaped.
std::string render_svg(const LineChart& chart);

// One line of block characters (▁▂▃▄▅▆▇█) tracing values, resampled to at most `width`.
std::string sparkline(const std::vector<double>& values, int width = 60);

// Text made safe inside XML or HTML, attribute values included: & < > " ' as entities.
std::string xml_escape(std::string_view text);

}  // namespace torchlet::report
