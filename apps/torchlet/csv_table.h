// A CSV file as a header and rows of text fields, for `torchlet predict`, whose files need no
// label column (data::read_csv requires one). The dialect is data::read_csv's: RFC 4180 quotes,
// a UTF-8 BOM, CRLF, blank lines skipped, unquoted fields trimmed of spaces and tabs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torchlet::cli {

struct CsvRow {
  int64_t line = 0;  // the 1-based line the row starts on, as an editor shows it
  std::vector<std::string> fields;
};

struct CsvTable {
  CsvRow header;
  std::vector<CsvRow> rows;
};

// Throws torchlet::Error naming the file (and line) when it cannot be read, is empty or has
// an unclosed quote. Rows are not checked against the header here.
CsvTable read_csv_table(const std::string& path);

// `field` as a finite float32, read as read_csv reads features; errors name the file, line
// and `column` (e.g. "column 2 ('sepal width')").
float parse_csv_number(const std::string& path, int64_t line, const std::string& column,
                       const std::string& field);

// `text` as one CSV field: quoted when it holds a comma, a quote, a line break or edge spaces.
std::string csv_field(const std::string& text);

}  // namespace torchlet::cli
