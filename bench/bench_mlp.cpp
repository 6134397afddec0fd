// The larger-model workload timed with torchlet's public API: an MLP 784-512-512-10, batches of
// 256 rows from a synthetic data set of 60,000 rows (uniform features, random labels), SGD
// lr 0.01, eager steps (model(X), cross_entropy, backward, step). Prints one JSON line: samples
// per second, the GFLOP/s that means, and the fraction of the machine's estimated FP32 peak.
#include <torchlet/hw/cpu.h>
#include <torchlet/threads.h>
#include <torchlet/torchlet.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace tl = torchlet;
namespace nn = torchlet::nn;

namespace {

constexpr int64_t kRows = 60000, kBatch = 256, kClasses = 10;
const std::vector<int64_t> kWidths{784, 512, 512, kClasses};

struct Options {
  int epochs = 2;
  int warmup_steps = 5;
  int threads = 0;  // 0: the library's default
};

// Multiply-adds x 2 per sample: the forward GEMMs, the weight gradients, and the input
// gradients of every layer but the first (the data needs none). Elementwise work is left out.
double flops_per_sample() {
  double forward = 0.0, input_grads = 0.0;
  for (std::size_t l = 0; l + 1 < kWidths.size(); ++l) {
    const double macs = static_cast<double>(kWidths[l] * kWidths[l + 1]);
    forward += 2.0 * macs;
    if (l > 0) input_grads += 2.0 * macs;
  }
  return 2.0 * forward + input_grads;
}

int parse_int(const char* flag, const char* value, int min) {
  char* end = nullptr;
  const long v = value ? std::strtol(value, &end, 10) : 0;
  if (!value || *end != '\0' || v < min || v > 1'000'000) {
    std::fprintf(stderr, "bench_mlp: %s: Expected an integer >= %d, but got '%s'\n", flag, min,
                 value ? value : "");
    std::exit(2);
  }
  return static_cast<int>(v);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const char* flag = argv[i];
    const char* value = i + 1 < argc ? argv[++i] : nullptr;
    if (!std::strcmp(flag, "--epochs"))
      o.epochs = parse_int(flag, value, 1);
    else if (!std::strcmp(flag, "--warmup-steps"))
      o.warmup_steps = parse_int(flag, value, 0);
    else if (!std::strcmp(flag, "--threads"))
      o.threads = parse_int(flag, value, 1);
    else {
      std::fprintf(stderr, "usage: bench_mlp [--epochs N] [--warmup-steps N] [--threads N]\n");
      std::exit(2);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (o.threads > 0) tl::set_num_threads(o.threads);
  const int threads = tl::get_num_threads();

  tl::manual_seed(0);
  const tl::Tensor X = tl::rand({kRows, kWidths.front()});
  std::mt19937_64 rng(0);
  std::uniform_int_distribution<int64_t> label(0, kClasses - 1);
  std::vector<int64_t> labels(kRows);
  for (int64_t& v : labels) v = label(rng);
  const tl::Tensor y = tl::tensor(labels);

  auto model = std::make_shared<nn::Sequential>();
  for (std::size_t l = 0; l + 1 < kWidths.size(); ++l) {
    if (l > 0) model->add<nn::ReLU>();
    model->add<nn::Linear>(kWidths[l], kWidths[l + 1]);
  }
  tl::optim::SGD optimizer(model->parameters(), 0.01);
  auto step = [&](int64_t first) {
    const int64_t n = std::min(kBatch, kRows - first);
    tl::Tensor loss = tl::cross_entropy((*model)(X.narrow(0, first, n)), y.narrow(0, first, n));
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    return loss;
  };

  for (int s = 0; s < o.warmup_steps; ++s) step(s * kBatch);
  float loss = 0.0f;
  const auto start = std::chrono::steady_clock::now();
  for (int epoch = 0; epoch < o.epochs; ++epoch) {
    tl::Tensor last;
    for (int64_t first = 0; first < kRows; first += kBatch) last = step(first);
    loss = last.item();  // once per epoch, as the PyTorch loop does
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const double samples = static_cast<double>(o.epochs) * static_cast<double>(kRows);
  const double samples_per_s = samples / seconds;
  const double gflops = samples_per_s * flops_per_sample() / 1e9;
  const tl::hw::CpuReport cpu = tl::hw::cpu_report();
  const double peak = cpu.peak_fp32 ? cpu.peak_fp32->gflops : 0.0;
  // The peak of the cores the threads can use: one thread cannot reach the second core's share.
  const int cores = std::max(1, cpu.physical_cores);
  const double peak_used = peak * std::min(threads, cores) / cores;
  std::printf(
      "{\"bench\": \"mlp\", \"engine\": \"torchlet\", \"threads\": %d, \"layers\": "
      "\"784-512-512-10\", \"batch\": %lld, \"epochs\": %d, \"seconds\": %.4f, "
      "\"samples_per_s\": %.1f, \"flops_per_sample\": %.0f, \"gflops\": %.2f, "
      "\"peak_gflops\": %.2f, \"peak_gflops_threads\": %.2f, \"peak_formula\": \"%s\", "
      "\"pct_peak\": %.1f, \"final_loss\": %.5f}\n",
      threads, static_cast<long long>(kBatch), o.epochs, seconds, samples_per_s, flops_per_sample(),
      gflops, peak, peak_used, cpu.peak_fp32 ? cpu.peak_fp32->formula.c_str() : "unknown",
      peak > 0 ? 100 * gflops / peak : 0.0, static_cast<double>(loss));
}
