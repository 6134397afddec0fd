// read_csv_table, read_csv and write_csv: RFC 4180 fields (quotes, doubled quotes, commas and line
// breaks inside quotes) with the forgiving parts people's files need (a UTF-8 BOM, CRLF, blank
// lines, whitespace around fields). Every error names the file, the line an editor shows and, for a
// field, its column number and header name.
#include "torchlet/data/csv.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "torchlet/error.h"
#include "torchlet/io/file.h"
#include "torchlet/io/read.h"
#include "torchlet/io/text.h"

namespace torchlet::data {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  return text;
}

// Splits `text` into records, skipping blank lines. Unquoted fields are trimmed (a quote
// inside one is kept as text, as Python's csv does); a quoted field keeps its inner text
// verbatim, and only whitespace may surround its quotes. Each record is handed to `on_record`
// as soon as it is read, so that a reader can keep only what it needs of it.
void parse_records(const std::string& path, std::string_view text,
                   const std::function<void(CsvRow&)>& on_record) {
  int64_t line = 1;
  size_t i = 0;
  const auto at_field_end = [&] {
    return i == text.size() || text[i] == ',' || text[i] == '\n' || text[i] == '\r';
  };
  while (i < text.size()) {
    CsvRow record{line, {}};
    bool quoted = false;
    for (bool more = true; more;) {
      while (i < text.size() && is_blank(text[i])) ++i;
      std::string field;
      if (i < text.size() && text[i] == '"') {
        quoted = true;
        const int64_t quote_line = line;
        for (++i;; ++i) {
          TORCHLET_CHECK(i < text.size(), path, ":", quote_line, ": column ",
                         record.fields.size() + 1,
                         ": Expected a closing quote, but the file ends inside the quoted field");
          if (text[i] == '"') {
            if (i + 1 == text.size() || text[i + 1] != '"') break;
            ++i;  // "" stands for one quote
          }
          if (text[i] == '\n') ++line;
          field += text[i];
        }
        for (++i; i < text.size() && is_blank(text[i]);) ++i;
        TORCHLET_CHECK(at_field_end(), path, ":", line, ": column ", record.fields.size() + 1,
                       ": Expected a ',' or the end of the line after a closing quote, but got '",
                       text[i], "'");
      } else {
        const size_t start = i;
        while (!at_field_end()) ++i;
        field = trim(text.substr(start, i - start));
      }
      record.fields.push_back(std::move(field));
      more = i < text.size() && text[i] == ',';
      if (more) ++i;
    }
    if (i < text.size() && text[i] == '\r') ++i;
    if (i < text.size() && text[i] == '\n') ++i;
    ++line;
    const bool blank = record.fields.size() == 1 && record.fields[0].empty() && !quoted;
    if (!blank) on_record(record);
  }
}

// The file's text (UTF-8, checked) and where its records start (after a BOM).
struct CsvText {
  std::string content;
  std::string_view records;
};

CsvText read_text(const std::string& path) {
  CsvText text{io::read_file(path), {}};
  io::check_utf8(text.content, path);  // names and labels reach reports and JSON
  text.records = text.content;
  if (text.records.starts_with("\xEF\xBB\xBF")) text.records.remove_prefix(3);
  return text;
}

void check_not_empty(const std::string& path, bool header, bool rows) {
  TORCHLET_CHECK(header, path,
                 ": Expected a header row and at least one data row, but the file is empty");
  TORCHLET_CHECK(rows, path,
                 ": Expected a header row and at least one data row, but got only the header");
}

// "column 2 ('sepal width')" for 0-based column c.
std::string column_label(const std::vector<std::string>& header, size_t c) {
  return "column " + std::to_string(c + 1) + " ('" + header[c] + "')";
}

}  // namespace

size_t find_label_column(const std::string& path, const std::vector<std::string>& header,
                         const std::string& label) {
  if (label.empty()) return header.size() - 1;
  const auto named = std::find(header.begin(), header.end(), label);
  if (named != header.end()) return static_cast<size_t>(named - header.begin());
  size_t index = header.size();
  const auto [end, error] = std::from_chars(label.data(), label.data() + label.size(), index);
  if (error != std::errc() || end != label.data() + label.size()) index = header.size();
  std::string names;
  for (size_t c = 0; c < header.size(); ++c) names += (c ? ", '" : "'") + header[c] + "'";
  TORCHLET_CHECK(index < header.size(), path, ": Expected the label column to be one of ", names,
                 " or a 0-based index below ", header.size(), ", but got '", label, "'");
  return index;
}

