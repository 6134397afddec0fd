// The image path of `torchlet train`: loads the data set once (float32, 188 MB for
// Fashion-MNIST's 60,000 training images) onto the training device, where data::DataLoader
// gathers each shuffled batch without a host copy, then trains with torchlet::train (autograd
// and the chosen optimizer), evaluating on the whole test set after each epoch.
#include "train_images.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.h"
#include "distributed_cli.h"
#include "json_output.h"
#include "outputs.h"
#include "stop_signals.h"
#include "terminal.h"
#include "torchlet/data/idx.h"
#include "torchlet/data/loader.h"
#include "torchlet/report/metrics.h"
#include "torchlet/train.h"
#include "torchlet/train/models.h"
#include "torchlet/version.h"
#include "train_report.h"

namespace torchlet::cli {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The model's predicted class for every test image, in batches that bound the activations.
std::vector<int64_t> predict_all(nn::Module& model, const Tensor& images) {
  constexpr int64_t kEvalBatch = 500;
  NoGradGuard no_grad;
  model.eval();
  std::vector<int64_t> predicted;
  predicted.reserve(static_cast<std::size_t>(images.size(0)));
  for (int64_t first = 0; first < images.size(0); first += kEvalBatch) {
    const int64_t n = std::min(kEvalBatch, images.size(0) - first);
    const std::vector<int64_t> part =
        model(images.narrow(0, first, n)).argmax(1).to_vector<int64_t>();
    predicted.insert(predicted.end(), part.begin(), part.end());
  }
  model.train();
  return predicted;
}

double accuracy(const std::vector<int64_t>& truth, const std::vector<int64_t>& predicted) {
  int64_t correct = 0;
  for (std::size_t i = 0; i < truth.size(); ++i) correct += truth[i] == predicted[i];
  return truth.empty() ? 0.0 : static_cast<double>(correct) / static_cast<double>(truth.size());
}

struct EpochRecord {
  int64_t epoch;
  double loss, test_acc, train_s, images_per_s;
};

}  // namespace

int64_t default_image_epochs(const std::string& model) { return model == "mlp" ? 10 : 5; }

