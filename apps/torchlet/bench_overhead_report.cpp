// `torchlet bench overhead`, the report: per device a table of the runs, and a least-squares
// model of the training time,
//
//   time = base + per_sync x syncs + per_print x prints            (eager, the course's loop)
//   time = base + per_launch x launches + per_sync x syncs + ...   (replay)
//
// fitted per path because the two paths have different bases. The replayed path gets a
// launch term because there the record interval also sets how often the loop returns to the
// host (a chunk ends at every record), which the eager path does every epoch whatever it
// records. Counts come from the profile counters, not from the settings, so every sync is
// counted, the final loss read included.
#include <fmt/core.h>

#include <cmath>
#include <map>

#include "bench_overhead.h"
#include "torchlet/report/chart.h"

namespace torchlet::cli::bench {

namespace {

std::vector<double> columns_of(const OverheadRun& run, const std::string& path) {
  const auto& c = run.counts;
  std::vector<double> x{1.0};
  if (path == "replay") x.push_back(static_cast<double>(c.launches));
  x.push_back(static_cast<double>(c.syncs));
  x.push_back(static_cast<double>(run.prints));
  return x;
}

// "per_launch" -> "launches": what a term's cost is counted in.
std::string count_name(const std::string& term) {
  return term == "per_launch" ? "launches" : term.substr(4) + "s";
}

const OverheadRun* find_run(const std::vector<OverheadRun>& runs, const std::string& path,
                            int64_t record_every, bool deferred, int64_t print_every) {
  for (const OverheadRun& r : runs) {
    const OverheadSetting& s = r.setting;
    if (s.path == path && s.record_every == record_every && s.deferred == deferred &&
        s.print_every == print_every)
      return &r;
  }
  return nullptr;
}

std::string term_value(const OverheadFit& f, std::size_t k, double scale, const char* unit) {
  if (!f.fit.determined[k]) return "undetermined (no variation)";
  const double err = f.fit.std_errors[k];
  return std::isfinite(err)
             ? fmt::format("{:.3g} {} (+-{:.2g})", f.fit.coefficients[k] * scale, unit, err * scale)
             : fmt::format("{:.3g} {}", f.fit.coefficients[k] * scale, unit);
}

const char* path_title(const std::string& path) {
  return path == "eager"
             ? "eager: model(X), cross_entropy, backward, step per epoch op by op, as the course"
             : "replay: nn::FusedMlp::train_sgd, up to 100 epochs per backend call (the CPU's "
               "counterpart of a captured CUDA graph)";
}

// The part of `run`'s time each term of the model accounts for, in seconds.
std::vector<double> parts(const OverheadFit& f, const OverheadRun& run) {
  const std::vector<double> x = columns_of(run, f.path);
  std::vector<double> p;
  for (std::size_t k = 0; k < x.size(); ++k) p.push_back(f.fit.coefficients[k] * x[k]);
  return p;
}

void format_fit(std::string& s, const OverheadArgs& a, const DeviceOverhead& d,
                const OverheadFit& f) {
  std::string model = "time = base";
  for (std::size_t k = 1; k < f.terms.size(); ++k)
    model += fmt::format(" + {} x {}", f.terms[k], count_name(f.terms[k]));
  s += fmt::format("  fit over {} runs: {}\n", f.runs, model);
  const double base = f.fit.coefficients[0];
  s += fmt::format("    base       {:.4g} s ({:.3g} us per epoch)\n", base,
                   base / static_cast<double>(a.epochs) * 1e6);
  for (std::size_t k = 1; k < f.terms.size(); ++k)
    s += fmt::format("    {:<10} {}\n", f.terms[k], term_value(f, k, 1e6, "us"));
  s += fmt::format(
      "    R^2 {:.3f} (share of the variation between runs explained); rms residual "
      "{:.3g} ms\n",
      f.fit.r2, f.fit.rms_residual * 1e3);
  // The course's first loop: item() every epoch, a line every 100 epochs.
  if (const OverheadRun* course = find_run(d.runs, f.path, 1, false, 100)) {
    const std::vector<double> p = parts(f, *course);
    std::string shares;
    for (std::size_t k = 0; k < p.size(); ++k)
      shares += fmt::format("{}{} {:.1f}%", k ? ", " : "", k ? count_name(f.terms[k]) : "base",
                            100.0 * p[k] / course->time_s);
    s += fmt::format("    the course's loop (item() every epoch, print every 100): {:.3f} s = {}\n",
                     course->time_s, shares);
    if (const OverheadRun* every200 = find_run(d.runs, f.path, 200, false, 100)) {
      const std::size_t sync_term = f.terms.size() - 2;
      const double saved_syncs =
          static_cast<double>(course->counts.syncs) - static_cast<double>(every200->counts.syncs);
      const double predicted = saved_syncs * f.fit.coefficients[sync_term];
      s += fmt::format(
          "    recording every 200 epochs instead: {:.0f} fewer syncs, {:.3g} ms "
          "predicted ({:.2f}% of the run), {:.3g} ms measured\n",
          saved_syncs, predicted * 1e3, 100.0 * predicted / course->time_s,
          (course->time_s - every200->time_s) * 1e3);
    }
  }
}

}  // namespace

OverheadFit fit_overhead(const std::vector<OverheadRun>& runs, const std::string& path) {
  OverheadFit f;
  f.path = path;
  f.terms = path == "replay"
                ? std::vector<std::string>{"base", "per_launch", "per_sync", "per_print"}
                : std::vector<std::string>{"base", "per_sync", "per_print"};
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (const OverheadRun& run : runs) {
    if (run.setting.path != path) continue;
    rows.push_back(columns_of(run, path));
    y.push_back(run.time_s);
  }
  f.runs = static_cast<int>(rows.size());
  f.fit = report::least_squares(rows, y);
  return f;
}

std::string overhead_text(const OverheadArgs& a, const std::vector<DeviceOverhead>& all) {
  std::string s = fmt::format(
      "torchlet bench overhead: Iris, MLP 4-10-3, full batch, SGD lr {}, {} epochs, fastest of {} "
      "run{}; printed lines go to {} (line-buffered)\n",
      a.lr, a.epochs, a.repeats, a.repeats > 1 ? "s" : "", a.print_to);
  for (const DeviceOverhead& d : all) {
    for (const OverheadFit& f : d.fits) {
      s += fmt::format("\n{} -- {}\n", d.name, path_title(f.path));
      s += fmt::format("  {:<16} {:>5} {:>9} {:>9} {:>7} {:>9} {:>7} {:>9}\n", "record every",
                       "print", "time s", "us/epoch", "syncs", "launches", "copies", "bytes");
      for (const OverheadRun& r : d.runs) {
        if (r.setting.path != f.path) continue;
        s += fmt::format("  {:<16} {:>5} {:>9.4f} {:>9.2f} {:>7} {:>9} {:>7} {:>9}\n",
                         r.setting.record_text(), r.setting.print_text(), r.time_s,
                         r.time_s / static_cast<double>(a.epochs) * 1e6, r.counts.syncs,
                         r.counts.launches, r.counts.total_copies(), r.counts.total_copy_bytes());
      }
      format_fit(s, a, d, f);
    }
  }
  if (all.size() == 1 && !all[0].device.is_cuda())
    s += "\nNo GPU here (torchlet::cuda::is_available() is false): CPU columns only.\n";
  return s;
}

nlohmann::json overhead_json(const OverheadArgs& a, const std::vector<DeviceOverhead>& all) {
  std::vector<Device> devices;
  for (const DeviceOverhead& d : all) devices.push_back(d.device);
  nlohmann::json j;
  j["bench"] = "overhead";
  j["machine"] = machine_json(devices);
  j["workload"] = "Iris 120 training rows, MLP 4-10-3, full batch, cross-entropy, SGD";
  j["epochs"] = a.epochs;
  j["lr"] = a.lr;
  j["repeats"] = a.repeats;
  j["print_to"] = a.print_to;
  j["results"] = nlohmann::json::array();
  for (const DeviceOverhead& d : all) {
    nlohmann::json dj;
    dj["device"] = d.device.str();
    dj["name"] = d.name;
    dj["runs"] = nlohmann::json::array();
    for (const OverheadRun& r : d.runs) {
      dj["runs"].push_back({{"path", r.setting.path},
                            {"record_every", r.setting.record_every},
                            {"record", r.setting.record_every == 0 ? "never"
                                       : r.setting.deferred        ? "deferred"
                                                                   : "item"},
                            {"print_every", r.setting.print_every},
                            {"records", r.records},
                            {"prints", r.prints},
                            {"time_s", r.time_s},
                            {"times_s", r.seconds},
                            {"epoch_us", r.time_s / static_cast<double>(a.epochs) * 1e6},
                            {"final_loss", r.final_loss},
                            {"counters", counters_json(r.counts)}});
    }
    dj["fits"] = nlohmann::json::object();
    for (const OverheadFit& f : d.fits) {
      nlohmann::json fj;
      fj["terms"] = f.terms;
      fj["runs"] = f.runs;
      fj["r2"] = f.fit.r2;
      fj["rms_residual_s"] = f.fit.rms_residual;
      for (std::size_t k = 0; k < f.terms.size(); ++k) {
        // base in seconds, the per-event costs in microseconds; null when undetermined.
        const double scale = k == 0 ? 1.0 : 1e6;
        const std::string key = k == 0 ? "base_s" : f.terms[k] + "_us";
        const double err = f.fit.std_errors[k] * scale;
        fj[key] = f.fit.determined[k] ? nlohmann::json(f.fit.coefficients[k] * scale) : nullptr;
        fj[key + "_err"] =
            f.fit.determined[k] && std::isfinite(err) ? nlohmann::json(err) : nullptr;
      }
      dj["fits"][f.path] = fj;
    }
    j["results"].push_back(dj);
  }
  return j;
}

namespace {

std::string file_stem(const Device& device) {
  return device.is_cuda() ? "cuda" + std::to_string(device.index()) : "cpu";
}

// Time per epoch against the record interval: colour says how the loss is recorded, a dashed
// line that nothing is printed; "never recorded" is a flat reference line.
std::string chart_svg(const OverheadArgs& a, const DeviceOverhead& d, const std::string& path) {
  report::LineChart chart;
  chart.title = fmt::format("{}, {}: time per epoch vs loss-record interval ({} epochs)",
                            d.device.str(), path, a.epochs);
  chart.x_label = "record the loss every N epochs (log scale)";
  chart.y_label = "training time per epoch (us)";
  chart.log_x = true;
  chart.width = 860;
  struct Line {
    bool deferred;
    int64_t record;  // -1: recorded at each interval, 0: never
    const char* colour;
    const char* name;
  };
  const std::vector<int64_t> intervals{1, 10, 100, 200, 1000};
  for (const Line& line : {Line{false, -1, "#1f77b4", "item() per record"},
                           Line{true, -1, "#ff7f0e", "deferred (device buffer)"},
                           Line{false, 0, "#7f7f7f", "never recorded"}}) {
    for (int64_t print : {100, 0}) {
      report::Series series;
      series.name = fmt::format("{}, {}", line.name, print ? "print every 100" : "no printing");
      series.colour = line.colour;
      series.dashed = print == 0;
      for (int64_t every : intervals) {
        const OverheadRun* r = find_run(d.runs, path, line.record < 0 ? every : 0,
                                        line.record < 0 && line.deferred, print);
        if (!r) continue;
        series.x.push_back(static_cast<double>(every));
        series.y.push_back(r->time_s / static_cast<double>(a.epochs) * 1e6);
      }
      chart.series.push_back(std::move(series));
    }
  }
  return report::render_svg(chart);
}

std::string csv(const OverheadArgs& a, const std::vector<DeviceOverhead>& all) {
  std::string s =
      "device,path,record_every,record,print_every,records,prints,time_s,epoch_us,syncs,launches,"
      "copies,copy_bytes,allocations,system_allocations,final_loss\n";
  for (const DeviceOverhead& d : all) {
    for (const OverheadRun& r : d.runs) {
      s += fmt::format("{},{},{},{},{},{},{},{:.6f},{:.4f},{},{},{},{},{},{},{:.6f}\n",
                       d.device.str(), r.setting.path, r.setting.record_every,
                       r.setting.record_every == 0 ? "never"
                       : r.setting.deferred        ? "deferred"
                                                   : "item",
                       r.setting.print_every, r.records, r.prints, r.time_s,
                       r.time_s / static_cast<double>(a.epochs) * 1e6, r.counts.syncs,
                       r.counts.launches, r.counts.total_copies(), r.counts.total_copy_bytes(),
                       r.counts.allocations, r.counts.system_allocations, r.final_loss);
    }
  }
  return s;
}

}  // namespace

void write_overhead_files(const OverheadArgs& a, const std::vector<DeviceOverhead>& all,
                          const nlohmann::json& j, const std::string& text) {
  if (a.common.out.empty()) return;
  std::vector<Figure> figures;
  for (const DeviceOverhead& d : all) {
    for (const char* path : {"eager", "replay"}) {
      const std::string file = fmt::format("overhead_{}_{}.svg", file_stem(d.device), path);
      write_out(a.common.out, file, chart_svg(a, d, path));
      figures.push_back({file, fmt::format("{} ({}): time per epoch for each record interval; "
                                           "dashed: nothing printed",
                                           d.name, path)});
    }
  }
  write_out(a.common.out, "overhead.json", j.dump(1) + "\n");
  write_out(a.common.out, "overhead.csv", csv(a, all));
  write_out(
      a.common.out, "index.html",
      index_html("torchlet bench overhead", {text}, figures, {"overhead.json", "overhead.csv"}));
}

}  // namespace torchlet::cli::bench
