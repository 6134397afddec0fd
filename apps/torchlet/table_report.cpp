// report_table_run (see table_report.h).
#include "table_report.h"

#include <fmt/core.h>

#include <algorithm>

#include "terminal.h"
#include "torchlet/io/file.h"
#include "torchlet/report/chart.h"
#include "torchlet/report/metrics.h"
#include "torchlet/report/regression.h"
#include "train_report.h"

namespace torchlet::cli {
namespace {

void write_learning_curve(const TableRun& run, const std::string& loss_name) {
  report::LineChart chart;
  chart.title = "Learning curve: " + run.data;
  chart.x_label = "epoch";
  chart.y_label = "loss (" + loss_name + ")";
  const std::vector<double> x(run.loss_epochs.begin(), run.loss_epochs.end());
  chart.series.push_back({.name = "training", .x = x, .y = {run.losses.begin(), run.losses.end()}});
  chart.series.push_back(
      {.name = "validation", .x = x, .y = {run.val_losses.begin(), run.val_losses.end()}});
  io::write_file_atomic(run.plot, report::render_svg(chart));
}

void write_predictions(const std::string& path, const std::string& data,
                       const std::vector<double>& truth, const std::vector<double>& predicted) {
  report::LineChart chart;
  chart.title = "Predicted against true values (test rows): " + data;
  chart.x_label = "true value";
  chart.y_label = "predicted value";
  const auto [low, high] = std::minmax_element(truth.begin(), truth.end());
  chart.series.push_back({.name = "test rows", .x = truth, .y = predicted, .points_only = true});
  chart.series.push_back(
      {.name = "predicted = true", .x = {*low, *high}, .y = {*low, *high}, .dashed = true});
  io::write_file_atomic(path, report::render_svg(chart));
}

}  // namespace

void report_table_run(std::FILE* out, const TableRun& run, const data::TableSchema& schema,
                      const Tensor& predicted, const std::vector<double>& truth,
                      nlohmann::json& j) {
  const bool regression = schema.task == "regression";
  if (!run.plot.empty()) {
    write_learning_curve(run, regression ? "squared error, standardised target" : "cross-entropy");
    fmt::print(out, "plot:      {}\n", run.plot);
  }
  j["plot"] = run.plot.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.plot);
  j["loss_epochs"] = run.loss_epochs;
  j["losses"] = run.losses;
  j["val_losses"] = run.val_losses;
  const Style style = run.json ? Style{} : stderr_style();
  if (!regression) {
    const std::vector<int64_t> guess = predicted.argmax(1).to_vector<int64_t>();
    const std::vector<int64_t> classes(truth.begin(), truth.end());
    const report::ClassificationReport rep =
        report::classification_report(classes, guess, schema.classes);
    print_test_result(out, style, rep, classes, guess);
    j["classes"] = schema.classes;
    j["test_acc"] = rep.accuracy;
    add_report_json(j, rep);
    return;
  }
  std::vector<double> values;
  for (float v : predicted.to_vector<float>())
    values.push_back(static_cast<double>(v) * schema.target_scale + schema.target_mean);
  const report::RegressionReport rep = report::regression_report(truth, values);
  if (!run.predictions_plot.empty()) {
    write_predictions(run.predictions_plot, run.data, truth, values);
    fmt::print(out, "plot:      {} (predicted against true)\n", run.predictions_plot);
  }
  j["predictions_plot"] =
      run.predictions_plot.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.predictions_plot);
  fmt::print(out, "{}\n",
             style.bold(fmt::format("test R²: {:.4f}  RMSE: {:.4g}  MAE: {:.4g} ({} rows)", rep.r2,
                                    rep.rmse, rep.mae, rep.rows)));
  j["test_r2"] = rep.r2;
  j["test_rmse"] = rep.rmse;
  j["test_mae"] = rep.mae;
}

}  // namespace torchlet::cli
