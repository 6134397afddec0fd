// The words of a model name, each marked once a parser has placed it, so whatever is left at
// the end is reported as "not recognised" (internal to the name parsers).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "torchlet/hw/names.h"

namespace torchlet::hw {

struct NameToken {
  std::string text;  // as written
  std::string low;   // lower case, for matching
  bool used = false;
};

class NameTokens {
 public:
  // Splits `name` on spaces, commas, slashes and parentheses after dropping (R), (TM), (C)
  // and the UTF-8 (R)/TM signs. Words containing '-' are split there too unless listed in
  // `keep_hyphenated` (lower case, e.g. "max-q").
  NameTokens(std::string_view name, const std::vector<std::string>& keep_hyphenated);

  std::size_t size() const { return tokens_.size(); }
  NameToken& operator[](std::size_t i) { return tokens_[i]; }
  const NameToken& operator[](std::size_t i) const { return tokens_[i]; }

  // Index of the first unused token equal to `low` (lower case) at or after `from`, or -1.
  int find(std::string_view low, std::size_t from = 0) const;
  // Marks the first unused token equal to `low` used; false when there is none.
  bool take(std::string_view low);
  // The unused token right after index i (skipping used ones), or -1.
  int next_unused(int i) const;
  // Texts of the tokens no parser placed, in order.
  std::vector<std::string> unused() const;

 private:
  std::vector<NameToken> tokens_;
};

// "l40s" -> {"l", "40", "s"}, "11300h" -> {"", "11300", "h"}, "7800x3d" -> {"", "7800", "x3d"}.
struct AlphaNum {
  std::string prefix, digits, suffix;
};
AlphaNum split_alnum(std::string_view word);

// Appends a part once (names such as "Ti Ti" must not list a suffix twice).
void add_part(std::vector<NamePart>& parts, std::string text, std::string meaning);

}  // namespace torchlet::hw
