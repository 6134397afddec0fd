// `torchlet bench overhead`, the runs: the course's training loop once per setting (record the
// loss every 1, 10, 100, 200, 1000 epochs or never, with item() each time or deferred into a
// device buffer; print every 100 epochs or never), op by op as the course writes it and
// replayed by nn::FusedMlp, with the profile counters read around each run.
#include "bench_overhead.h"

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <numeric>

#include "json_output.h"
#include "stop_signals.h"
#include "torchlet/data/dataset.h"
#include "torchlet/error.h"
#include "torchlet/torchlet.h"
#include "torchlet/train.h"
#include "torchlet/train/models.h"

namespace torchlet::cli::bench {

std::string OverheadSetting::record_text() const {
  if (record_every == 0) return "never";
  return fmt::format("{}, {}", record_every, deferred ? "deferred" : "item()");
}

std::string OverheadSetting::print_text() const {
  return print_every ? std::to_string(print_every) : "never";
}

std::vector<OverheadSetting> overhead_settings() {
  std::vector<OverheadSetting> settings;
  for (const char* path : {"eager", "replay"}) {
    for (int64_t every : {1, 10, 100, 200, 1000, 0}) {
      for (bool deferred : {false, true}) {
        if (every == 0 && deferred) continue;  // nothing recorded: nothing to defer
        for (int64_t print : {100, 0}) settings.push_back({path, every, deferred, print});
      }
    }
  }
  return settings;
}

namespace {

// The course's data: Iris, 80/20 split with random_state 42, MinMax scaled, on the device.
struct CourseData {
  Tensor X, y;
};

CourseData course_data(const Device& device) {
  const data::Dataset ds = data::load_iris();
  data::Split split = data::train_test_split(ds.X, ds.y, 0.2, 42);
  data::MinMaxScaler scaler;
  return {scaler.fit_transform(split.X_train).to(device), split.y_train.to(device)};
}

// Where the printed lines go: a line-buffered stream, so that every line costs its formatting
// and one write() system call, as Python's print to a terminal does.
struct PrintSink {
  explicit PrintSink(const std::string& path) : file(std::fopen(path.c_str(), "w")) {
    TORCHLET_CHECK(file, "--print-to ", path, ": Expected a file that can be written, but ",
                   std::strerror(errno));
    std::setvbuf(file, nullptr, _IOLBF, 1 << 12);
  }
  ~PrintSink() { std::fclose(file); }
  PrintSink(const PrintSink&) = delete;
  PrintSink& operator=(const PrintSink&) = delete;
  std::FILE* file;
};

// One run from fresh weights (seed 0). Timed from the first epoch to the final loss read on
// the host, so every queued kernel is included: each run ends with one sync for the final
// loss, and a deferred run with one more for the recorded buffer.
OverheadRun run_once(const CourseData& d, const OverheadSetting& s, int64_t epochs, double lr,
                     std::FILE* sink) {
  const Device device = d.X.device();
  manual_seed(0);
  auto model = nn::make_mlp({4, 10, 3});
  model->to(device);
  optim::SGD sgd(model->parameters(), lr);
  OverheadRun run{s, {}, 0.0, {}, 0, 0, 0.0f};
  const int64_t records = s.record_every ? epochs / s.record_every : 0;
  std::vector<float> losses;
  losses.reserve(static_cast<std::size_t>(records));
  // Deferred records go into train()'s buffer on the device; the others are read here. The
  // replayed chunks end at every epoch this reads: the settings' print and record periods
  // divide one another, so those are the multiples of their gcd.
  TrainOptions options{.epochs = epochs,
                       .record_every = s.deferred ? s.record_every : 0,
                       .print_every = std::gcd(s.record_every, s.print_every),
                       .execution = s.path == "replay" ? Execution::Fused : Execution::Eager,
                       .graph = CudaGraph::Off,
                       .stop_on_nonfinite = false};
  options.on_epoch = [&](const EpochInfo& info) {
    const int64_t epoch = info.epoch();
    if (s.record_every && epoch % s.record_every == 0) {
      if (!s.deferred) losses.push_back(info.loss().item());
      ++run.records;
    }
    if (s.print_every && epoch % s.print_every == 0) {
      std::fprintf(sink, "Epoch [%lld/%lld], Loss: %.4f\n", static_cast<long long>(epoch),
                   static_cast<long long>(epochs), static_cast<double>(info.loss().item()));
      ++run.prints;
    }
    return true;
  };
  const profile::Counters before = profile::counters();
  const auto start = Clock::now();
  const TrainResult result = train(*model, sgd, d.X, d.y, options);
  run.final_loss = result.final_loss;
  if (s.deferred) losses = result.losses;
  run.seconds.push_back(seconds_since(start));
  run.counts = profile::counters() - before;
  TORCHLET_ASSERT(losses.size() >= static_cast<std::size_t>(run.records), "lost a record");
  return run;
}

DeviceOverhead run_device(const OverheadArgs& a, const Device& device, std::FILE* sink,
                          std::FILE* out) {
  DeviceOverhead result{device, device_description(device), {}, {}};
  const CourseData d = course_data(device);
  const auto settings = overhead_settings();
  // A short untimed run of each path first: the caching allocator fills, code pages load.
  for (const char* path : {"eager", "replay"})
    run_once(d, {path, 1, false, 0}, std::min<int64_t>(a.epochs, 200), a.lr, sink);
  fmt::print(out, "{}: {} settings x {} repeat{} ...\n", result.name, settings.size(), a.repeats,
             a.repeats > 1 ? "s" : "");
  std::fflush(out);
  // Repeats go round the settings, so that a slow minute of a shared machine is spread over all.
  for (int repeat = 0; repeat < a.repeats; ++repeat) {
    for (std::size_t i = 0; i < settings.size(); ++i) {
      StopSignals::stop_if_received("during the benchmark");
      OverheadRun run = run_once(d, settings[i], a.epochs, a.lr, sink);
      if (repeat == 0) {
        result.runs.push_back(std::move(run));
      } else {
        result.runs[i].seconds.push_back(run.seconds.front());
      }
    }
  }
  // The fastest repeat: on a shared machine other work only ever adds time to a run, so the
  // minimum is the closest to the cost of the run itself.
  for (OverheadRun& run : result.runs)
    run.time_s = *std::min_element(run.seconds.begin(), run.seconds.end());
  for (const char* path : {"eager", "replay"})
    result.fits.push_back(fit_overhead(result.runs, path));
  return result;
}

}  // namespace

void run_bench_overhead(const OverheadArgs& a) {
  TORCHLET_CHECK(a.epochs > 0, "--epochs: Expected a number > 0, but got ", a.epochs);
  TORCHLET_CHECK(a.lr > 0 && a.lr < 1e6, "--lr: Expected a number in (0, 1e6), but got ", a.lr);
  TORCHLET_CHECK(a.repeats >= 1 && a.repeats <= 100,
                 "--repeats: Expected a number in [1, 100], but got ", a.repeats);
  const std::vector<Device> devices = devices_for(a.common.device);
  prepare_out_dir(a.common.out);
  PrintSink sink(a.print_to);
  std::FILE* out = report_stream(a.common);
  std::vector<DeviceOverhead> all;
  for (const Device& device : devices) all.push_back(run_device(a, device, sink.file, out));
  const std::string text = overhead_text(a, all);
  fmt::print(out, "\n{}", text);
  const nlohmann::json j = overhead_json(a, all);
  write_overhead_files(a, all, j, text);
  if (a.common.json) print_json_line(j);
}

}  // namespace torchlet::cli::bench
