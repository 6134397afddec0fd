// `torchlet predict`: labels each row of a CSV file with a model saved by `torchlet train
// --save`, scaling it as the training rows were, and prints the class name and one probability
// per class as CSV. The file's header must name the model's features (in any order); other
// columns, such as the label column of a training file, are ignored.
#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "outputs.h"
#include "stop_signals.h"
#include "terminal.h"
#include "torchlet/autograd.h"
#include "torchlet/data/csv.h"
#include "torchlet/data/table.h"
#include "torchlet/io/file.h"
#include "torchlet/nn/checkpoint.h"
#include "torchlet/train/models.h"
#include "torchlet/train/saved_model.h"
#include "torchlet/train/table_model.h"

namespace torchlet::cli {
namespace {

using data::csv_field;
using data::CsvRow;
using data::CsvTable;
using data::parse_csv_number;
using data::read_csv_table;

struct PredictArgs {
  std::string model;
  std::string data;
  std::string out;
  bool given_out = false;  // --out given; otherwise the predictions go to stdout
};

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "'" : ", '") + name + "'";
  return out;
}

// The header column of each of the model's features; errors list the ones not found.
std::vector<std::size_t> feature_columns(const std::string& path, const CsvRow& header,
                                         const std::vector<std::string>& features) {
  const std::vector<std::string>& names = header.fields;
  std::vector<std::size_t> columns;
  std::vector<std::string> missing;
  for (const std::string& feature : features) {
    const auto at = std::find(names.begin(), names.end(), feature);
    if (at == names.end()) {
      missing.push_back(feature);
      continue;
    }
    TORCHLET_CHECK(std::find(at + 1, names.end(), feature) == names.end(), path, ":", header.line,
                   ": Expected the feature column '", feature, "' once, but it appears twice");
    columns.push_back(static_cast<std::size_t>(at - names.begin()));
  }
  TORCHLET_CHECK(missing.empty(), path, ":", header.line, ": Expected a header naming the ",
                 "model's features ", quoted_list(features), ", but it has no ",
                 quoted_list(missing));
  return columns;
}

// The model's features of every row, [rows, features] float32.
Tensor read_features(const std::string& path, const CsvTable& table,
                     const std::vector<std::string>& features) {
  const std::vector<std::size_t> columns = feature_columns(path, table.header, features);
  const std::vector<std::string>& names = table.header.fields;
  std::vector<float> values;
  values.reserve(table.rows.size() * columns.size());
  for (const CsvRow& row : table.rows) {
    TORCHLET_CHECK(row.fields.size() == names.size(), path, ":", row.line, ": Expected ",
                   names.size(), " fields as in the header, but got ", row.fields.size());
    for (std::size_t c : columns) {
      const std::string column = "column " + std::to_string(c + 1) + " ('" + names[c] + "')";
      values.push_back(parse_csv_number(path, row.line, column, row.fields[c]));
    }
  }
  return tensor(values,
                {static_cast<int64_t>(table.rows.size()), static_cast<int64_t>(columns.size())});
}

std::string float_text(float value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);  // shortest exact
  return std::string(buffer, result.ptr);
}

// A table model's inputs take some of the file's columns; the others (the label column of a
// training file, an id) are named on stderr.
void note_ignored_columns(const std::string& path, const CsvRow& header,
                          const data::TableSchema& schema) {
  std::vector<std::string> ignored;
  for (const std::string& name : header.fields)
    if (std::none_of(schema.columns.begin(), schema.columns.end(),
                     [&](const data::TableColumn& c) { return c.name == name; }))
      ignored.push_back(name);
  if (!ignored.empty())
    fmt::print(stderr, "torchlet: note: {}: column{} {} ignored (not used by the model)\n", path,
               ignored.size() > 1 ? "s" : "", quoted_list(ignored));
}

// One line per row: the prediction in the target's units.
std::string regression_csv(const data::TableSchema& schema, const std::vector<float>& outputs) {
  std::string csv = csv_field(schema.label) + "\n";
  for (float v : outputs)
    csv += float_text(static_cast<float>(v * schema.target_scale + schema.target_mean)) + "\n";
  return csv;
}

void write_predictions(const PredictArgs& a, const std::string& csv, int64_t rows) {
  const FinalWrites final_writes;
  if (!a.given_out) {
    std::fwrite(csv.data(), 1, csv.size(), stdout);
    flush_output(stdout, "stdout");
    return;
  }
  io::write_file_atomic(a.out, csv);
  fmt::print("predictions: {} rows of {} written to {}\n", rows, a.data, a.out);
}

void run_predict(const PredictArgs& a) {
  if (a.given_out) prepare_outputs({{"--out", a.out}}, {{"--model", a.model}, {"--data", a.data}});
  const SavedModel saved = read_saved_model(a.model);
  const std::shared_ptr<nn::Module> model =
      !saved.table        ? std::shared_ptr<nn::Module>(nn::make_mlp(saved.layers))
      : saved.members > 1 ? std::shared_ptr<nn::Module>(std::make_shared<TableEnsemble>(
                                *saved.table, saved.layers, saved.members))
                          : std::make_shared<TableModel>(*saved.table, saved.layers);
  nn::load(*model, a.model);
  model->eval();
  const CsvTable table = read_csv_table(a.data);
  const Tensor X =
      saved.scaler.transform(saved.table ? saved.table->encode(table.header, table.rows, a.data)
                                         : read_features(a.data, table, saved.features));
  if (saved.table) note_ignored_columns(a.data, table.header, *saved.table);
  const bool regression = saved.table && saved.table->task == "regression";
  std::vector<float> probs;
  {
    NoGradGuard no_grad;
    const Tensor output = (*model)(X);
    probs = (regression ? output : output.softmax(1)).to_vector<float>();
  }
  StopSignals::stop_if_received("before writing the predictions");
  if (regression) return write_predictions(a, regression_csv(*saved.table, probs), X.size(0));
  const std::size_t classes = saved.classes.size();
  std::string csv = "class";
  for (const std::string& name : saved.classes) csv.append(",").append(csv_field("prob_" + name));
  csv += "\n";
  for (std::size_t at = 0; at < probs.size(); at += classes) {
    const auto row = probs.begin() + static_cast<std::ptrdiff_t>(at);
    const auto best = std::max_element(row, row + static_cast<std::ptrdiff_t>(classes)) - row;
    csv += csv_field(saved.classes[static_cast<std::size_t>(best)]);
    for (std::size_t k = 0; k < classes; ++k) csv.append(",").append(float_text(probs[at + k]));
    csv += "\n";
  }
  write_predictions(a, csv, X.size(0));
}

}  // namespace

void add_predict_command(CLI::App& app) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* cmd = app.add_subcommand(
      "predict", "Label the rows of a CSV file with a model saved by 'torchlet train --save'");
  cmd->add_option("--model", args->model, "The checkpoint written by 'torchlet train --save'")
      ->required();
  cmd->add_option("--data", args->data,
                  "A CSV file whose header names the model's features (other columns ignored)")
      ->required();
  CLI::Option* out =
      cmd->add_option("--out", args->out, "Write the predictions here (atomically), not to stdout");
  cmd->callback([args, out] {
    args->given_out = out->count() > 0;
    run_predict(*args);
  });
}

}  // namespace torchlet::cli
