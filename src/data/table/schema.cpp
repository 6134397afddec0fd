// TableSchema: fitting (medians, missing indicators, vocabularies), encoding rows into inputs,
// their names, the schema for people, and its JSON for checkpoints.
#include <algorithm>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "table_cells.h"
#include "torchlet/data/table.h"
#include "torchlet/error.h"

namespace torchlet::data {
namespace {

using nlohmann::json;

const char* const kOther = "(other)";
const char* const kMissing = "(missing)";
const char* const kUnknown = "(unknown)";

// The median of `values` (not empty), as NumPy's: the mean of the two middle ones when even.
double median(std::vector<double> values) {
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2) return upper;
  return (*std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid)) +
          upper) /
         2.0;
}

std::size_t header_index(const CsvRow& header, const std::string& name) {
  return static_cast<std::size_t>(std::find(header.fields.begin(), header.fields.end(), name) -
                                  header.fields.begin());
}

}  // namespace

const char* kind_name(ColumnKind kind) {
  switch (kind) {
    case ColumnKind::Numeric: return "numeric";
    case ColumnKind::Boolean: return "boolean";
    case ColumnKind::Categorical: return "categorical";
  }
  return "";
}

bool TableSchema::is_missing(const std::string& cell) const {
  const std::string word = lower(cell);
  return cell.empty() || std::any_of(na_values.begin(), na_values.end(),
                                     [&](const auto& na) { return lower(na) == word; });
}

int64_t TableSchema::embedding_size(int64_t rows) { return std::min<int64_t>(16, (rows + 1) / 2); }

void TableSchema::fit(const std::vector<CsvRow>& rows, const CsvRow& header,
                      int64_t embedding_threshold) {
  for (TableColumn& column : columns) {
    const std::size_t c = header_index(header, column.name);
    std::vector<double> values;
    std::map<std::string, int64_t> counts;
    int64_t missing = 0;
    for (const CsvRow& row : rows) {
      const std::string& cell = row.fields[c];
      double value = 0.0;
      if (is_missing(cell)) {
        ++missing;
      } else if (column.kind == ColumnKind::Categorical) {
        ++counts[cell];
      } else if (column.kind == ColumnKind::Boolean) {
        values.push_back(boolean_word(cell));
      } else if (parse_cell_number(cell, value)) {
        values.push_back(value);
      }
    }
    column.levels.clear();
    column.embedding_dim = 0;
    if (column.kind == ColumnKind::Categorical &&
        static_cast<int64_t>(counts.size()) > embedding_threshold) {
      column.levels.emplace_back(kUnknown);
      for (const auto& entry : counts) column.levels.push_back(entry.first);  // sorted
      if (missing > 0) column.levels.emplace_back(kMissing);
      column.embedding_dim = embedding_size(static_cast<int64_t>(column.levels.size()));
    } else if (column.kind == ColumnKind::Categorical) {
      std::vector<std::pair<int64_t, std::string>> by_count;
      for (const auto& [level, n] : counts) by_count.emplace_back(-n, level);
      std::sort(by_count.begin(), by_count.end());  // most frequent first, ties by name
      const auto kept = std::min<std::size_t>(by_count.size(), kMaxLevels);
      for (std::size_t k = 0; k < kept; ++k) column.levels.push_back(by_count[k].second);
      std::sort(column.levels.begin(), column.levels.end());
      if (by_count.size() > kept) column.levels.emplace_back(kOther);
      if (missing > 0) column.levels.emplace_back(kMissing);
    } else {
      column.median = values.empty() ? 0.0 : median(values);
      column.indicator = missing > 0;
    }
  }
}

Tensor TableSchema::encode(const CsvRow& header, const std::vector<CsvRow>& rows,
                           const std::string& path) const {
  std::vector<std::size_t> at;
  std::vector<std::string> absent;
  for (const TableColumn& column : columns) {
    at.push_back(header_index(header, column.name));
    if (at.back() == header.fields.size()) absent.push_back("'" + column.name + "'");
  }
  if (!absent.empty()) {
    std::string names;
    for (const std::string& name : absent) names += (names.empty() ? "" : ", ") + name;
    TORCHLET_CHECK(false, path, ":", header.line, ": Expected the model's feature column",
                   absent.size() > 1 ? "s " : " ", names, ", but the header has no such column");
  }
  const int64_t w = width(), dense = dense_width();
  std::vector<float> out(rows.size() * static_cast<std::size_t>(w), 0.0f);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const CsvRow& row = rows[r];
    TORCHLET_CHECK(row.fields.size() == header.fields.size(), path, ":", row.line, ": Expected ",
                   header.fields.size(), " fields as in the header, but got ", row.fields.size());
    float* x = out.data() + r * static_cast<std::size_t>(w);
    float* index = x + dense;  // the embedded columns' level indices
    for (std::size_t k = 0; k < columns.size(); ++k) {
      const TableColumn& column = columns[k];
      const std::string& cell = row.fields[at[k]];
      const bool missing = is_missing(cell);
      if (column.embedding_dim > 0) {
        const auto& levels = column.levels;
        const auto found = std::find(levels.begin(), levels.end(), missing ? kMissing : cell);
        *index++ = found == levels.end() ? 0.0f : static_cast<float>(found - levels.begin());
        continue;
      }
      if (column.kind == ColumnKind::Categorical) {
        const auto& levels = column.levels;
        auto found = std::find(levels.begin(), levels.end(), missing ? kMissing : cell);
        if (found == levels.end() && !missing)
          found = std::find(levels.begin(), levels.end(), kOther);
        if (found != levels.end()) x[found - levels.begin()] = 1.0f;
        x += levels.size();
        continue;
      }
      double value = column.median;
      bool read = !missing;
      if (read && column.kind == ColumnKind::Boolean) {
        const int word = boolean_word(cell);
        read = word >= 0;
        if (read) value = word;
      } else if (read) {
        TORCHLET_CHECK(parse_cell_number(cell, value), path, ":", row.line, ": column ", at[k] + 1,
                       " ('", column.name, "'): Expected a number, but got '", cell, "'");
      }
      *x++ = static_cast<float>(value);
      if (column.indicator) *x++ = read ? 0.0f : 1.0f;
    }
  }
  return tensor(out, {static_cast<int64_t>(rows.size()), w});
}

