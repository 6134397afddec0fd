// Reading and writing small tabular data sets as CSV: a header row, numeric feature
// columns, and one label column holding class names or integers.
#pragma once

#include <string>

#include "torchlet/data/dataset.h"

namespace torchlet::data {

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
