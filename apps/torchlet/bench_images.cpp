// `torchlet bench images`: images per second of training the image MLP and CNN of
// image_models.h on synthetic 1x28x28 images (uniform pixels, random labels of 10 classes), one
// batch made once on the device, Adam steps, per device, model and batch size; the speed-up of
// each GPU over the CPU. bench/compare_images.py runs the same workload in PyTorch.
#include "bench_images.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>

#include "json_output.h"
#include "stop_signals.h"
#include "torchlet/cuda.h"
#include "torchlet/error.h"
#include "torchlet/report/chart.h"
#include "torchlet/threads.h"
#include "torchlet/torchlet.h"
#include "torchlet/train.h"
#include "torchlet/train/models.h"

namespace torchlet::cli::bench {

namespace {

constexpr int64_t kChannels = 1, kSide = 28, kClasses = 10;
constexpr int64_t kMaxBatch = 8192;
constexpr int64_t kMinTimedSteps = 3;  // timed steps before the time budget may stop a cell

struct Cell {
  Device device;
  std::string name, model;
  int64_t batch = 0, steps = 0;
  double seconds = 0.0, images_per_s = 0.0;
  std::optional<double> speedup_vs_cpu;  // CUDA devices, when the CPU ran the same cell
  float final_loss = 0.0f;
};

void sync(const Device& device) {
  if (device.is_cuda()) cuda::synchronize(device.index());
}

nn::ImageModel model_of(const std::string& name) {
  return nn::make_image_model(name, nn::kImageMlpHidden, kChannels, kSide, kSide, kClasses);
}

int64_t parameter_count(const nn::Module& m) {
  int64_t n = 0;
  for (const Tensor& p : m.parameters()) n += p.numel();
  return n;
}

Cell run_cell(const ImagesArgs& a, const Device& device, const std::string& model, int64_t batch) {
  Cell c{device, device_description(device), model, batch, 0, 0.0, 0.0, std::nullopt, 0.0f};
  manual_seed(0);
  const Tensor X = rand({batch, kChannels, kSide, kSide}).to(device);
  std::mt19937_64 rng(0);
  std::uniform_int_distribution<int64_t> label(0, kClasses - 1);
  std::vector<int64_t> labels(static_cast<std::size_t>(batch));
  for (int64_t& v : labels) v = label(rng);
  const Tensor y = tensor(labels, device);
  const std::shared_ptr<nn::Sequential> net = model_of(model).net;
  net->to(device);
  optim::Adam adam(net->parameters(), a.lr);
  // Eager steps on the one batch, with nothing else on the device.
  TrainOptions options{.epochs = a.warmup,
                       .execution = Execution::Eager,
                       .graph = CudaGraph::Off,
                       .stop_on_nonfinite = false};
  if (a.warmup > 0) train(*net, adam, X, y, options);
  sync(device);
  const int64_t at_least = std::min(kMinTimedSteps, a.steps);
  const auto start = Clock::now();
  options.epochs = a.steps;
  options.on_batch = [&](int64_t, int64_t, const Tensor&) {
    StopSignals::stop_if_received("during the benchmark");
    ++c.steps;
    return c.steps < at_least || seconds_since(start) < a.cell_seconds;
  };
  c.final_loss = train(*net, adam, X, y, options).final_loss;
  c.seconds = seconds_since(start);
  c.images_per_s = static_cast<double>(c.steps * batch) / c.seconds;
  return c;
}

double ms_per_step(const Cell& c) { return c.seconds / static_cast<double>(c.steps) * 1e3; }

std::string text_of(const ImagesArgs& a, const std::vector<Cell>& cells) {
  std::string s = fmt::format(
      "torchlet bench images: synthetic {}x{}x{} images, {} classes, Adam lr {}; per cell {} "
      "warm-up step{}, then up to {} timed steps or {} s (at least {}); {} CPU thread{}\n",
      kChannels, kSide, kSide, kClasses, a.lr, a.warmup, a.warmup == 1 ? "" : "s", a.steps,
      a.cell_seconds, std::min(kMinTimedSteps, a.steps), get_num_threads(),
      get_num_threads() == 1 ? "" : "s");
  for (const std::string& m : a.models) {
    const nn::ImageModel model = model_of(m);
    s += fmt::format("  {}: {} ({} parameters)\n", m, model.description,
                     parameter_count(*model.net));
  }
  const bool gpu =
      std::any_of(cells.begin(), cells.end(), [](const Cell& c) { return c.device.is_cuda(); });
  s += fmt::format("\n  {:<34} {:<5} {:>6} {:>11} {:>10} {:>6}{}\n", "device", "model", "batch",
                   "images/s", "ms/step", "steps", gpu ? fmt::format(" {:>8}", "vs cpu") : "");
  for (const Cell& c : cells) {
    s += fmt::format("  {:<34} {:<5} {:>6} {:>11.0f} {:>10.3f} {:>6}{}\n", c.name, c.model, c.batch,
                     c.images_per_s, ms_per_step(c), c.steps,
                     c.speedup_vs_cpu ? fmt::format(" {:>7.2f}x", *c.speedup_vs_cpu) : "");
  }
  if (!gpu) s += "  No GPU run here (CPU only): no speed-ups to show.\n";
  return s;
}

nlohmann::json json_of(const ImagesArgs& a, const std::vector<Device>& devices,
                       const std::vector<Cell>& cells) {
  nlohmann::json models = nlohmann::json::object();
  for (const std::string& m : a.models) {
    const nn::ImageModel model = model_of(m);
    models[m] = {{"description", model.description}, {"parameters", parameter_count(*model.net)}};
  }
  nlohmann::json j{{"bench", "images"},
                   {"machine", machine_json(devices)},
                   {"image", {kChannels, kSide, kSide}},
                   {"classes", kClasses},
                   {"models", models},
                   {"batches", a.batches},
                   {"max_steps", a.steps},
                   {"cell_seconds", a.cell_seconds},
                   {"min_timed_steps", std::min(kMinTimedSteps, a.steps)},
                   {"warmup_steps", a.warmup},
                   {"optimizer", "Adam"},
                   {"lr", a.lr},
                   {"threads", get_num_threads()}};
  j["results"] = nlohmann::json::array();
  for (const Cell& c : cells) {
    j["results"].push_back({{"device", c.device.str()},
                            {"name", c.name},
                            {"model", c.model},
                            {"batch", c.batch},
                            {"steps", c.steps},
                            {"seconds", c.seconds},
                            {"images_per_s", c.images_per_s},
                            {"ms_per_step", ms_per_step(c)},
                            {"speedup_vs_cpu", c.speedup_vs_cpu ? nlohmann::json(*c.speedup_vs_cpu)
                                                                : nlohmann::json(nullptr)},
                            {"final_loss", c.final_loss}});
  }
  return j;
}

void write_files(const ImagesArgs& a, const std::vector<Device>& devices,
                 const std::vector<Cell>& cells, const nlohmann::json& j, const std::string& text) {
  if (a.common.out.empty()) return;
  report::LineChart chart;
  chart.title = "Image classifiers: training throughput over batch size";
  chart.x_label = "images per batch (log scale)";
  chart.y_label = "images per second (log scale)";
  chart.log_x = chart.log_y = true;
  for (const Device& d : devices) {
    for (const std::string& m : a.models) {
      report::Series series{fmt::format("{} {}", d.str(), m), {}, {}, "", d.is_cuda()};
      series.colour = m == "cnn" ? "#d62728" : "#1f77b4";
      for (const Cell& c : cells) {
        if (c.device != d || c.model != m) continue;
        series.x.push_back(static_cast<double>(c.batch));
        series.y.push_back(c.images_per_s);
      }
      chart.series.push_back(std::move(series));
    }
  }
  write_out(a.common.out, "images_throughput.svg", report::render_svg(chart));
  std::string csv =
      "device,model,batch,steps,seconds,images_per_s,ms_per_step,speedup_vs_cpu,final_loss\n";
  for (const Cell& c : cells) {
    csv +=
        fmt::format("{},{},{},{},{:.6f},{:.1f},{:.4f},{},{:.6f}\n", c.device.str(), c.model,
                    c.batch, c.steps, c.seconds, c.images_per_s, ms_per_step(c),
                    c.speedup_vs_cpu ? fmt::format("{:.3f}", *c.speedup_vs_cpu) : "", c.final_loss);
  }
  write_out(a.common.out, "images.json", j.dump(1) + "\n");
  write_out(a.common.out, "images.csv", csv);
  write_out(a.common.out, "index.html",
            index_html("torchlet bench images", {text},
                       {{"images_throughput.svg",
                         "Images per second over batch size, per device and model (dashed: GPU)"}},
                       {"images.json", "images.csv"}));
}

void check_args(ImagesArgs& a) {
  TORCHLET_CHECK(!a.models.empty(), "--models: Expected mlp, cnn or both, but got none");
  std::vector<std::string> models;
  for (const std::string& m : a.models) {
    TORCHLET_CHECK(m == "mlp" || m == "cnn", "--models: Expected mlp or cnn, but got '", m, "'");
    if (std::find(models.begin(), models.end(), m) == models.end()) models.push_back(m);
  }
  a.models = models;
  TORCHLET_CHECK(!a.batches.empty(), "--batches: Expected at least one batch size");
  for (int64_t b : a.batches)
    TORCHLET_CHECK(b >= 1 && b <= kMaxBatch, "--batches: Expected sizes >= 1 and <= ", kMaxBatch,
                   ", but got ", b);
  std::sort(a.batches.begin(), a.batches.end());
  a.batches.erase(std::unique(a.batches.begin(), a.batches.end()), a.batches.end());
  TORCHLET_CHECK(a.steps >= 1, "--steps: Expected a number >= 1, but got ", a.steps);
  TORCHLET_CHECK(a.warmup >= 0, "--warmup: Expected a number >= 0, but got ", a.warmup);
  TORCHLET_CHECK(std::isfinite(a.cell_seconds) && a.cell_seconds > 0,
                 "--cell-seconds: Expected a finite number > 0, but got ", a.cell_seconds);
  TORCHLET_CHECK(std::isfinite(a.lr) && a.lr > 0 && a.lr < 1e6,
                 "--lr: Expected a number in (0, 1e6), but got ", a.lr);
}

}  // namespace

void run_bench_images(const ImagesArgs& args) {
  ImagesArgs a = args;
  check_args(a);
  const std::vector<Device> devices = devices_for(a.common.device);
  prepare_out_dir(a.common.out);
  std::FILE* out = report_stream(a.common);
  std::vector<Cell> cells;
  for (const Device& device : devices) {
    fmt::print(out, "{} ...\n", device_description(device));
    std::fflush(out);
    for (const std::string& model : a.models) {
      for (int64_t batch : a.batches) {
        Cell c = run_cell(a, device, model, batch);
        for (const Cell& cpu : cells) {
          if (device.is_cuda() && !cpu.device.is_cuda() && cpu.model == model && cpu.batch == batch)
            c.speedup_vs_cpu = c.images_per_s / cpu.images_per_s;
        }
        cells.push_back(std::move(c));
      }
    }
  }
  const std::string text = text_of(a, cells);
  fmt::print(out, "\n{}", text);
  const nlohmann::json j = json_of(a, devices, cells);
  write_files(a, devices, cells, j, text);
  if (a.common.json) print_json_line(j);
}

}  // namespace torchlet::cli::bench
