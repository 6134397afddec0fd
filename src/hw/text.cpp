// String and file helpers for src/hw: case-insensitive matching, splitting, number parsing,
// whole-file reads and Linux cpulists.
#include "hw/text.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace torchlet::hw::text {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string capitalize(std::string_view s) {
  std::string out(s);
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

std::string trim(std::string_view s) {
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && lower(a) == lower(b);
}

bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string> split(std::string_view s, std::string_view separators) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t end = s.find_first_of(separators, start);
    const std::size_t stop = end == std::string_view::npos ? s.size() : end;
    if (stop > start) parts.emplace_back(s.substr(start, stop - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += separator;
    out += parts[i];
  }
  return out;
}

std::string replace_all_ci(std::string_view s, std::string_view from, std::string_view to) {
  if (from.empty()) return std::string(s);
  const std::string low = lower(s);
  const std::string low_from = lower(from);
  std::string out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t hit = low.find(low_from, pos);
    if (hit == std::string::npos) break;
    out.append(s.substr(pos, hit - pos));
    out.append(to);
    pos = hit + from.size();
  }
  out.append(s.substr(pos));
  return out;
}

std::optional<long long> to_int(std::string_view s) {
  if (!all_digits(s) || s.size() > 18) return std::nullopt;
  long long v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

std::optional<int> small_int(std::string_view s) {
  if (s.size() > 6) return std::nullopt;
  const auto v = to_int(s);
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

std::optional<double> to_double(std::string_view s) {
  const std::string str = trim(s);
  if (str.empty()) return std::nullopt;
  std::istringstream in(str);
  in.imbue(std::locale::classic());
  double v = 0.0;
  in >> v;
  if (in.fail() || !in.eof()) return std::nullopt;
  return v;
}

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  std::string s(buf);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return out.str();
}

std::vector<int> parse_cpulist(std::string_view list) {
  std::vector<int> cpus;
  for (const std::string& range : split(trim(list), ",")) {
    const std::vector<std::string> ends = split(range, "-");
    const auto first = ends.empty() ? std::nullopt : to_int(ends[0]);
    const auto last = ends.size() == 2 ? to_int(ends[1]) : first;
    if (!first || !last || ends.size() > 2 || *last < *first) return {};
    for (long long c = *first; c <= *last; ++c) cpus.push_back(static_cast<int>(c));
  }
  return cpus;
}

}  // namespace torchlet::hw::text
