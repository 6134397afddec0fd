// The course's workload timed with torchlet's public API: Iris (split 0.2 / 42, MinMax), an
// MLP 4-10-3, SGD lr 0.01, 20,000 full-batch epochs, the loss read every 200. Three variants:
// eager (the course's `struct MLP` as a user writes it: model(X), criterion, zero_grad,
// backward, step), compiled (the same step through torchlet::compile) and fused (an
// nn::Sequential through nn::FusedMlp::loss_and_grads, step). Prints one JSON line per
// variant; compare_pytorch.py runs the same loop in PyTorch and prints the ratios.
#include <torchlet/threads.h>
#include <torchlet/torchlet.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace tl = torchlet;
namespace nn = torchlet::nn;

namespace {

struct Options {
  int epochs = 20000;
  int record_every = 200;
  int repeats = 5;
  int threads = 0;  // 0: the library's default
  std::vector<std::string> variants = {"eager", "compiled", "fused"};
};

struct Data {
  tl::Tensor X, y;
};

Data course_data() {
  auto iris = tl::data::load_iris();
  auto split = tl::data::train_test_split(iris.X, iris.y, 0.2, 42);
  tl::data::MinMaxScaler scaler;
  return {scaler.fit_transform(split.X_train), split.y_train};
}

// The course's model (examples/iris_mlp.cpp).
struct MLP : nn::Module {
  nn::Linear fc1{4, 10};
  nn::ReLU relu;
  nn::Linear fc2{10, 3};
  MLP() {
    register_module("fc1", fc1);
    register_module("relu", relu);
    register_module("fc2", fc2);
  }
  tl::Tensor forward(const tl::Tensor& x) override { return fc2(relu(fc1(x))); }
};

std::shared_ptr<nn::Sequential> course_sequential() {
  tl::manual_seed(0);
  auto model = std::make_shared<nn::Sequential>();
  model->add<nn::Linear>(4, 10);
  model->add<nn::ReLU>();
  model->add<nn::Linear>(10, 3);
  return model;
}

struct Run {
  double seconds = 0.0;
  float final_loss = 0.0f;
};

// Times `epochs` calls of step() (a loss each), reading the loss every record_every.
template <typename Step>
Run timed(const Options& o, Step&& step) {
  std::vector<float> losses;
  losses.reserve(static_cast<std::size_t>(o.epochs / o.record_every));
  const auto start = std::chrono::steady_clock::now();
  for (int epoch = 0; epoch < o.epochs; ++epoch) {
    tl::Tensor loss = step();
    if ((epoch + 1) % o.record_every == 0) losses.push_back(loss.item());
  }
  const auto stop = std::chrono::steady_clock::now();
  return {std::chrono::duration<double>(stop - start).count(),
          losses.empty() ? 0.0f : losses.back()};
}

// One training run from fresh weights; only the loop is timed, as in the PyTorch script.
Run train(const Data& d, const Options& o, const std::string& variant) {
  if (variant == "fused") {
    auto model = course_sequential();
    tl::optim::SGD optimizer(model->parameters(), 0.01);
    nn::FusedMlp fused(*model);
    return timed(o, [&] {
      tl::Tensor loss = fused.loss_and_grads(d.X, d.y);  // replaces the grads: no zero_grad
      optimizer.step();
      return loss;
    });
  }
  tl::manual_seed(0);
  MLP model;
  nn::CrossEntropyLoss criterion;
  tl::optim::SGD optimizer(model.parameters(), 0.01);
  auto step = [&] {
    optimizer.zero_grad();
    tl::Tensor loss = criterion(model(d.X), d.y);
    loss.backward();
    optimizer.step();
    return loss;
  };
  if (variant == "compiled") return timed(o, tl::compile(step));
  return timed(o, step);
}

void report(const Data& d, const Options& o, const std::string& variant) {
  std::vector<double> seconds;
  float final_loss = 0.0f;
  for (int r = 0; r < o.repeats; ++r) {
    const Run run = train(d, o, variant);
    seconds.push_back(run.seconds);
    final_loss = run.final_loss;
  }
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  std::string runs;
  for (double s : seconds) runs += (runs.empty() ? "" : ", ") + std::to_string(s);
  std::printf(
      "{\"bench\": \"course\", \"engine\": \"torchlet\", \"variant\": \"%s\", \"threads\": %d, "
      "\"epochs\": %d, \"runs_s\": [%s], \"median_s\": %.6f, \"min_s\": %.6f, "
      "\"final_loss\": %.6f}\n",
      variant.c_str(), tl::get_num_threads(), o.epochs, runs.c_str(), sorted[sorted.size() / 2],
      sorted.front(), static_cast<double>(final_loss));
  std::fflush(stdout);
}

Options parse(int argc, char** argv) {
  Options o;
  CLI::App app{"The course's workload timed with torchlet: one JSON line per variant",
               "bench_course"};
  app.add_option("--epochs", o.epochs, "Full-batch epochs per run")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000000));
  app.add_option("--record-every", o.record_every, "Read the loss every N epochs")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000000));
  app.add_option("--repeats", o.repeats, "Timed runs per variant")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000000));
  app.add_option("--threads", o.threads, "CPU threads (default: one per core)")
      ->check(CLI::Range(1, 1000000000));
  app.add_option("--variant", o.variants, "Variants to run (eager, compiled, fused)")
      ->capture_default_str()
      ->check(CLI::IsMember({"eager", "compiled", "fused"}));
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
  const Data d = course_data();
  for (const std::string& variant : o.variants) report(d, o, variant);
}
