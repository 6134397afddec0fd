// `torchlet train`: the course's experiment (Iris, MLP 4-10-3, SGD lr 0.01, 20,000 epochs) by
// default, or any small CSV classification data set. Validates every argument before work
// starts, trains on the best device, prints progress, the time, the loss curve and a test
// report, and writes the checkpoint (--save) and then the loss plot (SVG) atomically. Stops
// early, keeping what it can, at a NaN loss (exit 3) or on SIGINT/SIGTERM (exit 130/143).
#include <fmt/core.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <system_error>

#include "commands.h"
#include "distributed_cli.h"
#include "json_output.h"
#include "outputs.h"
#include "resume.h"
#include "stop_signals.h"
#include "strict_options.h"
#include "terminal.h"
#include "torchlet/data/csv.h"
#include "torchlet/data/table.h"
#include "torchlet/io/file.h"
#include "torchlet/nn/checkpoint.h"
#include "torchlet/report/chart.h"
#include "torchlet/report/metrics.h"
#include "torchlet/threads.h"
#include "torchlet/train.h"
#include "torchlet/train/models.h"
#include "torchlet/train/saved_model.h"
#include "torchlet/version.h"
#include "train_args.h"
#include "train_images.h"
#include "train_report.h"
#include "train_table.h"

namespace torchlet::cli {

namespace {

constexpr int64_t kMaxRecordedLosses = 10'000'000;

bool is_image_data(const std::string& data) {
  std::error_code error;  // a path that cannot be looked at is not a folder: read_csv says why
  return data == "fashion-mnist" || std::filesystem::is_directory(data, error);
}

// The image path (train_images.cpp): its own defaults (Adam, lr 1e-3, batches of 64, a few
// epochs) unless the options say otherwise; the tabular-only options are refused.
void run_images(const TrainArgs& a, DistributedCli& dist) {
  for (const char* option : {"--label", "--scale", "--test-size", "--split-seed", "--save",
                             "--resume", "--graph", "--eager", "--print-every"})
    TORCHLET_CHECK(!a.given.count(option), option, ": Expected no ", option, " with image data ('",
                   a.data, "'): ",
                   std::string(option) == "--test-size" || std::string(option) == "--split-seed"
                       ? "image data sets keep their official train/test split"
                       : "it applies to tabular (CSV and Iris) training only");
  TORCHLET_CHECK(a.model == "mlp" || a.model == "cnn", "--model: Expected mlp or cnn, but got '",
                 a.model, "'");
  TORCHLET_CHECK(a.train_limit == -1 || a.train_limit >= 1,
                 "--train-limit: Expected a number >= 1, but got ", a.train_limit);
  TORCHLET_CHECK(a.test_limit == -1 || a.test_limit >= 1,
                 "--test-limit: Expected a number >= 1, but got ", a.test_limit);
  ImageTrainArgs img;
  img.data = a.data;
  img.model = a.model;
  img.device = resolve_device(a.device);
  if (a.given.count("--hidden")) img.hidden = a.hidden;
  if (a.given.count("--epochs")) img.epochs = a.epochs;
  if (a.given.count("--lr")) img.lr = a.lr;
  if (a.given.count("--optimizer")) img.optimizer = a.optimizer;
  if (a.given.count("--batch-size")) img.batch_size = a.batch_size;
  if (a.given.count("--record-every")) img.record_every = a.record_every;
  TORCHLET_CHECK(img.record_every >= 1,
                 "--record-every: Expected a number of batches >= 1 with "
                 "image data, but got ",
                 img.record_every);
  img.momentum = a.momentum;
  img.seed = a.seed;
  img.train_limit = a.train_limit;
  img.test_limit = a.test_limit;
  img.plot = a.plot;
  img.no_plot = a.no_plot;
  img.json = a.json;
  img.dist = &dist;
  run_train_images(img);
}

void validate(const TrainArgs& a) {
  TORCHLET_CHECK(!(a.graph_on && a.graph_off),
                 "--graph: Expected --graph or --no-graph, but got both");
  TORCHLET_CHECK(!a.threads_given || a.threads >= 1,
                 "--threads: Expected a number of threads >= 1 (leave it out for one per core), "
                 "but got ",
                 a.threads);
  if (a.threads_given) check_threads(a.threads);
  TORCHLET_CHECK(a.epochs > 0, "--epochs: Expected a number > 0, but got ", a.epochs);
  TORCHLET_CHECK(std::isfinite(a.lr) && a.lr > 0, "--lr: Expected a finite number > 0, but got ",
                 a.lr);
  TORCHLET_CHECK(std::isfinite(a.momentum) && a.momentum >= 0 && a.momentum < 1,
                 "--momentum: Expected a number in [0, 1), but got ", a.momentum);
  TORCHLET_CHECK(a.optimizer == "sgd" || a.optimizer == "adam",
                 "--optimizer: Expected sgd or adam, but got '", a.optimizer, "'");
  TORCHLET_CHECK(!a.hidden.empty(), "--hidden: Expected at least one width, e.g. 10 or 64,64");
  for (int64_t w : a.hidden) TORCHLET_CHECK(w > 0, "--hidden: Expected widths > 0, but got ", w);
  TORCHLET_CHECK(a.batch_size >= 0,
                 "--batch-size: Expected a number >= 0 (0 = full batch), but got ", a.batch_size);
  TORCHLET_CHECK(a.record_every >= 0, "--record-every: Expected a number >= 0, but got ",
                 a.record_every);
  // The recorded losses are kept (on the device, then for the plot and the JSON): bounded, so
  // that --epochs 1e9 --record-every 1 is refused instead of reserving gigabytes up front.
  TORCHLET_CHECK(a.record_every == 0 || a.epochs / a.record_every <= kMaxRecordedLosses,
                 "--record-every: Expected at most ", kMaxRecordedLosses,
                 " recorded losses (--epochs / --record-every), but --epochs ", a.epochs,
                 " --record-every ", a.record_every, " records ", a.epochs / a.record_every,
                 ": record less often");
  TORCHLET_CHECK(a.print_every >= 0, "--print-every: Expected a number >= 0, but got ",
                 a.print_every);
  TORCHLET_CHECK(std::isfinite(a.test_size) && a.test_size > 0 && a.test_size < 1,
                 "--test-size: Expected a fraction in (0, 1), but got ", a.test_size);
  TORCHLET_CHECK(a.scale == "minmax" || a.scale == "standard" || a.scale == "none",
                 "--scale: Expected minmax, standard or none, but got '", a.scale, "'");
  TORCHLET_CHECK(!a.given.count("--save") || !a.save.empty(),
                 "--save: Expected a file path, but got an empty one");
  std::vector<PathOption> outputs;
  if (!a.save.empty()) outputs.push_back({"--save", a.save});
  if (!a.no_plot) outputs.push_back({"--plot", a.plot});
  const std::string data = a.data == "iris" || a.data == "fashion-mnist" ? "" : a.data;
  prepare_outputs(outputs, {{"--data", data}});
  // --save may replace the checkpoint it resumes from (read whole first); the plot may not.
  TORCHLET_CHECK(a.no_plot || a.resume.empty() || !io::same_file(a.plot, a.resume),
                 "--plot: Expected a file other than the --resume file (an input), but both name '",
                 a.resume, "'");
}

// A table (train_table.cpp): its own defaults (train_table.h) unless the options say otherwise.
void run_table(const TrainArgs& a) {
  for (const char* option : {"--resume", "--graph", "--no-graph", "--eager", "--record-every",
                             "--print-every", "--model"})
    TORCHLET_CHECK(!a.given.count(option), option, ": Expected no ", option, " with a table ('",
                   a.data,
                   "'): tables train with validation and early stopping, which it does "
                   "not apply to");
  // A table's batches are small (64 rows of ~100 inputs): one thread does them fastest, and on
  // a busy machine the pool's waits cost far more (passengers.csv: 0.45 s against 14 s with
  // two threads at load 13, measured 2026-12-01).
  if (!a.threads_given) set_num_threads(1);
  TableTrainArgs t;
  t.data = a.data, t.label = a.label, t.device = a.device, t.momentum = a.momentum;
  if (a.given.count("--epochs")) t.epochs = a.epochs;
  if (a.given.count("--lr")) t.lr = a.lr;
  if (a.given.count("--optimizer")) t.optimizer = a.optimizer;
  if (a.given.count("--hidden")) t.hidden = a.hidden;
  if (a.given.count("--batch-size")) t.batch_size = a.batch_size;
  if (a.given.count("--scale")) t.scale = a.scale;
  t.seed = a.seed, t.split_seed = a.split_seed, t.test_size = a.test_size;
  t.plot = a.plot, t.save = a.save, t.no_plot = a.no_plot, t.json = a.json;
  t.table = a.table;
  run_train_table(t);
}

data::Dataset load(const TrainArgs& a) {
  if (a.data == "iris") {
    TORCHLET_CHECK(a.label.empty(), "--label: Expected no --label with the built-in Iris data");
    return data::load_iris();
  }
  return data::read_csv(a.data, a.label);
}

std::string widths_str(const std::vector<int64_t>& widths) {
  return fmt::format("{}", fmt::join(widths, "-"));
}

// The one line for a NaN or infinite loss first seen at `epoch`, the loss last read finite at
// epoch `good`. The file at --save is left as it was.
[[noreturn]] void stop_at_nonfinite(double lr, const std::string& save, int64_t good, int64_t epoch,
                                    float loss) {
  const char* what = std::isnan(loss) ? "nan" : loss > 0 ? "inf" : "-inf";
  const std::string when = epoch == good + 1
                               ? fmt::format("at epoch {}", epoch)
                               : fmt::format("between epochs {} and {}", good + 1, epoch);
  std::string kept;
  std::error_code error;
  if (!save.empty())
    kept = std::filesystem::exists(save, error) ? "; " + save + " keeps the last good checkpoint"
                                                : "; no checkpoint written";
  fmt::print(stderr,
             "torchlet: error: training stopped: the loss became {} {}. The learning rate is "
             "probably too high: try a smaller --lr than {}{}\n",
             what, when, lr, kept);
  throw ExitStatus{kExitNonFiniteLoss};
}

}  // namespace

void run_train(const TrainArgs& given, DistributedCli& dist) {
  validate(given);
  // Under mpirun rank 0 alone writes the checkpoint and the plot.
  TrainArgs a = given;
  if (!dist.leader()) a.save.clear(), a.no_plot = true;
  if (a.threads_given) set_num_threads(a.threads);
  if (is_image_data(a.data)) return run_images(a, dist);
  TORCHLET_CHECK(a.data != "iris" || !table_option_given(a.given),
                 "--data: Expected a CSV file with the table options (--task, --val-size, ...), "
                 "but got the built-in Iris data");
  // Standard input can be read once only: there a table option asks for the table path.
  if (a.data != "iris" &&
      (table_option_given(a.given) ||
       (a.data != "-" && data::needs_table(data::read_csv_table(a.data), a.data, a.label)))) {
    TORCHLET_CHECK(dist.size() == 1,
                   "--data: Expected one process for a table with categories, "
                   "missing cells or a regression target, but got ",
                   dist.size(), " ranks (run it without mpirun)");
    return run_table(a);
  }
  TORCHLET_CHECK(a.model == "mlp", "--model: Expected mlp with tabular data ('", a.data,
                 "'), but got '", a.model,
                 "' (cnn needs images: --data fashion-mnist or a folder)");
  for (const char* option : {"--train-limit", "--test-limit"})
    TORCHLET_CHECK(!a.given.count(option), option, ": Expected no ", option,
                   " with tabular data ('", a.data, "'): it applies to image data only");
  const std::optional<SavedModel> resumed =
      a.resume.empty() ? std::nullopt : std::optional(read_saved_model(a.resume));
  const Device device = resolve_device(a.device);
  TORCHLET_CHECK(!a.graph_on || device.is_cuda(),
                 "--graph: Expected a CUDA device (CUDA graphs replay GPU work), but got --device ",
                 a.device, " (", device.str(), ")");
  data::Dataset ds = load(a);
  const int64_t rows = ds.X.size(0);
  const auto n_test = static_cast<int64_t>(std::ceil(a.test_size * static_cast<double>(rows)));
  TORCHLET_CHECK(rows - n_test >= 1, a.data,
                 ": Expected enough rows for a train/test split with --test-size ", a.test_size,
                 ", but got ", rows, " rows (", n_test, " for testing, ", rows - n_test,
                 " for training)");
  auto [X_train, X_test, y_train, y_test] =
      data::train_test_split(ds.X, ds.y, a.test_size, a.split_seed);
  const int64_t train_rows = X_train.size(0), test_rows = X_test.size(0);
  TORCHLET_CHECK(a.batch_size <= train_rows, "--batch-size: Expected at most ", train_rows,
                 " (the training rows), but got ", a.batch_size);
  // The test part is scaled with the training part's parameters.
  const data::ScalerParams scaler = data::ScalerParams::fit(a.scale, X_train);
  X_train = scaler.transform(X_train), X_test = scaler.transform(X_test);

  const int64_t features = ds.X.size(1), classes = static_cast<int64_t>(ds.class_names.size());
  std::vector<int64_t> widths{features};
  widths.insert(widths.end(), a.hidden.begin(), a.hidden.end());
  widths.push_back(classes);
  check_mlp_fits("--hidden", widths, a.batch_size ? a.batch_size : train_rows);
  SavedModel card{.layers = widths,
                  .features = ds.feature_names,
                  .classes = ds.class_names,
                  .scaler = scaler,
                  .optimizer = a.optimizer,
                  .lr = a.lr,
                  .momentum = a.momentum,
                  .torchlet_version = TORCHLET_VERSION,
                  .optimizer_state = {}};  // nn::save writes it
  if (resumed) check_resumable(*resumed, a.resume, card, a.epochs);
  const int64_t start = resumed ? resumed->epochs : 0;
  manual_seed(a.seed);
  auto model = nn::make_mlp(widths);
  model->to(device);
  X_train = X_train.to(device), X_test = X_test.to(device);
  y_train = y_train.to(device), y_test = y_test.to(device);
  std::unique_ptr<optim::Optimizer> optimizer =
      make_optimizer(a.optimizer, model->parameters(), a.lr, a.momentum);
  // The optimizer's state goes on where the checkpoint left it when it holds the same kind's;
  // older checkpoints (weights only) and a change of --optimizer start it afresh.
  std::string resume_note;
  if (resumed && resumed->optimizer_state == optimizer->name()) {
    nn::load(*model, *optimizer, a.resume);
    resume_note = ", with the optimizer's state";
  } else if (resumed) {
    nn::load(*model, a.resume);
    resume_note =
        resumed->optimizer_state.empty()
            ? fmt::format(" (it holds no optimizer state: {}'s starts afresh)", optimizer->name())
            : fmt::format(" (it holds {}'s optimizer state: {}'s starts afresh)",
                          resumed->optimizer_state, optimizer->name());
  }
  int64_t n_params = 0;
  for (const Tensor& p : model->parameters()) n_params += p.numel();

  // With --json the text goes to stderr: rank 0's only (the others' stdout is /dev/null).
  std::FILE* out = a.json && dist.leader() ? stderr : stdout;
  const Style style = a.json ? Style{} : stderr_style();
  const std::string data_name = a.data == "iris" ? "Iris (built in)" : a.data;
  fmt::print(out, "data:      {}: {} rows, {} features, {} classes; {} train / {} test rows\n",
             data_name, ds.X.size(0), features, classes, train_rows, test_rows);
  fmt::print(out, "model:     MLP {} ({} parameters), {} lr {}{}, {}\n", widths_str(widths),
             n_params, a.optimizer == "sgd" ? "SGD" : "Adam", a.lr,
             a.momentum > 0 ? fmt::format(" momentum {}", a.momentum) : "",
             a.batch_size ? fmt::format("batches of {}", a.batch_size) : "full batch");
  fmt::print(out, "device:    {}\n", device.str());
  if (resumed) fmt::print(out, "resumed:   {} at epoch {}{}\n", a.resume, start, resume_note);
  flush_output(out, a.json ? "stderr" : "stdout");
  StopSignals::stop_if_received("before training", a.json);

  ProgressBar bar(a.epochs - start, !a.json && stderr_is_terminal(), stderr_style());
  TrainOptions options{.epochs = a.epochs - start,
                       .batch_size = a.batch_size,
                       .seed = a.seed,
                       .record_every = a.record_every,
                       .print_every = a.print_every,
                       .epochs_before = start,
                       .execution = a.eager ? Execution::Eager : Execution::Auto,
                       .graph = a.graph_on    ? CudaGraph::On
                                : a.graph_off ? CudaGraph::Off
                                              : CudaGraph::Auto};
  const int64_t batches = a.batch_size ? (train_rows + a.batch_size - 1) / a.batch_size : 1;
  const std::string refusal = graph_refusal(device, batches, *optimizer);
  TORCHLET_CHECK(!a.graph_on || refusal.empty(),
                 "--graph: Expected a run a CUDA graph can replay, but ", refusal);
  options.should_stop = [] { return StopSignals::received() != 0; };
  // The loss is read (and train() checks it) at every epoch on the CPU, where reading it is
  // free; elsewhere only when it is shown (printed, drawn) and at the end.
  options.on_epoch = [&](const EpochInfo& info) {
    const int64_t epoch = info.epoch();
    const bool print = a.print_every && epoch % a.print_every == 0;
    const bool draw = !print && bar.due();
    // Every rank prints at the same epochs (the loss is their mean); the bar is rank 0's own.
    if ((!print && !draw) || !std::isfinite(info.value())) return true;
    if (print) {
      bar.clear();
      fmt::print(out, "Epoch [{}/{}], Loss: {:.4f}\n", epoch, a.epochs, dist.mean(info.value()));
      flush_output(out, a.json ? "stderr" : "stdout");
    } else {
      bar.draw(epoch - start, info.value());
    }
    return true;
  };
  dist.shard(*model, options, train_rows, a.batch_size, a.seed, a.batch_size > 0);
  TrainResult fit = train(*model, *optimizer, X_train, y_train, options);
  dist.average(fit.losses);  // each rank's are its shard's: the mean is the global batch's
  fit.final_loss = static_cast<float>(dist.mean(fit.final_loss));
  const DistributedCli::CommSummary comm = dist.comm_summary();
  bar.clear();
  const int signal = StopSignals::received();
  // From here on a second signal waits: the checkpoint, the plot and the JSON are written whole.
  const FinalWrites final_writes;
  card.epochs = start + fit.epochs_done;
  if (fit.stop == StopReason::NonFinite)
    stop_at_nonfinite(a.lr, a.save, fit.last_finite_epoch, fit.nonfinite_epoch, fit.nonfinite_loss);
  const bool plot = !a.no_plot && !fit.losses.empty();
  const std::string title =
      fmt::format("Training loss: MLP {} on {}, {}", widths_str(widths), data_name, device.str());

  std::vector<int64_t> predicted, truth = y_test.to_vector<int64_t>();
  {
    NoGradGuard no_grad;
    predicted = (*model)(X_test).argmax(1).to_vector<int64_t>();
  }
  const report::ClassificationReport rep =
      report::classification_report(truth, predicted, ds.class_names);
  const double epoch_us = fit.train_s / static_cast<double>(fit.epochs_done) * 1e6;
  fmt::print(out, "training:  {:.3f} s for {} epochs ({:.2f} us per epoch)\n", fit.train_s,
             fit.epochs_done, epoch_us);
  print_comm_summary(out, comm, fit.train_s);
  fmt::print(out, "loss:      {:.4f} (final)", fit.final_loss);
  if (!fit.losses.empty())
    fmt::print(out, "  {}", report::sparkline({fit.losses.begin(), fit.losses.end()}, 50));
  fmt::print(out, "\n");
  // The checkpoint first: it is the work a failure to write the plot must not lose.
  std::vector<std::string> wrote;
  if (!a.save.empty()) {
    nn::save(*model, *optimizer, a.save, to_metadata(card));
    fmt::print(out, "checkpoint: {} ({} epochs)\n", a.save, card.epochs);
    wrote.push_back("checkpoint " + a.save);
  }
  if (plot) {
    write_loss_plot(a.plot, {fit.loss_epochs.begin(), fit.loss_epochs.end()},
                    {fit.losses.begin(), fit.losses.end()}, title, "training loss");
    fmt::print(out, "plot:      {}\n", a.plot);
    wrote.push_back("plot " + a.plot);
  }
  print_test_result(out, style, rep, truth, predicted);
  if (signal != 0)
    fmt::print(
        stderr, "torchlet: stopped by {} after epoch {} of {}; {}\n", StopSignals::name(signal),
        card.epochs, a.epochs,
        wrote.empty() ? "nothing written" : fmt::format("wrote {}", fmt::join(wrote, " and ")));
  if (a.json) {
    nlohmann::json j;
    j["torchlet_version"] = TORCHLET_VERSION;
    j["device"] = device.str();
    j["data"] = a.data;
    j["rows"] = ds.X.size(0);
    j["features"] = features;
    j["classes"] = ds.class_names;
    j["train_rows"] = train_rows;
    j["test_rows"] = test_rows;
    j["layers"] = widths;
    j["parameters"] = n_params;
    add_settings_json(j, a);
    j["scale"] = a.scale;
    j["fused"] = fit.fused;
    j["graph"] = fit.graph;
    j["epochs"] = card.epochs;
    j["ranks"] = comm.ranks;
    j["comm_wait_s"] = comm.wait_s;
    j["train_s"] = fit.train_s;
    j["epoch_us"] = epoch_us;
    j["final_loss"] = fit.final_loss;
    j["test_acc"] = rep.accuracy;
    j["record_every"] = a.record_every;
    j["loss_epochs"] = fit.loss_epochs;
    j["losses"] = fit.losses;
    add_report_json(j, rep);
    j["plot"] = plot ? nlohmann::json(a.plot) : nlohmann::json(nullptr);
    j["checkpoint"] = a.save.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.save);
    j["interrupted"] = signal != 0;
    print_json_line(j);
  }
  if (signal != 0) throw ExitStatus{StopSignals::exit_status(signal)};
}

}  // namespace torchlet::cli