void run_train_images(const ImageTrainArgs& a) {
  const int64_t epochs = a.epochs > 0 ? a.epochs : default_image_epochs(a.model);
  if (!a.no_plot) prepare_outputs({{"--plot", a.plot}}, {});
  data::ImageSplit ds = a.data == "fashion-mnist"
                            ? data::load_fashion_mnist(a.train_limit, a.test_limit)
                            : data::load_mnist_dir(a.data, a.train_limit, a.test_limit);
  const Shape& shape = ds.train.images.shape();  // [N, 1, rows, cols]
  const int64_t train_n = shape[0], test_n = ds.test.images.size(0);
  const auto classes = static_cast<int64_t>(ds.class_names.size());
  TORCHLET_CHECK(a.batch_size >= 1 && a.batch_size <= train_n,
                 "--batch-size: Expected a number in [1, ", train_n,
                 "] (the training images), but got ", a.batch_size);
  manual_seed(a.seed);
  const nn::ImageModel built =
      nn::make_image_model(a.model, a.hidden.empty() ? nn::kImageMlpHidden : a.hidden, shape[1],
                           shape[2], shape[3], classes);
  nn::Sequential& model = *built.net;
  model.to(a.device);
  // The data set moves to the training device once; the host copy is released.
  const Tensor train_x = ds.train.images.to(a.device), train_y = ds.train.labels.to(a.device);
  const Tensor test_x = ds.test.images.to(a.device);
  const std::vector<int64_t> truth = ds.test.labels.to_vector<int64_t>();
  ds.train = {}, ds.test = {};
  std::unique_ptr<optim::Optimizer> optimizer =
      make_optimizer(a.optimizer, model.parameters(), a.lr, a.momentum);
  int64_t n_params = 0;
  for (const Tensor& p : model.parameters()) n_params += p.numel();
  data::DataLoader loader(train_x, train_y, {a.batch_size, true, a.seed, false});

  // With --json the text goes to stderr: rank 0's only (the others' stdout is /dev/null).
  std::FILE* out = a.json && (!a.dist || a.dist->leader()) ? stderr : stdout;
  const Style style = a.json ? Style{} : stderr_style();
  const std::string data_name = a.data == "fashion-mnist"
                                    ? "Fashion-MNIST"
                                    : std::filesystem::path(a.data).filename().string();
  fmt::print(out, "data:      {} ({}): {} train / {} test images of {}x{}, {} classes\n", data_name,
             ds.dir, train_n, test_n, shape[2], shape[3], classes);
  fmt::print(out, "model:     {} ({} parameters), {} lr {}{}, batches of {}\n", built.description,
             n_params, a.optimizer == "sgd" ? "SGD" : "Adam", a.lr,
             a.momentum > 0 ? fmt::format(" momentum {}", a.momentum) : "", a.batch_size);
  fmt::print(out, "device:    {}\n", a.device.str());
  flush_output(out, a.json ? "stderr" : "stdout");
  StopSignals::stop_if_received("before training", a.json);

  std::vector<EpochRecord> records;
  std::vector<int64_t> predicted;
  double train_s = 0.0;
  const bool show_bar = !a.json && stderr_is_terminal();
  std::optional<ProgressBar> bar;
  auto start = Clock::now();
  TrainOptions options{.epochs = epochs,
                       .record_every_batches = a.record_every,
                       .execution = Execution::Eager,
                       .stop_within_epoch = true};
  options.should_stop = [] { return StopSignals::received() != 0; };
  // Under mpirun each rank steps through its shard, the global batch split across the ranks.
  const bool sharded = a.dist && a.dist->active();
  if (sharded) a.dist->shard(model, options, train_n, a.batch_size, a.seed, true);
  const int64_t ranks = sharded ? a.dist->size() : 1;
  const int64_t batches =
      sharded ? ((train_n + ranks - 1) / ranks + options.batch_size - 1) / options.batch_size
              : loader.size();
  auto mean = [&](double v) { return sharded ? a.dist->mean(v) : v; };
  options.on_batch = [&](int64_t epoch, int64_t batch, const Tensor& loss) {
    if (batch == 0)
      bar.emplace(batches, show_bar, stderr_style(),
                  fmt::format("epoch {}/{}: batch", epoch, epochs));
    if (bar->due()) {
      const double rate = static_cast<double>((batch + 1) * a.batch_size) / seconds_since(start);
      bar->draw(batch + 1, loss.item(), fmt::format("  {:.0f} images/s", rate));
    }
    if (batch + 1 == batches) bar->clear();
    return true;
  };
  // Each epoch's loss is read here (the wait for the device's work ends its time), then the
  // model is evaluated outside the timed part.
  options.on_epoch = [&](const EpochInfo& info) {
    const double loss = mean(info.value());  // every rank calls it after every epoch
    const double seconds = seconds_since(start);
    if (!std::isfinite(loss)) return true;  // train() stops there
    train_s += seconds;
    predicted = predict_all(model, test_x);
    const double rate = static_cast<double>(loader.dataset_size()) / seconds;
    records.push_back({info.epoch(), loss, accuracy(truth, predicted), seconds, rate});
    fmt::print(out,
               "Epoch [{}/{}], Loss: {:.4f}, test accuracy: {:.4f}  ({:.1f} s, {:.0f} images/s)\n",
               info.epoch(), epochs, loss, records.back().test_acc, seconds, rate);
    flush_output(out, a.json ? "stderr" : "stdout");
    start = Clock::now();
    return true;
  };
  TrainResult fit = sharded ? train(model, *optimizer, train_x, train_y, options)
                            : train(model, *optimizer, loader, options);
  if (sharded) a.dist->average(fit.window_losses);
  const DistributedCli::CommSummary comm =
      sharded ? a.dist->comm_summary() : DistributedCli::CommSummary{};
  if (bar) bar->clear();
  if (fit.stop == StopReason::NonFinite) {  // each epoch's loss is read: seen where it happened
    fmt::print(stderr,
               "torchlet: error: training stopped: the loss became {} in epoch {}. The learning "
               "rate is probably too high: try a smaller --lr than {}\n",
               static_cast<double>(fit.nonfinite_loss), fit.nonfinite_epoch, a.lr);
    throw ExitStatus{kExitNonFiniteLoss};
  }
  const int64_t epochs_done = static_cast<int64_t>(records.size());
  std::vector<double> plot_y(fit.window_losses.begin(), fit.window_losses.end());
  const std::vector<double>& plot_x = fit.window_at;
  const int signal = StopSignals::received();
  // From here on a second signal waits: the plot and the JSON are written whole.
  const FinalWrites final_writes;
  const bool plot = !a.no_plot && !plot_x.empty();
  if (plot)
    write_loss_plot(
        a.plot, plot_x, plot_y,
        fmt::format("Training loss: {} on {}, {}", built.description, data_name, a.device.str()),
        "training loss (mean over the batches since the last point)");
  if (signal != 0) {
    fmt::print(stderr, "torchlet: stopped by {} after epoch {} of {}; {}\n",
               StopSignals::name(signal), epochs_done, epochs,
               plot ? "wrote plot " + a.plot : std::string("nothing written"));
    // No epoch finished: nothing was evaluated, so there is no report to print.
    if (epochs_done == 0) {
      if (a.json) print_json_line({{"interrupted", true}, {"epochs", 0}, {"plot", nullptr}});
      throw ExitStatus{StopSignals::exit_status(signal)};
    }
  }
  const report::ClassificationReport rep =
      report::classification_report(truth, predicted, ds.class_names);
  const double images_per_s = static_cast<double>(epochs_done * train_n) / train_s;
  fmt::print(out, "training:  {:.1f} s for {} epochs ({:.0f} images/s)\n", train_s, epochs_done,
             images_per_s);
  print_comm_summary(out, comm, train_s);
  if (plot) fmt::print(out, "plot:      {}\n", a.plot);
  print_test_result(out, style, rep, truth, predicted);
  if (!a.json) {
    if (signal != 0) throw ExitStatus{StopSignals::exit_status(signal)};
    return;
  }

  nlohmann::json j;
  j["torchlet_version"] = TORCHLET_VERSION;
  j["device"] = a.device.str();
  j["data"] = a.data;
  j["data_dir"] = ds.dir;
  j["train_images"] = train_n;
  j["test_images"] = test_n;
  j["image_shape"] = {shape[1], shape[2], shape[3]};
  j["classes"] = ds.class_names;
  j["model"] = a.model;
  j["model_description"] = built.description;
  j["parameters"] = n_params;
  add_settings_json(j, a);
  j["epochs"] = epochs_done;
  j["train_s"] = train_s;
  j["images_per_s"] = images_per_s;
  j["ranks"] = comm.ranks;
  j["comm_wait_s"] = comm.wait_s;
  j["final_loss"] = records.back().loss;
  j["test_acc"] = rep.accuracy;
  nlohmann::json per_epoch = nlohmann::json::array();
  for (const EpochRecord& r : records)
    per_epoch.push_back({{"epoch", r.epoch},
                         {"loss", r.loss},
                         {"test_acc", r.test_acc},
                         {"train_s", r.train_s},
                         {"images_per_s", r.images_per_s}});
  j["per_epoch"] = per_epoch;
  add_report_json(j, rep);
  j["plot"] = plot ? nlohmann::json(a.plot) : nlohmann::json(nullptr);
  j["interrupted"] = signal != 0;
  print_json_line(j);
  if (signal != 0) throw ExitStatus{StopSignals::exit_status(signal)};
}

}  // namespace torchlet::cli
