// parse_cell_number, boolean_word and lower (see table_cells.h).
#include <algorithm>
#include <charconv>
#include <cmath>

#include "table_cells.h"

namespace torchlet::data {

bool parse_cell_number(const std::string& cell, double& value) {
  if (cell.empty()) return false;
  const char* first = cell.data() + (cell[0] == '+' && cell.size() > 1 && cell[1] != '-');
  const char* last = cell.data() + cell.size();
  const auto [end, error] = std::from_chars(first, last, value);
  return end == last && error == std::errc() && std::isfinite(value);
}

std::string lower(const std::string& text) {
  std::string out = text;
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

int boolean_word(const std::string& cell) {
  const std::string word = lower(cell);
  if (word == "true" || word == "yes" || word == "t" || word == "y") return 1;
  if (word == "false" || word == "no" || word == "f" || word == "n") return 0;
  return -1;
}

}  // namespace torchlet::data
