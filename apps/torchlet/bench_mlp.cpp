// `torchlet bench mlp`: samples per second of training a larger MLP (784-512-512-10 by default)
// on synthetic data (uniform features, random labels) in mini-batches, eager SGD steps, on each
// device; the GEMM FLOP/s that means, and the profile counters per step.
#include "bench_mlp.h"

#include <fmt/core.h>

#include <algorithm>
#include <random>

#include "json_output.h"
#include "stop_signals.h"
#include "torchlet/error.h"
#include "torchlet/report/chart.h"
#include "torchlet/torchlet.h"
#include "torchlet/train.h"
#include "torchlet/train/models.h"

namespace torchlet::cli::bench {

namespace {

struct MlpResult {
  Device device;
  std::string name;
  int64_t steps = 0;
  double seconds = 0.0;
  double samples_per_s = 0.0;
  double gflops = 0.0;
  float final_loss = 0.0f;
  profile::Counters counts;
  std::vector<double> window_samples, window_rate;  // throughput over the run, for the chart
};

std::string layers_str(const std::vector<int64_t>& layers) {
  std::string s;
  for (std::size_t i = 0; i < layers.size(); ++i) s += (i ? "-" : "") + std::to_string(layers[i]);
  return s;
}

double flops_per_sample(const std::vector<int64_t>& layers) {
  double forward = 0.0, input_grads = 0.0;
  for (std::size_t l = 0; l + 1 < layers.size(); ++l) {
    const double macs = static_cast<double>(layers[l]) * static_cast<double>(layers[l + 1]);
    forward += 2.0 * macs;
    if (l > 0) input_grads += 2.0 * macs;
  }
  return 2.0 * forward + input_grads;
}

MlpResult run_device(const MlpArgs& a, const Device& device) {
  MlpResult r{device, device_description(device), 0, 0.0, 0.0, 0.0, 0.0f, {}, {}, {}};
  manual_seed(0);
  const Tensor X = rand({a.samples, a.layers.front()}).to(device);
  std::mt19937_64 rng(0);
  std::uniform_int_distribution<int64_t> label(0, a.layers.back() - 1);
  std::vector<int64_t> labels(static_cast<std::size_t>(a.samples));
  for (int64_t& v : labels) v = label(rng);
  const Tensor y = tensor(labels, device);
  auto model = nn::make_mlp(a.layers);
  model->to(device);
  optim::SGD sgd(model->parameters(), a.lr);
  // Eager steps on the batches in order (views of X and y), with nothing else on the device.
  TrainOptions options{.execution = Execution::Eager,
                       .graph = CudaGraph::Off,
                       .stop_on_nonfinite = false,
                       .epoch_mean = false};
  const int64_t batches = (a.samples + a.batch - 1) / a.batch;
  const int64_t warmup = std::min<int64_t>(a.warmup, batches);
  if (warmup > 0) {
    data::DataLoader first(X, y, {.batch_size = a.batch});
    options.on_batch = [&](int64_t, int64_t batch, const Tensor& loss) {
      loss.item();
      return batch + 1 < warmup;
    };
    train(*model, sgd, first, options);
  }
  // About 20 points on the throughput chart; the loss is read at each (one sync per window).
  const int64_t window = std::max<int64_t>(1, batches * a.epochs / 20);
  const profile::Counters before = profile::counters();
  const auto start = Clock::now();
  auto window_start = start;
  int64_t window_rows = 0, done_rows = 0;
  data::DataLoader loader(X, y, {.batch_size = a.batch});
  options.epochs = a.epochs;
  options.on_batch = [&](int64_t, int64_t batch, const Tensor& loss) {
    if (batch == 0) StopSignals::stop_if_received("during the benchmark");
    ++r.steps;
    const int64_t n = std::min(a.batch, a.samples - batch * a.batch);
    window_rows += n, done_rows += n;
    if (r.steps % window == 0) {
      loss.item();
      const double t = seconds_since(window_start);
      window_start = Clock::now();
      r.window_samples.push_back(static_cast<double>(done_rows));
      r.window_rate.push_back(static_cast<double>(window_rows) / t);
      window_rows = 0;
    }
    return true;
  };
  r.final_loss = train(*model, sgd, loader, options).final_loss;
  r.seconds = seconds_since(start);
  r.counts = profile::counters() - before;
  r.samples_per_s = static_cast<double>(done_rows) / r.seconds;
  r.gflops = r.samples_per_s * flops_per_sample(a.layers) / 1e9;
  return r;
}

std::string text_of(const MlpArgs& a, const std::vector<MlpResult>& results) {
  std::string s = fmt::format(
      "torchlet bench mlp: MLP {}, batches of {}, {} synthetic samples, SGD lr {}, {} epoch{}, "
      "eager steps; {:.2f} MFLOP (GEMM) per sample\n\n",
      layers_str(a.layers), a.batch, a.samples, a.lr, a.epochs, a.epochs > 1 ? "s" : "",
      flops_per_sample(a.layers) / 1e6);
  s += fmt::format("  {:<34} {:>11} {:>8} {:>9} {:>9} {:>8} {:>8}\n", "device", "samples/s",
                   "GFLOP/s", "ms/step", "launches", "syncs", "allocs");
  for (const MlpResult& r : results) {
    const double steps = static_cast<double>(r.steps);
    s += fmt::format("  {:<34} {:>11.0f} {:>8.1f} {:>9.3f} {:>9.1f} {:>8.2f} {:>8.1f}\n", r.name,
                     r.samples_per_s, r.gflops, r.seconds / steps * 1e3,
                     static_cast<double>(r.counts.launches) / steps,
                     static_cast<double>(r.counts.syncs) / steps,
                     static_cast<double>(r.counts.allocations) / steps);
  }
  s += "  (launches, syncs, allocs: per step; final loss";
  for (const MlpResult& r : results) s += fmt::format(" {} {:.4f}", r.device.str(), r.final_loss);
  s += ")\n";
  for (std::size_t i = 1; i < results.size(); ++i)
    s += fmt::format("  {} / cpu: {:.2f}x\n", results[i].device.str(),
                     results[i].samples_per_s / results[0].samples_per_s);
  if (results.size() == 1 && !results[0].device.is_cuda())
    s += "  No GPU here (torchlet::cuda::is_available() is false): CPU only.\n";
  return s;
}

nlohmann::json json_of(const MlpArgs& a, const std::vector<MlpResult>& results) {
  std::vector<Device> devices;
  for (const MlpResult& r : results) devices.push_back(r.device);
  nlohmann::json j{{"bench", "mlp"},
                   {"machine", machine_json(devices)},
                   {"layers", a.layers},
                   {"batch", a.batch},
                   {"samples", a.samples},
                   {"epochs", a.epochs},
                   {"lr", a.lr},
                   {"warmup_steps", a.warmup},
                   {"flops_per_sample", flops_per_sample(a.layers)}};
  j["results"] = nlohmann::json::array();
  for (const MlpResult& r : results) {
    j["results"].push_back(
        {{"device", r.device.str()},
         {"name", r.name},
         {"steps", r.steps},
         {"seconds", r.seconds},
         {"samples_per_s", r.samples_per_s},
         {"gflops", r.gflops},
         {"final_loss", r.final_loss},
         {"counters", counters_json(r.counts)},
         {"throughput", {{"samples", r.window_samples}, {"samples_per_s", r.window_rate}}}});
  }
  return j;
}

void write_files(const MlpArgs& a, const std::vector<MlpResult>& results, const nlohmann::json& j,
                 const std::string& text) {
  if (a.common.out.empty()) return;
  report::LineChart chart;
  chart.title =
      fmt::format("MLP {} training throughput, batches of {}", layers_str(a.layers), a.batch);
  chart.x_label = "samples trained";
  chart.y_label = "samples per second (over the last window)";
  for (const MlpResult& r : results)
    chart.series.push_back(
        {r.device.str(), r.window_samples, r.window_rate, "", r.device.is_cuda()});
  write_out(a.common.out, "mlp_throughput.svg", report::render_svg(chart));
  std::string csv =
      "device,layers,batch,samples,epochs,steps,seconds,samples_per_s,gflops,"
      "launches,syncs,copies,allocations,final_loss\n";
  for (const MlpResult& r : results) {
    csv += fmt::format("{},{},{},{},{},{},{:.6f},{:.1f},{:.3f},{},{},{},{},{:.6f}\n",
                       r.device.str(), layers_str(a.layers), a.batch, a.samples, a.epochs, r.steps,
                       r.seconds, r.samples_per_s, r.gflops, r.counts.launches, r.counts.syncs,
                       r.counts.total_copies(), r.counts.allocations, r.final_loss);
  }
  write_out(a.common.out, "mlp.json", j.dump(1) + "\n");
  write_out(a.common.out, "mlp.csv", csv);
  write_out(a.common.out, "index.html",
            index_html("torchlet bench mlp", {text},
                       {{"mlp_throughput.svg", "Samples per second over the run, per device"}},
                       {"mlp.json", "mlp.csv"}));
}

}  // namespace

void run_bench_mlp(const MlpArgs& a) {
  TORCHLET_CHECK(a.layers.size() >= 2,
                 "--layers: Expected at least two widths (inputs, classes), "
                 "e.g. 784,512,512,10, but got ",
                 a.layers.size());
  for (int64_t w : a.layers)
    TORCHLET_CHECK(w > 0 && w <= (1 << 16), "--layers: Expected widths in [1, 65536], but got ", w);
  TORCHLET_CHECK(a.batch > 0, "--batch: Expected a number > 0, but got ", a.batch);
  TORCHLET_CHECK(a.samples > 0 && a.samples <= 10'000'000,
                 "--samples: Expected a number in [1, 10000000], but got ", a.samples);
  TORCHLET_CHECK(a.epochs > 0, "--epochs: Expected a number > 0, but got ", a.epochs);
  TORCHLET_CHECK(a.warmup >= 0, "--warmup: Expected a number >= 0, but got ", a.warmup);
  TORCHLET_CHECK(a.lr > 0 && a.lr < 1e6, "--lr: Expected a number in (0, 1e6), but got ", a.lr);
  const double mib = static_cast<double>(a.samples) * static_cast<double>(a.layers.front()) * 4.0 /
                     (1024.0 * 1024.0);
  TORCHLET_CHECK(mib <= 8192, "--samples: Expected data of at most 8 GiB, but ", a.samples,
                 " samples of ", a.layers.front(), " features need ", static_cast<int64_t>(mib),
                 " MiB");
  const std::vector<Device> devices = devices_for(a.common.device);
  prepare_out_dir(a.common.out);
  std::FILE* out = report_stream(a.common);
  std::vector<MlpResult> results;
  for (const Device& device : devices) {
    fmt::print(out, "{} ...\n", device_description(device));
    std::fflush(out);
    results.push_back(run_device(a, device));
  }
  const std::string text = text_of(a, results);
  fmt::print(out, "\n{}", text);
  const nlohmann::json j = json_of(a, results);
  write_files(a, results, j, text);
  if (a.common.json) print_json_line(j);
}

}  // namespace torchlet::cli::bench
