// The table path of `torchlet train` (see train_table.h): read and type the file, split off
// the test rows (scikit-learn's train_test_split) and a validation part of the training rows
// (stratified for classification), fit the schema and the scaler on the rest, train the
// table's model (an MLP, with embeddings for many-level columns) with early stopping on the
// validation loss, then refit --ensemble fresh ones (from successive seeds) on all the training
// rows for the best epoch's number of epochs (or, --no-refit, restore the best epoch of each
// member's validation run), average their predictions, report, save.
#include "train_table.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "json_output.h"
#include "outputs.h"
#include "stop_signals.h"
#include "table_report.h"
#include "torchlet/data/table.h"
#include "torchlet/functional.h"
#include "torchlet/nn/checkpoint.h"
#include "torchlet/report/metrics.h"
#include "torchlet/torchlet.h"
#include "torchlet/train.h"
#include "torchlet/train/models.h"
#include "torchlet/train/saved_model.h"
#include "torchlet/train/table_fit.h"
#include "torchlet/train/table_model.h"
#include "torchlet/version.h"
#include "train_report.h"

namespace torchlet::cli {
namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::vector<data::CsvRow> pick(const std::vector<data::CsvRow>& rows,
                               const std::vector<int64_t>& at) {
  std::vector<data::CsvRow> out;
  for (int64_t r : at) out.push_back(rows[static_cast<std::size_t>(r)]);
  return out;
}

std::vector<double> pick(const std::vector<double>& values, const std::vector<int64_t>& at) {
  std::vector<double> out;
  for (int64_t r : at) out.push_back(values[static_cast<std::size_t>(r)]);
  return out;
}

// The targets as the model is trained on them: class indices [N] int64, or regression values
// standardised with the schema's target scaling [N, 1] float32.
Tensor targets(const data::TableSchema& s, const std::vector<double>& values) {
  if (s.task == "classification") {
    std::vector<int64_t> classes(values.begin(), values.end());
    return tensor(classes);
  }
  std::vector<float> scaled;
  for (double v : values)
    scaled.push_back(static_cast<float>((v - s.target_mean) / s.target_scale));
  return tensor(scaled, {static_cast<int64_t>(scaled.size()), 1});
}

// The schema fitted to `rows` (vocabularies, medians; for regression the scaling of their
// targets `y`), the scaler fitted to their inputs, and the inputs scaled.
struct Fitted {
  data::TableSchema schema;
  data::ScalerParams scaler;
  Tensor X;
};

Fitted fit_schema(data::TableSchema schema, const data::Table& t,
                  const std::vector<data::CsvRow>& rows, const std::vector<double>& y,
                  const TableTrainArgs& a) {
  schema.fit(rows, t.header, a.table.embedding_threshold);
  if (schema.task == "regression") {
    double mean = 0.0, var = 0.0;
    for (double v : y) mean += v / static_cast<double>(y.size());
    for (double v : y) var += (v - mean) * (v - mean) / static_cast<double>(y.size());
    schema.target_mean = mean, schema.target_scale = var > 0 ? std::sqrt(var) : 1.0;
  }
  const Tensor X = schema.encode(t.header, rows, a.data);
  data::ScalerParams scaler = fit_table_scaler(schema, a.scale, X);
  return {std::move(schema), scaler, scaler.transform(X)};
}

// The MLP's widths of the table model for `schema`: its inputs, --hidden, its outputs.
std::vector<int64_t> model_widths(const data::TableSchema& schema, const TableTrainArgs& a) {
  std::vector<int64_t> widths{table_model_width(schema)};
  widths.insert(widths.end(), a.hidden.begin(), a.hidden.end());
  widths.push_back(schema.task == "regression" ? 1 : static_cast<int64_t>(schema.classes.size()));
  return widths;
}

void check(const TableTrainArgs& a) {
  const TableCliOptions& t = a.table;
  TORCHLET_CHECK(std::isfinite(t.val_size) && t.val_size > 0 && t.val_size < 1,
                 "--val-size: Expected a fraction in (0, 1), but got ", t.val_size);
  TORCHLET_CHECK(t.patience >= 0, "--patience: Expected a number >= 0 (0: no early stopping), ",
                 "but got ", t.patience);
  TORCHLET_CHECK(std::isfinite(t.min_delta) && t.min_delta >= 0,
                 "--min-delta: Expected a number >= 0, but got ", t.min_delta);
  TORCHLET_CHECK(t.class_weight == "none" || t.class_weight == "balanced",
                 "--class-weight: Expected none or balanced, but got '", t.class_weight, "'");
  TORCHLET_CHECK(t.loss == "mse" || t.loss == "huber", "--loss: Expected mse or huber, but got '",
                 t.loss, "'");
  TORCHLET_CHECK(t.ensemble >= 1 && t.ensemble <= 1024, "--ensemble: Expected a number of ",
                 "models in [1, 1024], but got ", t.ensemble);
  TORCHLET_CHECK(t.embedding_threshold >= 0, "--embedding-threshold: Expected a number of ",
                 "levels >= 0, but got ", t.embedding_threshold);
}

// A run whose loss became NaN or infinite ends the command (nothing written).
void refuse_nonfinite(const TableRunEnd& run, double lr) {
  if (run.stop != StopReason::NonFinite) return;
  fmt::print(stderr,
             "torchlet: error: training stopped: the loss became {} at epoch {}. The learning "
             "rate is probably too high: try a smaller --lr than {}; nothing written\n",
             run.nonfinite_loss, run.nonfinite_epoch, lr);
  throw ExitStatus{kExitNonFiniteLoss};
}

}  // namespace

