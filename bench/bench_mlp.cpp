// The larger-model workload timed with torchlet's public API: an MLP 784-512-512-10, batches of
// 256 rows from a synthetic data set of 60,000 rows (uniform features, random labels), SGD
// lr 0.01, eager steps (model(X), cross_entropy, backward, step). Prints one JSON line: samples
// per second, the GFLOP/s that means, and the fraction of the machine's estimated FP32 peak.
// --device cuda, --layers and --batch run other sizes (scripts/gpu-check: 784-4096-4096-10,
// batch 4096 on the GPU); the data set then lives on the GPU.
#include <torchlet/hw/cpu.h>
#include <torchlet/threads.h>
#include <torchlet/torchlet.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace tl = torchlet;
namespace nn = torchlet::nn;

namespace {

constexpr int64_t kRows = 60000;

struct Options {
  int epochs = 2;
  int warmup_steps = 5;
  int threads = 0;  // 0: the library's default
  std::string device = "cpu";
  std::vector<int64_t> widths{784, 512, 512, 10};
  int64_t batch = 256;
};

// Multiply-adds x 2 per sample: the forward GEMMs, the weight gradients, and the input
// gradients of every layer but the first (the data needs none). Elementwise work is left out.
double flops_per_sample(const std::vector<int64_t>& widths) {
  double forward = 0.0, input_grads = 0.0;
  for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
    const double macs = static_cast<double>(widths[l] * widths[l + 1]);
    forward += 2.0 * macs;
    if (l > 0) input_grads += 2.0 * macs;
  }
  return 2.0 * forward + input_grads;
}

Options parse(int argc, char** argv) {
  Options o;
  CLI::App app{"An MLP's eager training steps timed with torchlet: one JSON line", "bench_mlp"};
  app.add_option("--epochs", o.epochs, "Timed epochs of 60,000 rows")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000000));
  app.add_option("--warmup-steps", o.warmup_steps, "Untimed steps first")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000000));
  app.add_option("--threads", o.threads, "CPU threads (default: one per core)")
      ->check(CLI::Range(1, 1000000000));
  app.add_option("--device", o.device, "cpu, cuda or cuda:N")->capture_default_str();
  app.add_option("--layers", o.widths, "Layer widths, input first, e.g. 784,512,512,10")
      ->delimiter(',')
      ->expected(2, 64)
      ->check(CLI::Range(1, 1000000000));
  app.add_option("--batch", o.batch, "Rows per step")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, kRows));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e) == 0 ? 0 : 2);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (o.threads > 0) tl::set_num_threads(o.threads);
  const int threads = tl::get_num_threads();

  const std::vector<int64_t>& widths = o.widths;
  const int64_t batch = o.batch, classes = widths.back();
  const tl::Device device(o.device);
  tl::manual_seed(0);
  const tl::Tensor X = tl::rand({kRows, widths.front()}).to(device);
  std::mt19937_64 rng(0);
  std::uniform_int_distribution<int64_t> label(0, classes - 1);
  std::vector<int64_t> labels(kRows);
  for (int64_t& v : labels) v = label(rng);
  const tl::Tensor y = tl::tensor(labels, device);

  auto model = std::make_shared<nn::Sequential>();
  for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
    if (l > 0) model->add<nn::ReLU>();
    model->add<nn::Linear>(widths[l], widths[l + 1]);
  }
  model->to(device);
  tl::optim::SGD optimizer(model->parameters(), 0.01);
  auto step = [&](int64_t first) {
    const int64_t n = std::min(batch, kRows - first);
    tl::Tensor loss = tl::cross_entropy((*model)(X.narrow(0, first, n)), y.narrow(0, first, n));
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    return loss;
  };

  for (int s = 0; s < o.warmup_steps; ++s) step((s * batch) % kRows);
  if (device.is_cuda()) tl::cuda::synchronize(device.index());
  float loss = 0.0f;
  const auto start = std::chrono::steady_clock::now();
  for (int epoch = 0; epoch < o.epochs; ++epoch) {
    tl::Tensor last;
    for (int64_t first = 0; first < kRows; first += batch) last = step(first);
    loss = last.item();  // once per epoch, as the PyTorch loop does
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const double samples = static_cast<double>(o.epochs) * static_cast<double>(kRows);
  const double samples_per_s = samples / seconds;
  const double gflops = samples_per_s * flops_per_sample(widths) / 1e9;
  const tl::hw::CpuReport cpu = tl::hw::cpu_report();
  const double peak = device.is_cpu() && cpu.peak_fp32 ? cpu.peak_fp32->gflops : 0.0;  // CPU only
  // The peak of the cores the threads can use: one thread cannot reach the second core's share.
  const int cores = std::max(1, cpu.physical_cores);
  const double peak_used = peak * std::min(threads, cores) / cores;
  std::string layers;
  for (int64_t w : widths) {
    if (!layers.empty()) layers += '-';
    layers += std::to_string(w);
  }
  std::printf(
      "{\"bench\": \"mlp\", \"engine\": \"torchlet\", \"device\": \"%s\", \"threads\": %d, "
      "\"layers\": \"%s\", \"batch\": %lld, \"epochs\": %d, \"seconds\": %.4f, "
      "\"samples_per_s\": %.1f, \"flops_per_sample\": %.0f, \"gflops\": %.2f, "
      "\"peak_gflops\": %.2f, \"peak_gflops_threads\": %.2f, \"peak_formula\": \"%s\", "
      "\"pct_peak\": %.1f, \"final_loss\": %.5f}\n",
      device.str().c_str(), threads, layers.c_str(), static_cast<long long>(batch), o.epochs,
      seconds, samples_per_s, flops_per_sample(widths), gflops, peak, peak_used,
      cpu.peak_fp32 ? cpu.peak_fp32->formula.c_str() : "unknown",
      peak > 0 ? 100 * gflops / peak : 0.0, static_cast<double>(loss));
}
