// Small string and file helpers shared by the hardware readers and the name parsers
// (internal to src/hw). ASCII only: model names and /proc files are plain ASCII.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torchlet::hw::text {

std::string lower(std::string_view s);
std::string upper(std::string_view s);
std::string capitalize(std::string_view s);  // "ultra" -> "Ultra"
std::string trim(std::string_view s);
bool iequals(std::string_view a, std::string_view b);
bool istarts_with(std::string_view s, std::string_view prefix);
bool all_digits(std::string_view s);  // false for ""
// Splits on any of the separator characters, dropping empty pieces.
std::vector<std::string> split(std::string_view s, std::string_view separators);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
// Replaces every occurrence of `from` (case-insensitive) with `to`.
std::string replace_all_ci(std::string_view s, std::string_view from, std::string_view to);
// Parses a whole string as a number; nullopt when any character is left over.
std::optional<long long> to_int(std::string_view s);
// A short decimal number (1 to 6 digits), as model numbers and core counts are; nullopt for
// anything else, so absurd input cannot overflow.
std::optional<int> small_int(std::string_view s);
std::optional<double> to_double(std::string_view s);
// "%.*f" without trailing zeros: fixed(2.50, 2) == "2.5", fixed(3.0, 1) == "3".
std::string fixed(double value, int decimals);

// The whole file, or nullopt when it cannot be read (absent files are normal in /sys).
std::optional<std::string> read_file(const std::string& path);
// Linux cpulist syntax ("0-3,8,10-11") to the listed numbers; empty on malformed input.
std::vector<int> parse_cpulist(std::string_view list);

}  // namespace torchlet::hw::text
