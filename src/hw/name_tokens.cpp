// NameTokens: how model names are cut into words for the CPU and GPU name parsers.
#include "hw/name_tokens.h"

#include <algorithm>
#include <cctype>

#include "hw/text.h"

namespace torchlet::hw {

NameTokens::NameTokens(std::string_view name, const std::vector<std::string>& keep_hyphenated) {
  std::string s(name);
  for (const char* mark : {"(R)", "(TM)", "(C)", "\xC2\xAE", "\xE2\x84\xA2"})
    s = text::replace_all_ci(s, mark, " ");
  for (const std::string& word : text::split(s, " \t\n,/()[]")) {
    const std::string low = text::lower(word);
    const bool keep =
        std::find(keep_hyphenated.begin(), keep_hyphenated.end(), low) != keep_hyphenated.end();
    for (const std::string& piece : keep ? std::vector<std::string>{word} : text::split(word, "-"))
      tokens_.push_back({piece, text::lower(piece), false});
  }
}

int NameTokens::find(std::string_view low, std::size_t from) const {
  for (std::size_t i = from; i < tokens_.size(); ++i)
    if (!tokens_[i].used && tokens_[i].low == low) return static_cast<int>(i);
  return -1;
}

bool NameTokens::take(std::string_view low) {
  const int i = find(low);
  if (i < 0) return false;
  tokens_[static_cast<std::size_t>(i)].used = true;
  return true;
}

int NameTokens::next_unused(int i) const {
  for (std::size_t j = static_cast<std::size_t>(i) + 1; j < tokens_.size(); ++j)
    if (!tokens_[j].used) return static_cast<int>(j);
  return -1;
}

std::vector<std::string> NameTokens::unused() const {
  std::vector<std::string> out;
  for (const NameToken& t : tokens_)
    if (!t.used) out.push_back(t.text);
  return out;
}

AlphaNum split_alnum(std::string_view word) {
  AlphaNum out;
  std::size_t i = 0;
  while (i < word.size() && std::isalpha(static_cast<unsigned char>(word[i]))) ++i;
  out.prefix = word.substr(0, i);
  const std::size_t digits_start = i;
  while (i < word.size() && std::isdigit(static_cast<unsigned char>(word[i]))) ++i;
  out.digits = word.substr(digits_start, i - digits_start);
  out.suffix = word.substr(i);
  return out;
}

void add_part(std::vector<NamePart>& parts, std::string text, std::string meaning) {
  for (const NamePart& p : parts)
    if (text::iequals(p.text, text)) return;
  parts.push_back({std::move(text), std::move(meaning)});
}

}  // namespace torchlet::hw