std::vector<std::string> TableSchema::input_names() const {
  std::vector<std::string> names;
  for (const TableColumn& column : columns) {
    if (column.embedding_dim > 0) continue;
    if (column.kind == ColumnKind::Categorical) {
      for (const std::string& level : column.levels) names.push_back(column.name + "=" + level);
      continue;
    }
    names.push_back(column.name);
    if (column.indicator) names.push_back(column.name + " (missing)");
  }
  for (const TableColumn* column : embedded()) names.push_back(column->name + " (embedding index)");
  return names;
}

int64_t TableSchema::width() const { return static_cast<int64_t>(input_names().size()); }

std::vector<const TableColumn*> TableSchema::embedded() const {
  std::vector<const TableColumn*> out;
  for (const TableColumn& column : columns)
    if (column.embedding_dim > 0) out.push_back(&column);
  return out;
}

int64_t TableSchema::dense_width() const {
  return width() - static_cast<int64_t>(embedded().size());
}

std::string TableSchema::describe() const {
  std::ostringstream out;
  out << std::left;
  for (const TableColumn& column : columns) {
    out << "  " << std::setw(20) << column.name << " " << std::setw(11) << kind_name(column.kind);
    if (column.embedding_dim > 0)
      out << " " << column.levels.size() << " levels -> embedding of " << column.embedding_dim;
    else if (column.kind == ColumnKind::Categorical)
      out << " " << column.levels.size() << " one-hot levels";
    else
      out << " missing -> median " << column.median << (column.indicator ? " + indicator" : "");
    out << "\n";
  }
  for (const std::string& name : dropped) out << "  " << std::setw(20) << name << " dropped\n";
  out << "  " << std::setw(20) << label << " label (" << task;
  if (task == "classification") out << ", " << classes.size() << " classes";
  out << ")\n";
  return out.str();
}

std::string TableSchema::to_json() const {
  json cols = json::array();
  for (const TableColumn& c : columns)
    cols.push_back({{"name", c.name},
                    {"kind", kind_name(c.kind)},
                    {"median", c.median},
                    {"indicator", c.indicator},
                    {"levels", c.levels},
                    {"embedding_dim", c.embedding_dim}});
  return json{{"columns", cols},
              {"dropped", dropped},
              {"na_values", na_values},
              {"label", label},
              {"task", task},
              {"classes", classes},
              {"target_mean", target_mean},
              {"target_scale", target_scale}}
      .dump();
}

TableSchema TableSchema::from_json(const std::string& text, const std::string& path) {
  const json j = json::parse(text, nullptr, false);
  TableSchema s;
  try {
    TORCHLET_CHECK(j.is_object(), "not an object");
    for (const json& c : j.at("columns")) {
      TableColumn column{.name = c.at("name").get<std::string>()};
      const auto kind = c.at("kind").get<std::string>();
      TORCHLET_CHECK(kind == "numeric" || kind == "boolean" || kind == "categorical", "kind '",
                     kind, "'");
      column.kind = kind == "numeric"   ? ColumnKind::Numeric
                    : kind == "boolean" ? ColumnKind::Boolean
                                        : ColumnKind::Categorical;
      column.median = c.at("median").get<double>();
      column.indicator = c.at("indicator").get<bool>();
      column.levels = c.at("levels").get<std::vector<std::string>>();
      column.embedding_dim = c.value("embedding_dim", int64_t{0});  // absent before embeddings
      TORCHLET_CHECK(
          column.embedding_dim == 0 || (column.kind == ColumnKind::Categorical &&
                                        column.embedding_dim > 0 && !column.levels.empty()),
          "embedding_dim ", column.embedding_dim, " of '", column.name, "'");
      s.columns.push_back(std::move(column));
    }
    s.dropped = j.at("dropped").get<std::vector<std::string>>();
    s.na_values = j.at("na_values").get<std::vector<std::string>>();
    s.label = j.at("label").get<std::string>();
    s.task = j.at("task").get<std::string>();
    s.classes = j.at("classes").get<std::vector<std::string>>();
    s.target_mean = j.at("target_mean").get<double>();
    s.target_scale = j.at("target_scale").get<double>();
    TORCHLET_CHECK(s.task == "classification" || s.task == "regression", "task '", s.task, "'");
  } catch (const std::exception& e) {
    TORCHLET_CHECK(false, path, ": Expected metadata 'table' as a table schema, but got '",
                   text.substr(0, 80), text.size() > 80 ? "...'" : "'", " (", e.what(), ")");
  }
  return s;
}

}  // namespace torchlet::data