namespace {

bool parse_integer(const std::string& text, int64_t& value) {
  const char* first = text.data() + (text.size() > 1 && text[0] == '+');
  const char* last = text.data() + text.size();
  const auto [end, error] = std::from_chars(first, last, value);
  return error == std::errc() && end == last;
}

}  // namespace

// Class indices for `labels` and the class names, in LabelEncoder's sorted order.
std::vector<int64_t> encode_labels(const std::vector<std::string>& labels,
                                   std::vector<std::string>& class_names) {
  std::vector<int64_t> numbers(labels.size());
  bool all_integers = true;
  for (size_t r = 0; r < labels.size() && all_integers; ++r) {
    all_integers = parse_integer(labels[r], numbers[r]);
  }
  std::vector<int64_t> indices(labels.size());
  if (all_integers) {
    std::map<int64_t, int64_t> classes;
    for (int64_t number : numbers) classes.emplace(number, 0);
    for (auto& [number, index] : classes) {
      index = static_cast<int64_t>(class_names.size());
      class_names.push_back(std::to_string(number));
    }
    for (size_t r = 0; r < labels.size(); ++r) indices[r] = classes.at(numbers[r]);
  } else {
    std::map<std::string, int64_t> classes;
    for (const std::string& label : labels) classes.emplace(label, 0);
    for (auto& [name, index] : classes) {
      index = static_cast<int64_t>(class_names.size());
      class_names.push_back(name);
    }
    for (size_t r = 0; r < labels.size(); ++r) indices[r] = classes.at(labels[r]);
  }
  return indices;
}

CsvTable read_csv_table(const std::string& path) {
  const CsvText text = read_text(path);
  CsvTable table;
  bool header = false;
  parse_records(path, text.records, [&](CsvRow& record) {
    if (header)
      table.rows.push_back(std::move(record));
    else
      table.header = std::move(record), header = true;
  });
  check_not_empty(path, header, !table.rows.empty());
  return table;
}

float parse_csv_number(const std::string& path, int64_t line, const std::string& column,
                       const std::string& field) {
  TORCHLET_CHECK(!field.empty(), path, ":", line, ": ", column,
                 ": Expected a number, but got an empty field");
  const char* first = field.data() + (field[0] == '+' && field.size() > 1 && field[1] != '-');
  const char* last = field.data() + field.size();
  double value = 0.0;
  const auto [end, error] = std::from_chars(first, last, value);
  TORCHLET_CHECK(end == last && (error == std::errc() || error == std::errc::result_out_of_range),
                 path, ":", line, ": ", column, ": Expected a number, but got '", field, "'");
  // from_chars leaves value alone when out of range; strtod gives the infinity or the tiny
  // number, so only overflow is refused below.
  if (error == std::errc::result_out_of_range) value = std::strtod(field.c_str(), nullptr);
  const auto rounded = static_cast<float>(value);
  TORCHLET_CHECK(std::isfinite(rounded), path, ":", line, ": ", column,
                 ": Expected a finite number (float32), but got '", field, "'");
  return rounded;
}

