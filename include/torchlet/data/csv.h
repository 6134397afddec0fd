// Reading and writing small tabular data sets as CSV: a header row, numeric feature
// columns, and one label column holding class names or integers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "torchlet/data/dataset.h"

namespace torchlet::data {

// One CSV record: its fields, and the 1-based line it starts on, as an editor shows it.
struct CsvRow {
  int64_t line = 0;
  std::vector<std::string> fields;
};

// A CSV file as text: the header and the data rows, not yet checked against each other.
struct CsvTable {
  CsvRow header;
  std::vector<CsvRow> rows;
};

// Reads `path` as CSV: RFC 4180 fields (quotes, doubled quotes, commas and line breaks inside
// quotes) with the forgiving parts people's files need (a UTF-8 BOM, CRLF, blank lines skipped,
// spaces and tabs around unquoted fields trimmed). Throws torchlet::Error naming the file (and
// line and column) when it cannot be read, has no data row or has an unclosed quote. For files
// without a label column, such as `torchlet predict`'s; read_csv is built on it.
CsvTable read_csv_table(const std::string& path);

// `field` as a finite float32 (parsed as a double and rounded, as NumPy's astype does); errors
// name the file, line and `column` (e.g. "column 2 ('sepal width')").
float parse_csv_number(const std::string& path, int64_t line, const std::string& column,
                       const std::string& field);

// `text` as one CSV field: quoted when read_csv_table would otherwise split or trim it.
std::string csv_field(const std::string& text);

// The 0-based column `label` names in `header`, by name or 0-based index (empty: the last);
// throws torchlet::Error naming `path` and the columns there are otherwise.
size_t find_label_column(const std::string& path, const std::vector<std::string>& header,
                         const std::string& label);

// Class indices for `labels`, and their names appended to class_names, in scikit-learn's
// LabelEncoder order: numerically when every label is an integer, else by name.
std::vector<int64_t> encode_labels(const std::vector<std::string>& labels,
                                   std::vector<std::string>& class_names);

// Reads `path`. `label` names the label column by header name or 0-based index; empty means
// the last column. Labels become class indices 0..k-1 in sorted order (numerically when all
// are integers, else by name, as scikit-learn's LabelEncoder), and class_names keeps their
// text. Throws torchlet::Error naming the file, line and column for: a missing or empty
// file, a ragged row, a non-numeric feature, an empty label, an unknown label column, fewer
// than two classes.
Dataset read_csv(const std::string& path, const std::string& label = "");

// Writes data as CSV (feature_names then "label"; labels written as class names), atomically.
void write_csv(const std::string& path, const Dataset& data);

}  // namespace torchlet::data
