// The cell readers the table code shares: a number, a true/false word, text without case.
#pragma once

#include <string>

namespace torchlet::data {

// `cell` as a finite number (as parse_csv_number reads it); false when it is not one.
bool parse_cell_number(const std::string& cell, double& value);
// 1 for true, yes, t, y; 0 for false, no, f, n (any case); -1 for anything else.
int boolean_word(const std::string& cell);
std::string lower(const std::string& text);

}  // namespace torchlet::data