std::string csv_field(const std::string& text) {
  const bool quote = text.empty() || text.find_first_of(",\"\r\n") != std::string::npos ||
                     is_blank(text.front()) || is_blank(text.back());
  if (!quote) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The header's checks: at least two columns, each named once, and the label column.
size_t check_header(const std::string& path, const CsvRow& header, const std::string& label) {
  const std::vector<std::string>& names = header.fields;
  TORCHLET_CHECK(names.size() >= 2, path, ":", header.line,
                 ": Expected at least two columns (features and a label), but got only '", names[0],
                 "'");
  for (size_t c = 0; c < names.size(); ++c) {
    TORCHLET_CHECK(!names[c].empty(), path, ":", header.line, ": column ", c + 1,
                   ": Expected a column name, but got an empty field");
    const auto first = std::find(names.begin(), names.end(), names[c]);
    TORCHLET_CHECK(first == names.begin() + static_cast<std::ptrdiff_t>(c), path, ":", header.line,
                   ": ", column_label(names, c), ": Expected unique column names, but column ",
                   first - names.begin() + 1, " has the same name");
  }
  return find_label_column(path, names, label);
}

Dataset read_csv(const std::string& path, const std::string& label) {
  // Rows are converted as they are read: the features straight to floats, each label to the
  // index of its text among the distinct ones, so that memory is the file, the floats and
  // one index per row (not every field as a string).
  CsvRow header;
  bool have_header = false, header_checked = false;
  size_t label_column = 0;
  std::vector<float> features;
  std::vector<int64_t> label_ids;  // per row: the label's index in first-seen order
  std::map<std::string, int64_t> distinct;
  {
    const CsvText text = read_text(path);
    const auto lines = std::count(text.records.begin(), text.records.end(), '\n');
    parse_records(path, text.records, [&](CsvRow& record) {
      if (!have_header) {
        header = std::move(record), have_header = true;
        return;
      }
      const std::vector<std::string>& names = header.fields;
      if (!header_checked) {
        label_column = check_header(path, header, label);
        header_checked = true;
        features.reserve(static_cast<size_t>(lines) * (names.size() - 1));
        label_ids.reserve(static_cast<size_t>(lines));
      }
      TORCHLET_CHECK(record.fields.size() == names.size(), path, ":", record.line, ": Expected ",
                     names.size(), " fields as in the header, but got ", record.fields.size());
      for (size_t c = 0; c < names.size(); ++c) {
        if (c == label_column) continue;
        features.push_back(
            parse_csv_number(path, record.line, column_label(names, c), record.fields[c]));
      }
      TORCHLET_CHECK(!record.fields[label_column].empty(), path, ":", record.line, ": ",
                     column_label(names, label_column),
                     ": Expected a label, but got an empty field");
      const auto id = static_cast<int64_t>(distinct.size());
      label_ids.push_back(
          distinct.emplace(std::move(record.fields[label_column]), id).first->second);
    });
  }
  check_not_empty(path, have_header, !label_ids.empty());
  const std::vector<std::string>& names = header.fields;
  Dataset data;
  for (size_t c = 0; c < names.size(); ++c) {
    if (c != label_column) data.feature_names.push_back(names[c]);
  }
  std::vector<std::string> labels(distinct.size());
  for (auto& [text, id] : distinct) labels[static_cast<size_t>(id)] = text;
  const std::vector<int64_t> class_of = encode_labels(labels, data.class_names);
  TORCHLET_CHECK(data.class_names.size() >= 2, path, ": Expected at least two classes in column '",
                 names[label_column], "', but got only '", data.class_names[0], "'");
  for (int64_t& id : label_ids) id = class_of[static_cast<size_t>(id)];
  const auto n = static_cast<int64_t>(label_ids.size());
  data.X = tensor(features, {n, static_cast<int64_t>(data.feature_names.size())});
  features = {};
  data.y = tensor(label_ids, {n});
  return data;
}

void write_csv(const std::string& path, const Dataset& data) {
  TORCHLET_CHECK(data.X.dim() == 2 && data.X.dtype() == kFloat32,
                 "Expected X to be a float32 [rows, features] tensor, but got shape ",
                 data.X.shape(), " of dtype ", data.X.dtype());
  TORCHLET_CHECK(data.y.dim() == 1 && data.y.dtype() == kInt64 && data.y.size(0) == data.X.size(0),
                 "Expected y to be an int64 [", data.X.size(0), "] tensor, but got shape ",
                 data.y.shape(), " of dtype ", data.y.dtype());
  const auto cols = static_cast<size_t>(data.X.size(1));
  TORCHLET_CHECK(data.feature_names.size() == cols, "Expected ", cols,
                 " feature names (one per column of X), but got ", data.feature_names.size());
  for (size_t k = 0; k < data.class_names.size(); ++k) {
    TORCHLET_CHECK(!data.class_names[k].empty(), "Expected non-empty class names, but class ", k,
                   " has an empty one");
  }
  // The label column is "label", or "label.1", "label.2"... if a feature already has the name.
  std::string label_name = "label";
  for (int k = 1; std::find(data.feature_names.begin(), data.feature_names.end(), label_name) !=
                  data.feature_names.end();
       ++k) {
    label_name = "label." + std::to_string(k);
  }
  std::string out;
  for (const std::string& name : data.feature_names) out += csv_field(name) + ",";
  out += csv_field(label_name) + "\n";

  const std::vector<float> X = data.X.to(kCPU).to_vector<float>();
  const std::vector<int64_t> y = data.y.to(kCPU).to_vector<int64_t>();
  for (size_t r = 0; r < y.size(); ++r) {
    for (size_t c = 0; c < cols; ++c) {
      const float value = X[r * cols + c];
      TORCHLET_CHECK(std::isfinite(value), "Expected finite features, but row ", r, ", column ", c,
                     " ('", data.feature_names[c], "') is ", value);
      char buffer[32];
      // The shortest text that reads back as the same float32.
      const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
      out.append(buffer, result.ptr);
      out += ',';
    }
    TORCHLET_CHECK(y[r] >= 0 && static_cast<size_t>(y[r]) < data.class_names.size(),
                   "Expected labels in [0, ", data.class_names.size(), ") (indices into ",
                   "class_names), but row ", r, " has ", y[r]);
    out += csv_field(data.class_names[static_cast<size_t>(y[r])]) + "\n";
  }
  io::write_file_atomic(path, out);
}

}  // namespace torchlet::data
