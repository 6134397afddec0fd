// `torchlet bench`: registers the four benches and their options with CLI11. Each runs on
// every device --device names (by default the CPU and every GPU) and validates its options
// before any work starts; bad ones are a torchlet::Error, one line and exit status 2.
#include "bench_command.h"

#include <memory>

#include "bench_crossover.h"
#include "bench_images.h"
#include "bench_mlp.h"
#include "bench_overhead.h"

namespace torchlet::cli {

namespace {

void add_overhead(CLI::App& bench) {
  auto a = std::make_shared<bench::OverheadArgs>();
  CLI::App* cmd = bench.add_subcommand(
      "overhead",
      "The course's workload (Iris, MLP 4-10-3, SGD) once per way of recording and printing "
      "the loss; where the time goes, fitted");
  bench::add_common_options(*cmd, a->common);
  cmd->add_option("--epochs", a->epochs, "Epochs per run")->capture_default_str();
  cmd->add_option("--repeats", a->repeats, "Runs per setting (the fastest is reported)")
      ->capture_default_str();
  cmd->add_option("--lr", a->lr, "Learning rate")->capture_default_str();
  cmd->add_option("--print-to", a->print_to,
                  "Where the 'Epoch [N/M], Loss: ...' lines go (line-buffered)")
      ->capture_default_str();
  cmd->callback([a] { bench::run_bench_overhead(*a); });
}

void add_crossover(CLI::App& bench) {
  auto a = std::make_shared<bench::CrossoverArgs>();
  CLI::App* cmd = bench.add_subcommand(
      "crossover",
      "Time per epoch over model width, depth and rows on each device: where the GPU wins");
  bench::add_common_options(*cmd, a->common);
  cmd->add_option("--epochs", a->epochs, "Timed epochs per cell at most")->capture_default_str();
  cmd->add_option("--cell-seconds", a->cell_seconds, "Stop timing a cell after this long")
      ->capture_default_str();
  cmd->add_option("--widths", a->widths, "Hidden widths")->delimiter(',')->capture_default_str();
  cmd->add_option("--rows", a->rows, "Rows per (full) batch")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--depth", a->depths, "Hidden layers")->delimiter(',')->capture_default_str();
  cmd->add_option("--max-epoch-seconds", a->max_epoch_seconds,
                  "Skip cells whose GEMMs alone would take longer per epoch")
      ->capture_default_str();
  cmd->add_option("--max-mib", a->max_mib, "Skip cells estimated to need more memory (MiB)")
      ->capture_default_str();
  cmd->add_option("--lr", a->lr, "Learning rate")->capture_default_str();
  cmd->callback([a] { bench::run_bench_crossover(*a); });
}

void add_mlp(CLI::App& bench) {
  auto a = std::make_shared<bench::MlpArgs>();
  CLI::App* cmd = bench.add_subcommand(
      "mlp", "Training throughput (samples/s) of a larger MLP on synthetic data, per device");
  bench::add_common_options(*cmd, a->common);
  cmd->add_option("--layers", a->layers, "Widths: inputs, hidden..., classes")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--batch", a->batch, "Rows per step")->capture_default_str();
  cmd->add_option("--samples", a->samples, "Synthetic rows per epoch")->capture_default_str();
  cmd->add_option("--epochs", a->epochs, "Timed passes over the samples")->capture_default_str();
  cmd->add_option("--warmup", a->warmup, "Untimed steps first")->capture_default_str();
  cmd->add_option("--lr", a->lr, "Learning rate")->capture_default_str();
  cmd->callback([a] { bench::run_bench_mlp(*a); });
}

void add_images(CLI::App& bench) {
  auto a = std::make_shared<bench::ImagesArgs>();
  CLI::App* cmd = bench.add_subcommand(
      "images",
      "Training throughput (images/s) of the image MLP and CNN on synthetic 28x28 images, per "
      "device and batch size; each GPU's speed-up over the CPU");
  bench::add_common_options(*cmd, a->common);
  cmd->add_option("--models", a->models, "Models: mlp, cnn")->delimiter(',')->capture_default_str();
  cmd->add_option("--batches", a->batches, "Images per step")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--steps", a->steps, "Timed steps per cell at most")->capture_default_str();
  cmd->add_option("--cell-seconds", a->cell_seconds,
                  "Stop timing a cell after this long (after at least 3 steps)")
      ->capture_default_str();
  cmd->add_option("--warmup", a->warmup, "Untimed steps first, per cell")->capture_default_str();
  cmd->add_option("--lr", a->lr, "Adam's learning rate")->capture_default_str();
  cmd->callback([a] { bench::run_bench_images(*a); });
}

}  // namespace

void add_bench_command(CLI::App& app) {
  CLI::App* bench = app.add_subcommand(
      "bench", "Measure where training time goes on each device: overhead, crossover, mlp, images");
  bench->require_subcommand(1);
  add_overhead(*bench);
  add_crossover(*bench);
  add_mlp(*bench);
  add_images(*bench);
}

}  // namespace torchlet::cli