void add_table_options(CLI::App* cmd, TableCliOptions& o) {
  cmd->add_option("--task", o.task,
                  "Tables: auto, classification or regression (auto: regression for a numeric "
                  "label with more than 20 distinct values or a fraction)")
      ->capture_default_str();
  cmd->add_option("--categorical", o.categorical, "Tables: columns to treat as categories, a,b");
  cmd->add_option("--numeric", o.numeric, "Tables: columns to treat as numbers, a,b");
  cmd->add_option("--drop", o.drop, "Tables: columns to leave out, a,b");
  cmd->add_option("--na-values", o.na_values,
                  "Tables: cells read as missing, a,b (default: NA,NaN,null,? and empty cells)");
  cmd->add_option("--embedding-threshold", o.embedding_threshold,
                  "Tables: a categorical column with more levels than this gets a learned "
                  "embedding (min(16, (levels + 1) / 2) wide) instead of one-hot inputs")
      ->capture_default_str();
  cmd->add_option("--val-size", o.val_size,
                  "Tables: fraction of the training rows held out for validation")
      ->capture_default_str();
  cmd->add_option("--patience", o.patience,
                  "Tables: stop after N epochs without a better validation loss (0: never)")
      ->capture_default_str();
  cmd->add_option("--min-delta", o.min_delta,
                  "Tables: a validation loss counts as better only when it is below the best by "
                  "more than this (0: any decrease)")
      ->capture_default_str();
  cmd->add_option("--class-weight", o.class_weight,
                  "Tables: none, or balanced (each class weighted by rows / (classes * its rows))")
      ->capture_default_str();
  cmd->add_option("--loss", o.loss, "Tables, regression: mse or huber")->capture_default_str();
  cmd->add_option("--plot-predictions", o.predictions_plot,
                  "Tables, regression: where to write predicted against true values (SVG)")
      ->capture_default_str();
  cmd->add_flag("--no-refit", o.no_refit,
                "Tables: keep the best epoch's weights of the validation run instead of "
                "training a fresh model on all the training rows for that many epochs");
  cmd->add_option("--ensemble", o.ensemble,
                  "Tables: train this many models (seeds --seed, --seed + 1, ...: each its own "
                  "validation run and refit) and average their predictions")
      ->capture_default_str();
  cmd->add_flag("--strict", o.strict,
                "Tables: refuse a row with an empty label instead of skipping it");
}

