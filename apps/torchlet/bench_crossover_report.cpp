// `torchlet bench crossover`, the report: a table per device, where each GPU starts to win,
// charts of time per epoch against rows and against width (one line per device and size,
// colour for the size, dashed for a GPU), JSON and CSV.
#include <fmt/core.h>

#include <array>

#include "bench_crossover.h"
#include "torchlet/report/chart.h"

namespace torchlet::cli::bench {

namespace {

constexpr std::array<const char*, 8> kColours = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                                 "#9467bd", "#8c564b", "#e377c2", "#17becf"};

double share(const Cell& c) { return std::min(1.0, c.arithmetic_s / c.epoch_s); }

double per_epoch(uint64_t count, const Cell& c) {
  return static_cast<double>(count) / static_cast<double>(c.epochs);
}

std::string crossover_line(const Crossover& x) {
  if (x.compared == 0)
    return fmt::format("depth {} width {}: no row count measured on both devices", x.depth,
                       x.width);
  if (x.wins_from_rows == 0)
    return fmt::format("depth {} width {}: cpu is faster at every measured size ({} compared)",
                       x.depth, x.width, x.compared);
  return fmt::format("depth {} width {}: {} wins from {} rows ({:.2f}x the cpu there)", x.depth,
                     x.width, x.device.str(), x.wins_from_rows, x.speedup);
}

// Time per epoch against rows (by_rows) or against width, for one depth.
std::string chart_svg(const CrossoverArgs& a, const std::vector<DeviceCrossover>& all,
                      const std::vector<Crossover>& crossovers, int64_t depth, bool by_rows) {
  report::LineChart chart;
  chart.title = fmt::format("MLP depth {}: time per epoch vs {} (eager, full batch)", depth,
                            by_rows ? "rows" : "width");
  chart.x_label = by_rows ? "rows per batch (log scale)" : "hidden width (log scale)";
  chart.y_label = "time per epoch (ms, log scale)";
  chart.log_x = chart.log_y = true;
  chart.width = 900;
  chart.height = 480;
  const std::vector<int64_t>& lines = by_rows ? a.widths : a.rows;
  for (const DeviceCrossover& d : all) {
    for (std::size_t l = 0; l < lines.size(); ++l) {
      report::Series s;
      s.name = fmt::format("{}, {} {}", d.device.str(), by_rows ? "width" : "rows", lines[l]);
      s.colour = kColours[l % kColours.size()];
      s.dashed = d.device.is_cuda();
      for (const Cell& c : d.cells) {
        if (c.depth != depth || !c.measured || (by_rows ? c.width : c.rows) != lines[l]) continue;
        s.x.push_back(static_cast<double>(by_rows ? c.rows : c.width));
        s.y.push_back(c.epoch_s * 1e3);
      }
      chart.series.push_back(std::move(s));
    }
  }
  if (by_rows) {
    for (const Crossover& x : crossovers)
      if (x.depth == depth && x.wins_from_rows > 0)
        chart.markers.push_back({static_cast<double>(x.wins_from_rows),
                                 fmt::format("{} wins, width {}", x.device.str(), x.width)});
  }
  return report::render_svg(chart);
}

}  // namespace

std::string crossover_text(const CrossoverArgs& a, const std::vector<DeviceCrossover>& all,
                           const std::vector<Crossover>& crossovers) {
  std::string s = fmt::format(
      "torchlet bench crossover: MLP 4-W-...-3 on synthetic data (4 features, 3 classes), full "
      "batch, eager, SGD lr {}; up to {} epochs or {} s per cell\n",
      a.lr, a.epochs, a.cell_seconds);
  for (const DeviceCrossover& d : all) {
    s += fmt::format("\n{}: GEMM rate {:.1f} GFLOP/s ({}x{}x{} matmul)\n", d.name, d.gemm_gflops,
                     d.gemm_size, d.gemm_size, d.gemm_size);
    s += fmt::format("  {:>5} {:>6} {:>7} {:>6} {:>11} {:>8} {:>6} {:>6} {:>9} {:>6}\n", "depth",
                     "width", "rows", "epochs", "ms/epoch", "GFLOP/s", "arith", "other", "launches",
                     "syncs");
    for (const Cell& c : d.cells) {
      if (!c.measured) {
        s += fmt::format("  {:>5} {:>6} {:>7}  skipped: {}\n", c.depth, c.width, c.rows, c.skipped);
        continue;
      }
      s += fmt::format(
          "  {:>5} {:>6} {:>7} {:>6} {:>11.4f} {:>8.2f} {:>5.1f}% {:>5.1f}% {:>9.1f} "
          "{:>6.2f}\n",
          c.depth, c.width, c.rows, c.epochs, c.epoch_s * 1e3, c.flops / c.epoch_s / 1e9,
          100.0 * share(c), 100.0 * (1.0 - share(c)), per_epoch(c.counts.launches, c),
          per_epoch(c.counts.syncs, c));
    }
  }
  s += "\n  arith: the epoch's GEMM FLOPs at the device's GEMM rate, as a share of the epoch;\n"
       "  other: the rest (kernel launches and dispatch, syncs, copies, allocation, and the\n"
       "  memory-bound elementwise work: bias, ReLU, softmax, SGD). launches, syncs: per epoch.\n";
  s += "\nWhere the GPU starts to win:\n";
  if (crossovers.empty()) {
    s += "  no GPU to compare (torchlet::cuda::is_available() is false here): this table is the\n"
         "  CPU side; run the same command on a machine with a GPU for the other.\n";
  }
  for (const Crossover& x : crossovers) s += "  " + crossover_line(x) + "\n";
  return s;
}

