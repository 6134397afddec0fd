// `torchlet bench crossover`, the measurements. Each cell trains an MLP 4-W-...-W-3 on `rows`
// synthetic rows, full batch, eager (torchlet::train op by op: model(X), cross_entropy,
// backward, step: what a user's loop does), the loss read once at the end of the cell. The
// arithmetic a cell needs is its GEMM FLOPs at the device's own rate for a large matrix
// product, measured first: the rest of an epoch is overhead (launches, syncs, copies,
// allocation) and memory-bound elementwise work.
#include "bench_crossover.h"

#include <fmt/core.h>

#include <algorithm>
#include <random>

#include "json_output.h"
#include "stop_signals.h"
#include "torchlet/error.h"
#include "torchlet/torchlet.h"
#include "torchlet/train.h"
#include "torchlet/train/models.h"

namespace torchlet::cli::bench {

double training_flops(const std::vector<int64_t>& widths, int64_t rows) {
  double forward = 0.0, input_grads = 0.0;
  for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
    const double macs = static_cast<double>(widths[l]) * static_cast<double>(widths[l + 1]);
    forward += 2.0 * macs;
    if (l > 0) input_grads += 2.0 * macs;
  }
  return (2.0 * forward + input_grads) * static_cast<double>(rows);
}

namespace {

// The device's GEMM rate in GFLOP/s: n x n x n products until 0.2 s have passed. n is 1024 on
// the CPU (OpenBLAS is at full speed there) and 4096 on a GPU, where a smaller product is too
// short to hide the launch.
double gemm_rate(const Device& device, int64_t& n) {
  n = device.is_cuda() ? 4096 : 1024;
  manual_seed(0);
  const Tensor a = rand({n, n}).to(device), b = rand({n, n}).to(device);
  auto sync = [](const Tensor& c) { return c.narrow(0, 0, 1).narrow(1, 0, 1).item(); };
  sync(matmul(a, b));  // warm-up: threads start, memory is mapped
  int reps = 0;
  const auto start = Clock::now();
  Tensor c;
  do {
    c = matmul(a, b);
    ++reps;
    if (reps % 4 == 0) sync(c);
  } while (seconds_since(start) < 0.2 || reps < 2);
  sync(c);
  const double seconds = seconds_since(start);
  return 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) * reps /
         seconds / 1e9;
}

std::vector<int64_t> widths_of(int64_t depth, int64_t width) {
  std::vector<int64_t> w{4};
  for (int64_t d = 0; d < depth; ++d) w.push_back(width);
  w.push_back(3);
  return w;
}

// A rough upper estimate of what an eager epoch holds at once: the data and labels, per
// hidden layer its output, ReLU output and their gradients, the logits, probabilities and
// their gradient, and the parameters with their gradients.
double estimate_mib(const std::vector<int64_t>& widths, int64_t rows) {
  double floats = static_cast<double>(rows) * (4 + 2 + 9);
  double params = 0.0;
  for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
    params += static_cast<double>(widths[l] + 1) * static_cast<double>(widths[l + 1]);
    if (l + 2 < widths.size()) floats += 4.0 * static_cast<double>(rows * widths[l + 1]);
  }
  return (floats + 2 * params) * 4.0 / (1024.0 * 1024.0);
}

Cell run_cell(const CrossoverArgs& a, const Device& device, double gflops, int64_t depth,
              int64_t width, int64_t rows) {
  Cell cell;
  cell.depth = depth, cell.width = width, cell.rows = rows;
  const std::vector<int64_t> widths = widths_of(depth, width);
  cell.flops = training_flops(widths, rows);
  cell.arithmetic_s = cell.flops / (gflops * 1e9);
  cell.mib = estimate_mib(widths, rows);
  if (cell.mib > static_cast<double>(a.max_mib)) {
    cell.skipped = fmt::format("needs ~{:.0f} MiB, over --max-mib {}", cell.mib, a.max_mib);
    return cell;
  }
  if (cell.arithmetic_s > a.max_epoch_seconds) {
    cell.skipped = fmt::format("~{:.1f} s per epoch at the GEMM rate, over --max-epoch-seconds {}",
                               cell.arithmetic_s, a.max_epoch_seconds);
    return cell;
  }
  manual_seed(0);
  const Tensor X = rand({rows, 4}).to(device);
  std::mt19937_64 rng(0);
  std::uniform_int_distribution<int64_t> label(0, 2);
  std::vector<int64_t> labels(static_cast<std::size_t>(rows));
  for (int64_t& v : labels) v = label(rng);
  const Tensor y = tensor(labels, device);
  auto model = nn::make_mlp(widths);
  model->to(device);
  optim::SGD sgd(model->parameters(), a.lr);
  TrainOptions options{
      .execution = Execution::Eager, .graph = CudaGraph::Off, .stop_on_nonfinite = false};
  train(*model, sgd, X, y, options);  // warm-up: the caching allocator fills
  const profile::Counters before = profile::counters();
  const auto start = Clock::now();
  options.epochs = a.epochs;
  options.on_batch = [&](int64_t, int64_t, const Tensor&) {
    return seconds_since(start) < a.cell_seconds;
  };
  cell.epochs = train(*model, sgd, X, y, options).epochs_done;
  cell.epoch_s = seconds_since(start) / static_cast<double>(cell.epochs);
  cell.counts = profile::counters() - before;
  cell.measured = true;
  return cell;
}

