// `torchlet bench overhead`: the course's workload (Iris, MLP 4-10-3, full batch, SGD) run once
// per way of recording and printing the loss, on each device, and a least-squares model of
// where the time goes. Split in two: bench_overhead.cpp runs, bench_overhead_report.cpp reports.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_common.h"
#include "torchlet/report/fit.h"

namespace torchlet::cli::bench {

struct OverheadArgs {
  CommonArgs common;
  int64_t epochs = 20000;
  double lr = 0.01;
  int repeats = 3;
  std::string print_to = "/dev/null";
};

// How one run records and prints the loss.
struct OverheadSetting {
  std::string path;          // "eager" (op by op, as the course) or "replay" (nn::FusedMlp)
  int64_t record_every = 0;  // 0: never
  bool deferred = false;     // into a device buffer read once at the end, instead of item()
  int64_t print_every = 0;   // 0: never

  std::string record_text() const;  // "1, item()", "200, deferred", "never"
  std::string print_text() const;   // "100", "never"
};

struct OverheadRun {
  OverheadSetting setting;
  std::vector<double> seconds;  // one per repeat
  double time_s = 0.0;          // the fastest of them
  profile::Counters counts;     // of one run (every repeat counts the same)
  int64_t records = 0, prints = 0;
  float final_loss = 0.0f;
};

// The fitted model of one device and path.
struct OverheadFit {
  std::string path;
  std::vector<std::string> terms;  // "base", "per_launch", "per_sync", "per_print"
  report::LeastSquaresFit fit;
  int runs = 0;
};

struct DeviceOverhead {
  Device device;
  std::string name;
  std::vector<OverheadRun> runs;
  std::vector<OverheadFit> fits;
};

// The settings run on every device, in order.
std::vector<OverheadSetting> overhead_settings();

// Fits the time of the runs of one path (see bench_overhead_report.cpp for the model).
OverheadFit fit_overhead(const std::vector<OverheadRun>& runs, const std::string& path);

// The report: a table and the fits per device (text, also shown in index.html); the JSON;
// the files of --out (JSON, CSV, a chart per device and path, index.html).
std::string overhead_text(const OverheadArgs& a, const std::vector<DeviceOverhead>& all);
nlohmann::json overhead_json(const OverheadArgs& a, const std::vector<DeviceOverhead>& all);
void write_overhead_files(const OverheadArgs& a, const std::vector<DeviceOverhead>& all,
                          const nlohmann::json& j, const std::string& text);

void run_bench_overhead(const OverheadArgs& a);

}  // namespace torchlet::cli::bench