nlohmann::json crossover_json(const CrossoverArgs& a, const std::vector<DeviceCrossover>& all,
                              const std::vector<Crossover>& crossovers) {
  std::vector<Device> devices;
  for (const DeviceCrossover& d : all) devices.push_back(d.device);
  nlohmann::json j;
  j["bench"] = "crossover";
  j["machine"] = machine_json(devices);
  j["epochs"] = a.epochs;
  j["cell_seconds"] = a.cell_seconds;
  j["max_epoch_seconds"] = a.max_epoch_seconds;
  j["max_mib"] = a.max_mib;
  j["lr"] = a.lr;
  j["widths"] = a.widths;
  j["rows"] = a.rows;
  j["depths"] = a.depths;
  j["results"] = nlohmann::json::array();
  for (const DeviceCrossover& d : all) {
    nlohmann::json dj{{"device", d.device.str()},
                      {"name", d.name},
                      {"gemm_gflops", d.gemm_gflops},
                      {"gemm_size", d.gemm_size},
                      {"cells", nlohmann::json::array()}};
    for (const Cell& c : d.cells) {
      nlohmann::json cj{{"depth", c.depth},      {"width", c.width},
                        {"rows", c.rows},        {"measured", c.measured},
                        {"flops", c.flops},      {"arithmetic_s", c.arithmetic_s},
                        {"estimated_mib", c.mib}};
      if (!c.measured) {
        cj["skipped"] = c.skipped;
      } else {
        cj["epochs"] = c.epochs;
        cj["epoch_s"] = c.epoch_s;
        cj["gflops"] = c.flops / c.epoch_s / 1e9;
        cj["arithmetic_share"] = share(c);
        cj["overhead_share"] = 1.0 - share(c);
        cj["per_epoch"] = {{"launches", per_epoch(c.counts.launches, c)},
                           {"syncs", per_epoch(c.counts.syncs, c)},
                           {"copies", per_epoch(c.counts.total_copies(), c)},
                           {"copy_bytes", per_epoch(c.counts.total_copy_bytes(), c)},
                           {"allocations", per_epoch(c.counts.allocations, c)}};
      }
      dj["cells"].push_back(cj);
    }
    j["results"].push_back(dj);
  }
  j["crossovers"] = nlohmann::json::array();
  for (const Crossover& x : crossovers) {
    j["crossovers"].push_back(
        {{"device", x.device.str()},
         {"depth", x.depth},
         {"width", x.width},
         {"compared", x.compared},
         {"wins_from_rows", x.wins_from_rows ? nlohmann::json(x.wins_from_rows) : nullptr},
         {"speedup", x.wins_from_rows ? nlohmann::json(x.speedup) : nullptr}});
  }
  if (crossovers.empty()) j["note"] = "no GPU to compare: torchlet::cuda::is_available() is false";
  return j;
}

void write_crossover_files(const CrossoverArgs& a, const std::vector<DeviceCrossover>& all,
                           const std::vector<Crossover>& crossovers, const nlohmann::json& j,
                           const std::string& text) {
  if (a.common.out.empty()) return;
  std::vector<Figure> figures;
  for (int64_t depth : a.depths) {
    for (bool by_rows : {true, false}) {
      const std::string file =
          fmt::format("crossover_depth{}_{}.svg", depth, by_rows ? "rows" : "width");
      write_out(a.common.out, file, chart_svg(a, all, crossovers, depth, by_rows));
      figures.push_back({file, fmt::format("Depth {}: time per epoch against {}; solid: cpu, "
                                           "dashed: GPU; dashed vertical lines: where a GPU "
                                           "starts to win",
                                           depth, by_rows ? "rows" : "width")});
    }
  }
  std::string csv =
      "device,depth,width,rows,measured,epochs,epoch_s,gflops,arithmetic_share,launches_per_epoch,"
      "syncs_per_epoch,copies_per_epoch,skipped\n";
  for (const DeviceCrossover& d : all) {
    for (const Cell& c : d.cells) {
      csv += fmt::format("{},{},{},{},{},", d.device.str(), c.depth, c.width, c.rows, c.measured);
      if (c.measured) {
        csv += fmt::format("{},{:.9f},{:.4f},{:.4f},{:.2f},{:.2f},{:.2f},\n", c.epochs, c.epoch_s,
                           c.flops / c.epoch_s / 1e9, share(c), per_epoch(c.counts.launches, c),
                           per_epoch(c.counts.syncs, c), per_epoch(c.counts.total_copies(), c));
      } else {
        csv += ",,,,,,," + csv_field(c.skipped) + "\n";
      }
    }
  }
  write_out(a.common.out, "crossover.json", j.dump(1) + "\n");
  write_out(a.common.out, "crossover.csv", csv);
  write_out(
      a.common.out, "index.html",
      index_html("torchlet bench crossover", {text}, figures, {"crossover.json", "crossover.csv"}));
}

}  // namespace torchlet::cli::bench
