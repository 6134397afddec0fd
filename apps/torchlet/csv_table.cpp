// read_csv_table: the CSV records of a file, with the line each starts on; parse_csv_number
// and csv_field, the number reading and quoting that `torchlet predict` shares with read_csv.
#include "csv_table.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

#include "torchlet/error.h"

namespace torchlet::cli {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string read_file(const std::string& path) {
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                             &std::fclose);
  TORCHLET_CHECK(file != nullptr, path, ": Cannot open the file: ", std::strerror(errno));
  std::string content;
  char buffer[1 << 16];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) content.append(buffer, got);
  TORCHLET_CHECK(!std::ferror(file.get()), path, ": Cannot read the file: ", std::strerror(errno));
  return content;
}

// One field starting at text[i] (after blanks); advances i past it.
std::string read_field(const std::string& path, std::string_view text, std::size_t& i,
                       int64_t& line, std::size_t column, bool& quoted) {
  const auto at_end = [&] {
    return i == text.size() || text[i] == ',' || text[i] == '\n' || text[i] == '\r';
  };
  while (i < text.size() && is_blank(text[i])) ++i;
  std::string field;
  if (i == text.size() || text[i] != '"') {
    const std::size_t start = i;
    while (!at_end()) ++i;
    std::size_t end = i;
    while (end > start && is_blank(text[end - 1])) --end;
    return std::string(text.substr(start, end - start));
  }
  quoted = true;
  const int64_t quote_line = line;
  for (++i;; ++i) {
    TORCHLET_CHECK(i < text.size(), path, ":", quote_line, ": column ", column,
                   ": Expected a closing quote, but the file ends inside the quoted field");
    if (text[i] == '"') {
      if (i + 1 == text.size() || text[i + 1] != '"') break;
      ++i;  // "" stands for one quote
    }
    if (text[i] == '\n') ++line;
    field += text[i];
  }
  for (++i; i < text.size() && is_blank(text[i]);) ++i;
  TORCHLET_CHECK(at_end(), path, ":", line, ": column ", column,
                 ": Expected a ',' or the end of the line after a closing quote, but got '",
                 text[i], "'");
  return field;
}

}  // namespace

CsvTable read_csv_table(const std::string& path) {
  const std::string content = read_file(path);
  std::string_view text = content;
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<CsvRow> records;
  int64_t line = 1;
  for (std::size_t i = 0; i < text.size();) {
    CsvRow record{line, {}};
    bool quoted = false;
    for (bool more = true; more;) {
      record.fields.push_back(read_field(path, text, i, line, record.fields.size() + 1, quoted));
      more = i < text.size() && text[i] == ',';
      if (more) ++i;
    }
    if (i < text.size() && text[i] == '\r') ++i;
    if (i < text.size() && text[i] == '\n') ++i;
    ++line;
    const bool blank = record.fields.size() == 1 && record.fields[0].empty() && !quoted;
    if (!blank) records.push_back(std::move(record));
  }
  TORCHLET_CHECK(!records.empty(), path,
                 ": Expected a header row and at least one data row, but the file is empty");
  TORCHLET_CHECK(records.size() > 1, path,
                 ": Expected a header row and at least one data row, but got only the header");
  CsvTable table{std::move(records.front()), {}};
  table.rows.assign(std::make_move_iterator(records.begin() + 1),
                    std::make_move_iterator(records.end()));
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

}  // namespace torchlet::cli
