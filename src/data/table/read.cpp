// read_table: a CSV file typed column by column (numeric, boolean, categorical), its label
// column read as classes or as a regression target, with one-line errors naming the file, line
// and column; needs_table and stratified_split beside it.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "table_cells.h"
#include "torchlet/data/table.h"
#include "torchlet/error.h"

namespace torchlet::data {
namespace {

// More distinct numeric labels than this make a regression target (with task auto).
constexpr std::size_t kMaxIntegerClasses = 20;

std::string column_name(const CsvRow& header, std::size_t c) {
  return "column " + std::to_string(c + 1) + " ('" + header.fields[c] + "')";
}

// The header index of each name in `names` (an option's list); errors name the option.
std::set<std::size_t> named_columns(const std::string& path, const CsvRow& header,
                                    const std::vector<std::string>& names, const char* option) {
  std::set<std::size_t> out;
  for (const std::string& name : names) {
    const auto at = std::find(header.fields.begin(), header.fields.end(), name);
    TORCHLET_CHECK(at != header.fields.end(), path, ":", header.line, ": ", option,
                   ": Expected a column of the header, but there is no '", name, "'");
    out.insert(static_cast<std::size_t>(at - header.fields.begin()));
  }
  return out;
}

ColumnKind infer_kind(const std::vector<const std::string*>& cells) {
  bool numeric = true, boolean = true;
  for (const std::string* cell : cells) {
    double value = 0.0;
    numeric = numeric && parse_cell_number(*cell, value);
    boolean = boolean && boolean_word(*cell) >= 0;
  }
  return numeric ? ColumnKind::Numeric : boolean ? ColumnKind::Boolean : ColumnKind::Categorical;
}

}  // namespace

Table read_table(const std::string& path, const TableOptions& options) {
  TORCHLET_CHECK(
      options.task == "auto" || options.task == "classification" || options.task == "regression",
      "--task: Expected auto, classification or regression, but got '", options.task, "'");
  CsvTable file = read_csv_table(path);
  Table t;
  t.header = file.header;
  TableSchema& s = t.schema;
  s.na_values = options.na_values;
  const std::size_t n_columns = file.header.fields.size();
  const std::size_t label = find_label_column(path, file.header.fields, options.label);
  s.label = file.header.fields[label];
  const auto categorical = named_columns(path, file.header, options.categorical, "--categorical");
  const auto numeric = named_columns(path, file.header, options.numeric, "--numeric");
  const auto drop = named_columns(path, file.header, options.drop, "--drop");
  TORCHLET_CHECK(!drop.count(label), path, ":", file.header.line,
                 ": --drop: Expected feature columns, but '", s.label, "' is the label");

  for (CsvRow& row : file.rows) {
    TORCHLET_CHECK(row.fields.size() == n_columns, path, ":", row.line, ": Expected ", n_columns,
                   " fields as in the header, but got ", row.fields.size());
    if (!s.is_missing(row.fields[label])) {
      t.rows.push_back(std::move(row));
      continue;
    }
    TORCHLET_CHECK(!options.strict, path, ":", row.line, ": ", column_name(file.header, label),
                   ": Expected a label, but the cell is empty or missing (--strict)");
    if (t.skipped++ == 0) t.first_skipped_line = row.line;
  }
  TORCHLET_CHECK(!t.rows.empty(), path, ":", file.header.line, ": ",
                 column_name(file.header, label),
                 ": Expected some labels, but every cell is empty or missing");

  for (std::size_t c = 0; c < n_columns; ++c) {
    if (c == label || drop.count(c)) {
      if (drop.count(c)) s.dropped.push_back(file.header.fields[c]);
      continue;
    }
    std::vector<const std::string*> present;
    for (const CsvRow& row : t.rows)
      if (!s.is_missing(row.fields[c])) present.push_back(&row.fields[c]);
    TORCHLET_CHECK(!present.empty(), path, ":", file.header.line, ": ", column_name(file.header, c),
                   ": Expected some values, but every cell is empty or missing (leave it out "
                   "with --drop '",
                   file.header.fields[c], "')");
    TableColumn column{.name = file.header.fields[c]};
    column.kind = categorical.count(c) ? ColumnKind::Categorical : infer_kind(present);
    if (numeric.count(c)) {
      for (const CsvRow& row : t.rows) {
        double value = 0.0;
        TORCHLET_CHECK(s.is_missing(row.fields[c]) || parse_cell_number(row.fields[c], value), path,
                       ":", row.line, ": ", column_name(file.header, c),
                       ": Expected a number (--numeric), but got '", row.fields[c], "'");
      }
      column.kind = ColumnKind::Numeric;
    }
    s.columns.push_back(std::move(column));
  }

  std::vector<std::string> labels;
  std::vector<double> values;
  bool all_numbers = true, all_integers = true;
  for (const CsvRow& row : t.rows) {
    labels.push_back(row.fields[label]);
    double value = 0.0;
    all_numbers = all_numbers && parse_cell_number(row.fields[label], value);
    all_integers = all_integers && all_numbers && value == std::floor(value);
    values.push_back(value);
  }
  const std::size_t distinct = std::set<std::string>(labels.begin(), labels.end()).size();
  s.task = options.task;
  if (s.task == "auto") {
    t.task_inferred = true;
    s.task = all_numbers && (distinct > kMaxIntegerClasses || !all_integers) ? "regression"
                                                                             : "classification";
  }
  if (s.task == "regression") {
    for (std::size_t r = 0; r < t.rows.size(); ++r)
      TORCHLET_CHECK(parse_cell_number(labels[r], values[r]), path, ":", t.rows[r].line, ": ",
                     column_name(file.header, label),
                     ": Expected a number for a regression target, but got '", labels[r], "'");
    t.target = values;
  } else {
    TORCHLET_CHECK(distinct >= 2, path, ":", t.rows.front().line, ": ",
                   column_name(file.header, label),
                   ": Expected at least two classes, but every row has '", labels.front(), "'");
    const std::vector<int64_t> classes = encode_labels(labels, s.classes);
    t.target.assign(classes.begin(), classes.end());
  }
  return t;
}

bool needs_table(const CsvTable& table, const std::string& path, const std::string& label) {
  const std::size_t label_column = find_label_column(path, table.header.fields, label);
  double value = 0.0;
  std::set<std::string> labels;
  bool numeric_label = true;
  for (const CsvRow& row : table.rows) {
    for (std::size_t c = 0; c < row.fields.size(); ++c)
      if (c != label_column && !parse_cell_number(row.fields[c], value)) return true;
    if (label_column < row.fields.size()) {
      labels.insert(row.fields[label_column]);
      numeric_label = numeric_label && parse_cell_number(row.fields[label_column], value) &&
                      value == std::floor(value);
    }
  }
  return numeric_label && labels.size() > kMaxIntegerClasses;
}

std::pair<std::vector<int64_t>, std::vector<int64_t>> stratified_split(
    const std::vector<int64_t>& classes, double fraction, uint64_t seed) {
  std::map<int64_t, std::vector<int64_t>> by_class;
  for (std::size_t r = 0; r < classes.size(); ++r)
    by_class[classes[r]].push_back(static_cast<int64_t>(r));
  std::mt19937_64 rng(seed);
  std::vector<int64_t> train, held;
  for (auto& [k, rows] : by_class) {
    std::shuffle(rows.begin(), rows.end(), rng);
    auto n = static_cast<std::size_t>(std::lround(fraction * static_cast<double>(rows.size())));
    if (rows.size() >= 2) n = std::clamp<std::size_t>(n, 1, rows.size() - 1);
    held.insert(held.end(), rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(n));
    train.insert(train.end(), rows.begin() + static_cast<std::ptrdiff_t>(n), rows.end());
  }
  std::shuffle(train.begin(), train.end(), rng);
  std::shuffle(held.begin(), held.end(), rng);
  return {train, held};
}

}  // namespace torchlet::data