bool table_option_given(const std::set<std::string>& given) {
  for (const char* option :
       {"--task", "--categorical", "--numeric", "--drop", "--na-values", "--embedding-threshold",
        "--val-size", "--patience", "--min-delta", "--class-weight", "--loss", "--plot-predictions",
        "--no-refit", "--ensemble", "--strict"})
    if (given.count(option)) return true;
  return false;
}

void run_train_table(const TableTrainArgs& a) {
  check(a);
  data::TableOptions options{.label = a.label,
                             .task = a.table.task,
                             .categorical = split_list(a.table.categorical),
                             .numeric = split_list(a.table.numeric),
                             .drop = split_list(a.table.drop)};
  if (!a.table.na_values.empty()) options.na_values = split_list(a.table.na_values);
  options.strict = a.table.strict;
  data::Table t = data::read_table(a.data, options);
  const bool regression = t.schema.task == "regression";
  TORCHLET_CHECK(!regression || a.table.class_weight == "none",
                 "--class-weight: Expected none with a regression target ('", t.schema.label,
                 "'), but got ", a.table.class_weight);
  TORCHLET_CHECK(regression || a.table.loss == "mse", "--loss: Expected mse (the default) with ",
                 "classification ('", t.schema.label, "': cross-entropy), but got ", a.table.loss);
  const std::string predictions_plot = regression && !a.no_plot ? a.table.predictions_plot : "";
  if (!predictions_plot.empty())
    prepare_outputs({{"--plot-predictions", predictions_plot}},
                    {{"--data", a.data}, {"--plot", a.plot}, {"--save", a.save}});
  std::FILE* out = a.json ? stderr : stdout;
  if (t.skipped > 0)
    fmt::print(out,
               "note:      skipped {} row{} with an empty label (the first at line {}); "
               "--strict refuses them\n",
               t.skipped, t.skipped > 1 ? "s" : "", t.first_skipped_line);

  const auto rows = static_cast<int64_t>(t.rows.size());
  const auto n_test = static_cast<int64_t>(std::ceil(a.test_size * static_cast<double>(rows)));
  TORCHLET_CHECK(rows - n_test >= 2, a.data, ": Expected enough rows for train, validation and ",
                 "test parts with --test-size ", a.test_size, ", but got ", rows, " rows");
  const auto [train_at, test_at] = data::train_test_indices(rows, a.test_size, a.split_seed);
  const std::vector<double> train_target = pick(t.target, train_at);
  std::vector<int64_t> strata(train_target.size(), 0);
  if (!regression) strata.assign(train_target.begin(), train_target.end());
  const auto [fit_at, val_at] = data::stratified_split(strata, a.table.val_size, a.split_seed);
  TORCHLET_CHECK(!fit_at.empty() && !val_at.empty(), a.data,
                 ": Expected enough training rows for a validation part with --val-size ",
                 a.table.val_size, ", but got ", train_at.size(), " training rows");
  const std::vector<data::CsvRow> train_rows = pick(t.rows, train_at);
  const std::vector<data::CsvRow> fit_rows = pick(train_rows, fit_at),
                                  val_rows = pick(train_rows, val_at),
                                  test_rows = pick(t.rows, test_at);
  const std::vector<double> fit_y = pick(train_target, fit_at), val_y = pick(train_target, val_at),
                            test_y = pick(t.target, test_at);
  // The schema, scaler and first model of the validation runs (the refit's are fitted below).
  const Fitted fitted = fit_schema(t.schema, t, fit_rows, fit_y, a);
  const data::TableSchema& schema = fitted.schema;
  const Tensor X_val = fitted.scaler.transform(schema.encode(t.header, val_rows, a.data));
  const Tensor y_fit = targets(schema, fit_y), y_val = targets(schema, val_y);
  const int64_t outputs = regression ? 1 : static_cast<int64_t>(schema.classes.size());
  const Device device = resolve_device(a.device);
  const std::vector<int64_t> widths = model_widths(schema, a);

  fmt::print(out,
             "data:      {}: {} rows, {} columns -> {} inputs, {}{}; {} train / {} "
             "validation / {} test rows\n",
             a.data, rows, schema.columns.size(), schema.width(),
             regression ? "regression" : fmt::format("{} classes", outputs),
             regression && t.task_inferred ? " (inferred from the label)" : "", fit_rows.size(),
             val_rows.size(), test_rows.size());
  fmt::print(out, "schema:\n{}", schema.describe());
  int64_t n_params = 0;
  for (const Tensor& p : TableModel(schema, widths).parameters()) n_params += p.numel();
  std::string embeddings;
  for (const data::TableColumn* c : schema.embedded())
    embeddings += fmt::format(", embedding {} {}x{}", c->name, c->levels.size(), c->embedding_dim);
  fmt::print(
      out,
      "model:     {}MLP {}{} ({} parameters{}), {} lr {}, {}, at most {} epochs, patience {} "
      "(min delta {})\n",
      a.table.ensemble > 1 ? fmt::format("{} x ", a.table.ensemble) : "", fmt::join(widths, "-"),
      embeddings, n_params, a.table.ensemble > 1 ? " each" : "",
      a.optimizer == "sgd" ? "SGD" : "Adam", a.lr,
      a.batch_size ? fmt::format("batches of {}", a.batch_size) : "full batch", a.epochs,
      a.table.patience, a.table.min_delta);
  fmt::print(out, "device:    {}\n", device.str());
  flush_output(out, a.json ? "stderr" : "stdout");

  Tensor weight;
  if (!regression && a.table.class_weight == "balanced") {
    std::vector<double> count(static_cast<std::size_t>(outputs), 0.0);
    for (double y : fit_y) count[static_cast<std::size_t>(y)] += 1;
    std::vector<float> w;
    for (double c : count)
      w.push_back(c > 0 ? static_cast<float>(static_cast<double>(fit_y.size()) /
                                             (static_cast<double>(outputs) * c))
                        : 0.0f);
    weight = tensor(w, device);
  }
  TableFitOptions o;
  o.members = a.table.ensemble, o.epochs = a.epochs, o.batch_size = a.batch_size;
  o.patience = a.table.patience, o.min_delta = a.table.min_delta, o.seed = a.seed;
  o.loss = regression ? a.table.loss : "cross_entropy";
  o.class_weight = weight;
  o.optimizer = [&a](const std::vector<Tensor>& params) {
    return make_optimizer(a.optimizer, params, a.lr, a.momentum);
  };
  o.should_stop = [] { return StopSignals::received() != 0; };
  // The members (seeds seed, seed + 1, ...) as one batched model: each its own validation run
  // with early stopping, then (the refit) fresh ones on all the training rows (the validation
  // rows included, their schema and scaler fitted anew) for each member's best number of
  // epochs; --no-refit keeps the validation runs' members at their best epochs.
  const TableValidation validation = validate_table_members(
      schema, widths, fitted.X.to(device), y_fit.to(device), X_val.to(device), y_val.to(device), o);
  const TableMemberRun& fit = validation.members.front();
  const StopReason stop = validation.end.stop;
  const bool refitting = !a.table.no_refit && stop != StopReason::NonFinite &&
                         stop != StopReason::StopFlag && fit.best_epoch > 0;
  const Fitted all = refitting ? fit_schema(t.schema, t, train_rows, train_target, a) : Fitted{};
  const Fitted& final_fitted = refitting ? all : fitted;
  const data::TableSchema& final_schema = final_fitted.schema;
  const std::vector<int64_t> final_widths = refitting ? model_widths(final_schema, a) : widths;
  std::vector<int64_t> member_epochs;
  for (const TableMemberRun& m : validation.members)
    member_epochs.push_back(std::max<int64_t>(m.best_epoch, 1));
  const TableRefit refit =
      refitting
          ? refit_table_members(final_schema, final_widths, all.X.to(device),
                                targets(final_schema, train_target).to(device), member_epochs, o)
          : TableRefit{};
  const std::shared_ptr<TableEnsemble> ensemble = refitting ? refit.ensemble : validation.ensemble;
  const std::shared_ptr<nn::Module> net = ensemble->members.size() > 1
                                              ? std::shared_ptr<nn::Module>(ensemble)
                                              : ensemble->members.front();
  const int signal = StopSignals::received();
  const FinalWrites final_writes;
  refuse_nonfinite(validation.end, a.lr);
  refuse_nonfinite(refit.end, a.lr);
  const Tensor X_test =
      final_fitted.scaler.transform(final_schema.encode(t.header, test_rows, a.data));
  Tensor predicted;
  {
    NoGradGuard no_grad;
    net->eval();
    predicted = (*net)(X_test.to(device)).to(kCPU);
  }
  const std::size_t members = ensemble->members.size();
  fmt::print(out,
             "training:  {:.3f} s, {} epochs ({}); best validation loss {:.4f} at epoch {}{}\n",
             validation.end.train_s, fit.epochs_done,
             fit.early_stopped ? "early stopping" : "the --epochs bound", fit.best_val_loss,
             fit.best_epoch,
             refitting || fit.best_epoch == fit.epochs_done ? "" : ", its weights restored");
  if (members > 1)
    fmt::print(out,
               "ensemble:  {} members (seeds {}..{}) trained as one batched model, {} epochs "
               "(each stopped by its own patience)\n",
               members, a.seed, a.seed + members - 1, validation.end.epochs);
  if (refitting)
    fmt::print(out,
               "refit:     {:.3f} s, {} model{} of {} epochs on all {} training rows (--no-refit: "
               "keep the best epoch's weights)\n",
               refit.end.train_s, members, members > 1 ? "s" : "", fmt::join(member_epochs, ", "),
               train_rows.size());

  SavedModel card{.layers = final_widths,
                  .features = final_schema.input_names(),
                  .classes = final_schema.classes,
                  .scaler = final_fitted.scaler,
                  .epochs = refitting ? member_epochs.front() : fit.epochs_done,
                  .optimizer = a.optimizer,
                  .lr = a.lr,
                  .momentum = a.momentum,
                  .torchlet_version = TORCHLET_VERSION,
                  .optimizer_state = {},
                  .table = final_schema,
                  .members = static_cast<int64_t>(members)};
  TableRun run{.data = a.data,
               .plot = a.no_plot ? "" : a.plot,
               .predictions_plot = predictions_plot,
               .json = a.json};
  for (std::size_t e = 1; e <= fit.losses.size(); ++e) run.loss_epochs.push_back(e);
  run.losses = fit.losses;
  run.val_losses = fit.val_losses;
  if (!a.save.empty()) {
    // The batched optimizer's state is not one member's (tables do not --resume): none is kept.
    nn::save(*net, a.save, to_metadata(card));
    fmt::print(out, "checkpoint: {} (epoch {}{})\n", a.save, fit.best_epoch,
               members > 1 ? fmt::format(", {} members", members) : "");
  }
  nlohmann::json j{
      {"torchlet_version", TORCHLET_VERSION},
      {"device", device.str()},
      {"data", a.data},
      {"task", final_schema.task},
      {"task_inferred", t.task_inferred},
      {"rows", rows},
      {"skipped_rows", t.skipped},
      {"inputs", schema.width()},
      {"train_rows", fit_rows.size()},
      {"val_rows", val_rows.size()},
      {"test_rows", test_rows.size()},
      {"layers", final_widths},
      {"parameters", n_params},
      {"epochs", fit.epochs_done},
      {"best_epoch", fit.best_epoch},
      {"best_val_loss", fit.best_val_loss},
      {"early_stopped", fit.early_stopped},
      {"refit", refitting},
      {"refit_epochs", refitting ? member_epochs.front() : 0},
      {"members", members},
      {"train_s", validation.end.train_s + refit.end.train_s},  // every member's runs
      {"checkpoint", a.save.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.save)}};
  report_table_run(out, run, final_schema, predicted, test_y, j);
  if (a.json) print_json_line(j);
  if (signal != 0) throw ExitStatus{StopSignals::exit_status(signal)};
}

}  // namespace torchlet::cli
