// The one strict reading of numeric and list options: CLI11's own conversions wrap (--seed -1
// became 2^64 - 1), clamp (--record-every 99999999999999999999 became 2^63 - 1) and drop empty
// list items (--hidden 10,,10 became 10,10). These refuse each with the option and the text.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace torchlet::cli {

// A whole number in [low, high] (digits, or a form such as 1e9 whose value is whole), checked
// on the text before CLI11 converts it. Where the option's range is narrower, the command's
// own checks say so. Register it with CLI::Option::transform (it rewrites 1e9 as digits).
CLI::Validator whole_number(int64_t low, int64_t high);
// The same for an unsigned 64-bit option (seeds): [0, 2^64 - 1].
CLI::Validator whole_number_u64();

// "10,64": widths separated by commas, each a whole number of at most 2^31 (the command checks
// that they are > 0); an empty item (10,,10 or a trailing comma) is refused naming `option`.
std::vector<int64_t> parse_widths(const std::string& option, const std::string& text);

// At most kThreadsPerCore threads for each of the machine's cores.
inline constexpr int kThreadsPerCore = 4;
void check_threads(int threads);

// The bytes an MLP of `widths` holds while it trains `rows` rows in one step: weights,
// gradients and two optimizer buffers (4 copies of the parameters) and the activations and
// their gradients (2 copies of rows x the widths), float32. Refused, with the figures, when it
// exceeds the machine's memory.
void check_mlp_fits(const std::string& option, const std::vector<int64_t>& widths, int64_t rows);

}  // namespace torchlet::cli
