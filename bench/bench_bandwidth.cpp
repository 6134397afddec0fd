// Large elementwise ops and reductions on the CPU against the machine's memory bandwidth
// (issue 14): each op runs on float tensors of --elements values (default 2^24, 64 MiB, twice
// the L3 of the development machine), timed as the median of --repeats calls after one warm-up,
// and is charged the bytes it must move (inputs read, output written; forward and backward
// together for the *_fwd_bwd rows: x read and y written, then x and dy read and dx written). The
// ceiling is the faster of two plain copies between buffers of that size, std::memcpy and a loop of
// loads and stores, each on as many threads as torchlet uses. Prints one JSON line per op: {"op",
// "bytes", "seconds", "gbps"}; compare_bandwidth.py runs the same ops in PyTorch and prints the
// ratios. Each line also has "cpu_seconds", the process's CPU time over a call (median).
#include <torchlet/threads.h>
#include <torchlet/torchlet.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace tl = torchlet;

namespace {

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// The median wall-clock time of a call and the median CPU time of the process over a call (all
// its threads; on one thread the figure other processes' load disturbs least).
struct Times {
  double seconds, cpu_seconds;
};

Times median_times(int repeats, const std::function<void()>& f) {
  f();  // warm-up: page faults, the allocator's first blocks
  std::vector<double> wall, cpu;
  for (int i = 0; i < repeats; ++i) {
    const double cpu_start = process_cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    f();
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    cpu.push_back(process_cpu_seconds() - cpu_start);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

void report(const char* op, double bytes, Times t) {
  std::printf(
      "{\"op\": \"%s\", \"bytes\": %.0f, \"seconds\": %.6f, \"gbps\": %.3f, \"cpu_seconds\": "
      "%.6f}\n",
      op, bytes, t.seconds, bytes / t.seconds / 1e9, t.cpu_seconds);
}

// Copies n floats on `threads` threads, each a contiguous part, with std::memcpy (glibc streams
// large copies past the cache) or a plain loop (ordinary stores): what memory gives a copy.
void parallel_copy(float* dst, const float* src, int64_t n, int threads, bool use_memcpy) {
  std::vector<std::thread> pool;
  const int64_t chunk = (n + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    const int64_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
    pool.emplace_back([=] {
      if (use_memcpy)
        std::memcpy(dst + begin, src + begin,
                    static_cast<std::size_t>(end - begin) * sizeof(float));
      else
        for (int64_t i = begin; i < end; ++i) dst[i] = src[i];
    });
  }
  for (std::thread& th : pool) th.join();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"torchlet: large elementwise ops and reductions against a plain copy"};
  int64_t elements = int64_t{1} << 24;
  int repeats = 9, threads = 0;
  app.add_option("--elements", elements, "floats per tensor")->check(CLI::Range(1 << 10, 1 << 28));
  app.add_option("--repeats", repeats, "timed calls per op (the median is printed)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--threads", threads, "CPU threads (0: the library's default)");
  CLI11_PARSE(app, argc, argv);
  if (threads > 0) tl::set_num_threads(threads);
  const int used = tl::get_num_threads();

  tl::manual_seed(0);
  const int64_t cols = 4096, rows = elements / cols;
  const tl::Tensor x = tl::rand({rows, cols}), y = tl::rand({rows, cols});
  const double n = static_cast<double>(rows * cols), f = sizeof(float);

  std::vector<float> a(static_cast<std::size_t>(rows * cols), 1.0f), b(a.size());
  const Times memcpy_t =
      median_times(repeats, [&] { parallel_copy(b.data(), a.data(), rows * cols, used, true); });
  const Times loop_t =
      median_times(repeats, [&] { parallel_copy(b.data(), a.data(), rows * cols, used, false); });
  const bool by_memcpy = memcpy_t.seconds < loop_t.seconds;
  report(by_memcpy ? "copy (memcpy, the ceiling)" : "copy (a loop, the ceiling)", 2 * n * f,
         by_memcpy ? memcpy_t : loop_t);
  tl::Tensor out;
  report("clone", 2 * n * f, median_times(repeats, [&] { out = x.clone(); }));
  report("add", 3 * n * f, median_times(repeats, [&] { out = x + y; }));
  report("mul_scalar", 2 * n * f, median_times(repeats, [&] { out = x * 2.0f; }));
  report("exp", 2 * n * f, median_times(repeats, [&] { out = tl::exp(x); }));
  report("relu", 2 * n * f, median_times(repeats, [&] { out = tl::relu(x); }));
  report("sigmoid", 2 * n * f, median_times(repeats, [&] { out = tl::sigmoid(x); }));
  report("log", 2 * n * f, median_times(repeats, [&] { out = tl::log(x); }));
  report("tanh", 2 * n * f, median_times(repeats, [&] { out = tl::tanh(x); }));
  report("erf", 2 * n * f, median_times(repeats, [&] { out = tl::erf(x); }));
  report("gelu", 2 * n * f, median_times(repeats, [&] { out = tl::gelu(x); }));
  report("gelu_tanh", 2 * n * f, median_times(repeats, [&] { out = tl::gelu(x, "tanh"); }));
  report("silu", 2 * n * f, median_times(repeats, [&] { out = tl::silu(x); }));
  tl::Tensor xg = x.detach();
  xg.set_requires_grad(true);
  auto forward_backward = [&](tl::Tensor (*f)(const tl::Tensor&)) {
    return median_times(repeats, [&] {
      xg.set_grad(tl::Tensor());
      f(xg).backward(y);  // dy = y
    });
  };
  report("gelu_fwd_bwd", 5 * n * f,
         forward_backward([](const tl::Tensor& v) { return tl::gelu(v); }));
  report("silu_fwd_bwd", 5 * n * f, forward_backward(tl::silu));
  report("sum", n * f, median_times(repeats, [&] { out = x.sum(); }));
  report("sum_dim0", n * f, median_times(repeats, [&] { out = x.sum(0); }));
  report("sum_dim1", n * f, median_times(repeats, [&] { out = x.sum(1); }));
  report("max", n * f, median_times(repeats, [&] { out = x.max(); }));
  report("min", n * f, median_times(repeats, [&] { out = x.min(); }));
  report("mean_dim0", n * f, median_times(repeats, [&] { out = x.mean(0); }));
  report("argmax_dim1", n * f, median_times(repeats, [&] { out = x.argmax(1); }));
  std::printf("{\"threads\": %d, \"elements\": %.0f}\n", used, n);
  return out.defined() ? 0 : 1;
}
