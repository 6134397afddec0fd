// Real tables for training: a CSV file with numeric, boolean and text columns and missing
// cells, read with its column types inferred, and the preprocessing that turns its rows into
// the float matrix a model takes. The fitted TableSchema holds everything a prediction needs
// (types, medians, vocabularies, classes, target scaling) and round-trips through JSON into a
// checkpoint, so that new rows are encoded exactly as the training rows were:
//
//   data::Table t = data::read_table("shop.csv", {.label = "price"});  // regression inferred
//   t.schema.fit(t.rows);                       // medians and vocabularies of these rows
//   Tensor X = t.schema.encode(t.header, t.rows, "shop.csv");
//
// Encoding, per column: a numeric one gives its value (a missing cell: the training median)
// and, when the training rows had missing cells, a 0/1 missing-indicator column after it; a
// boolean one (true/false, yes/no, t/f, y/n in any case) gives 0/1 the same way; a categorical
// one with at most `embedding_threshold` levels in training gives one-hot columns, one per level
// seen (the kMaxLevels most frequent; rarer ones share "(other)") and "(missing)" when training
// had missing cells; a category never seen in training is the unknown slot: all of the
// column's one-hot inputs 0, never an error. A categorical column with more levels is one input
// after all the others: the index of its level in a learned embedding (train/table_model.h),
// whose row 0, "(unknown)", takes every category never seen in training.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "torchlet/data/csv.h"
#include "torchlet/tensor.h"

namespace torchlet::data {

enum class ColumnKind { Numeric, Boolean, Categorical };

// "numeric", "boolean" or "categorical".
const char* kind_name(ColumnKind kind);

struct TableColumn {
  std::string name;
  ColumnKind kind = ColumnKind::Numeric;
  double median = 0.0;     // numeric and boolean: the value of a missing cell
  bool indicator = false;  // numeric and boolean: a "<name> (missing)" input follows
  // categorical: the one-hot levels in input order ("(other)" and "(missing)" included), or
  // the embedding's rows ("(unknown)" first, "(missing)" last when training had missing cells).
  std::vector<std::string> levels{};
  // categorical: 0 for one-hot, else the size of the embedding of its levels.
  int64_t embedding_dim = 0;
};

struct TableSchema {
  // The most one-hot levels of one column, "(other)" and "(missing)" aside.
  static constexpr int64_t kMaxLevels = 32;
  // A categorical column with more levels than this in training gets an embedding.
  static constexpr int64_t kEmbeddingThreshold = 32;
  // The size of the embedding of `rows` levels: min(16, (rows + 1) / 2).
  static int64_t embedding_size(int64_t rows);

  std::vector<TableColumn> columns;    // the feature columns, in the file's order
  std::vector<std::string> dropped;    // columns left out (--drop)
  std::vector<std::string> na_values;  // cells read as missing (compared without case)
  std::string label;                   // the label column's name
  std::string task;                    // "classification" or "regression"
  std::vector<std::string> classes;    // classification: the class names
  // regression: the training targets' mean and standard deviation (the model predicts
  // (y - target_mean) / target_scale).
  double target_mean = 0.0, target_scale = 1.0;

  // Fits the medians, indicators and vocabularies to `rows` (of the file the schema was read
  // from: same header); a categorical column with more than `embedding_threshold` levels gets
  // an embedding.
  void fit(const std::vector<CsvRow>& rows, const CsvRow& header,
           int64_t embedding_threshold = kEmbeddingThreshold);
  // The inputs of `rows` [rows, width()] float32. Columns are found by name in `header` (any
  // order; columns the schema does not use are ignored). Throws torchlet::Error naming `path`,
  // the line and the column for a missing feature column or a ragged row; a numeric cell that
  // is not a number names its column and line too.
  Tensor encode(const CsvRow& header, const std::vector<CsvRow>& rows,
                const std::string& path) const;
  // The names of the inputs: "age", "age (missing)", "port=Southampton", ..., then one
  // "city (embedding index)" per embedded column.
  std::vector<std::string> input_names() const;
  int64_t width() const;
  // The embedded columns, in input order (their indices are the last inputs).
  std::vector<const TableColumn*> embedded() const;
  // The inputs before the embedding indices: width() - embedded().size().
  int64_t dense_width() const;
  // The schema as lines for people: one per column, its type and encoding.
  std::string describe() const;
  bool is_missing(const std::string& cell) const;

  std::string to_json() const;
  // Throws torchlet::Error naming `path` for anything that is not a schema to_json wrote.
  static TableSchema from_json(const std::string& text, const std::string& path);
};

struct TableOptions {
  std::string label{};        // by name or 0-based index; empty: the last column
  std::string task = "auto";  // auto, classification or regression
  std::vector<std::string> categorical{}, numeric{}, drop{};  // type overrides (column names)
  std::vector<std::string> na_values{"", "NA", "NaN", "null", "?"};
  bool strict = false;  // refuse a row with an empty label instead of skipping it
};

// A training file read and typed, its schema not yet fitted.
struct Table {
  TableSchema schema;
  CsvRow header;
  std::vector<CsvRow> rows;    // the rows with a label
  std::vector<double> target;  // per row: the class index, or the regression value
  int64_t skipped = 0;         // rows skipped for an empty label
  int64_t first_skipped_line = 0;
  bool task_inferred = false;  // regression or classification chosen from the label's values
};

// Reads and types `path`. A column is numeric when every present cell is a number, boolean
// when every present cell is a true/false word, else categorical; an integer column with few
// distinct values stays numeric. With task auto, a numeric label is a regression target when
// it has more than 20 distinct values or one that is not an integer. Throws torchlet::Error
// with one line naming the file, line and column for: an unknown column in an option, a
// column entirely empty, a label with one class, an empty label with strict, a numeric label
// cell that is not a number, plus read_csv_table's errors.
Table read_table(const std::string& path, const TableOptions& options);

// Whether the file at `path` needs read_table rather than read_csv: a feature cell that is not a
// number (text, or a missing value) or a regression label.
bool needs_table(const CsvTable& table, const std::string& path, const std::string& label);

// Row indices {train, held out} with about `fraction` of each class held out (at least one
// row of a class with two or more), in a shuffled order fixed by `seed`.
std::pair<std::vector<int64_t>, std::vector<int64_t>> stratified_split(
    const std::vector<int64_t>& classes, double fraction, uint64_t seed);

}  // namespace torchlet::data