void validate(const CrossoverArgs& a) {
  TORCHLET_CHECK(a.epochs > 0, "--epochs: Expected a number > 0, but got ", a.epochs);
  TORCHLET_CHECK(a.cell_seconds > 0 && a.cell_seconds <= 3600,
                 "--cell-seconds: Expected a number in (0, 3600], but got ", a.cell_seconds);
  TORCHLET_CHECK(a.max_epoch_seconds > 0, "--max-epoch-seconds: Expected a number > 0, but got ",
                 a.max_epoch_seconds);
  TORCHLET_CHECK(a.max_mib > 0, "--max-mib: Expected a number > 0, but got ", a.max_mib);
  TORCHLET_CHECK(a.lr > 0 && a.lr < 1e6, "--lr: Expected a number in (0, 1e6), but got ", a.lr);
  auto check_list = [](const std::vector<int64_t>& v, const char* option, int64_t max) {
    TORCHLET_CHECK(!v.empty(), option, ": Expected at least one value");
    for (int64_t x : v)
      TORCHLET_CHECK(x > 0 && x <= max, option, ": Expected values in [1, ", max, "], but got ", x);
  };
  check_list(a.widths, "--widths", 1 << 16);
  check_list(a.rows, "--rows", 100'000'000);
  check_list(a.depths, "--depth", 16);
}

std::vector<int64_t> sorted_unique(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

std::vector<Crossover> find_crossovers(const std::vector<DeviceCrossover>& all) {
  std::vector<Crossover> found;
  const DeviceCrossover* cpu = nullptr;
  for (const DeviceCrossover& d : all)
    if (!d.device.is_cuda()) cpu = &d;
  if (!cpu) return found;
  for (const DeviceCrossover& d : all) {
    if (!d.device.is_cuda()) continue;
    // Cells are in the same order on every device: depth, width, rows ascending.
    for (std::size_t i = 0; i < d.cells.size(); ++i) {
      const Cell& g = d.cells[i];
      if (i > 0 && g.depth == d.cells[i - 1].depth && g.width == d.cells[i - 1].width) continue;
      Crossover x{d.device, g.depth, g.width, 0, 0.0, 0};
      for (std::size_t k = i;
           k < d.cells.size() && d.cells[k].depth == g.depth && d.cells[k].width == g.width; ++k) {
        const Cell& gc = d.cells[k];
        const Cell& cc = cpu->cells[k];
        if (!gc.measured || !cc.measured) continue;
        ++x.compared;
        if (x.wins_from_rows == 0 && gc.epoch_s < cc.epoch_s) {
          x.wins_from_rows = gc.rows;
          x.speedup = cc.epoch_s / gc.epoch_s;
        }
      }
      found.push_back(x);
    }
  }
  return found;
}

void run_bench_crossover(const CrossoverArgs& args) {
  CrossoverArgs a = args;
  validate(a);
  a.widths = sorted_unique(a.widths);
  a.rows = sorted_unique(a.rows);
  a.depths = sorted_unique(a.depths);
  const std::vector<Device> devices = devices_for(a.common.device);
  prepare_out_dir(a.common.out);
  std::FILE* out = report_stream(a.common);
  std::vector<DeviceCrossover> all;
  for (const Device& device : devices) {
    DeviceCrossover d{device, device_description(device), 0.0, 0, {}};
    d.gemm_gflops = gemm_rate(device, d.gemm_size);
    fmt::print(out, "{}: GEMM rate {:.1f} GFLOP/s; {} cells ...\n", d.name, d.gemm_gflops,
               a.depths.size() * a.widths.size() * a.rows.size());
    std::fflush(out);
    for (int64_t depth : a.depths)
      for (int64_t width : a.widths)
        for (int64_t rows : a.rows) {
          StopSignals::stop_if_received("during the benchmark");
          d.cells.push_back(run_cell(a, device, d.gemm_gflops, depth, width, rows));
        }
    all.push_back(std::move(d));
  }
  const std::vector<Crossover> crossovers = find_crossovers(all);
  const std::string text = crossover_text(a, all, crossovers);
  fmt::print(out, "\n{}", text);
  const nlohmann::json j = crossover_json(a, all, crossovers);
  write_crossover_files(a, all, crossovers, j, text);
  if (a.common.json) print_json_line(j);
}

}  // namespace torchlet::cli::bench
