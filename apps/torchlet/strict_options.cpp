// Strict option text: whole numbers that fit, lists without holes, limits with their reason.
#include "strict_options.h"

#include <fmt/core.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <thread>

#include "torchlet/error.h"

namespace torchlet::cli {
namespace {

constexpr int64_t kMaxWidth = int64_t{1} << 31;

// Reads the whole number `text` spells into `out`, also when it is written as a decimal or
// with an exponent (1e9, 20000.0); false when it is not whole or does not fit in T.
template <typename T>
bool read_whole(const std::string& text, T& out) {
  const char* first = text.data() + (text.size() > 1 && text[0] == '+');
  const char* last = text.data() + text.size();
  auto [end, error] = std::from_chars(first, last, out);
  if (error == std::errc() && end == last) return true;
  if (error == std::errc::result_out_of_range) return false;
  double value = 0.0;
  const auto [dend, derror] = std::from_chars(first, last, value);
  if (derror != std::errc() || dend != last || !std::isfinite(value) || std::trunc(value) != value)
    return false;
  // Beyond 2^53 a double no longer holds every whole number: refuse rather than round.
  if (std::fabs(value) > 9007199254740992.0) return false;
  if (value < static_cast<double>(std::numeric_limits<T>::min()) ||
      value > static_cast<double>(std::numeric_limits<T>::max()))
    return false;
  out = static_cast<T>(value);
  return true;
}

}  // namespace

CLI::Validator whole_number(int64_t low, int64_t high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        int64_t value = 0;
        if (read_whole(text, value) && value >= low && value <= high) {
          text = std::to_string(value);  // 1e9 as digits, which CLI11 converts
          return "";
        }
        return fmt::format("Expected a whole number in [{}, {}], but got '{}'", low, high, text);
      },
      "INT");
}

CLI::Validator whole_number_u64() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        uint64_t value = 0;
        if (!text.starts_with('-') && read_whole(text, value)) {
          text = std::to_string(value);
          return "";
        }
        return fmt::format("Expected a whole number in [0, {}], but got '{}'",
                           std::numeric_limits<uint64_t>::max(), text);
      },
      "UINT");
}

std::vector<int64_t> parse_widths(const std::string& option, const std::string& text) {
  std::vector<int64_t> widths;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    TORCHLET_CHECK(!item.empty(), option,
                   ": Expected widths separated by single commas, e.g. 64,64, ", "but got '", text,
                   "' (an empty item)");
    int64_t width = 0;
    TORCHLET_CHECK(read_whole(item, width) && width <= kMaxWidth, option,
                   ": Expected whole widths of at most ", kMaxWidth, ", but got '", item, "'");
    widths.push_back(width);
    if (comma == std::string::npos) return widths;
    start = comma + 1;
  }
}

void check_threads(int threads) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  TORCHLET_CHECK(threads <= kThreadsPerCore * cores, "--threads: Expected at most ",
                 kThreadsPerCore * cores, " threads (", kThreadsPerCore, " per core; this machine ",
                 "has ", cores, " cores), but got ", threads);
}

void check_mlp_fits(const std::string& option, const std::vector<int64_t>& widths, int64_t rows) {
  double parameters = 0.0, activations = 0.0;
  for (std::size_t i = 0; i + 1 < widths.size(); ++i)
    parameters += static_cast<double>(widths[i] + 1) * static_cast<double>(widths[i + 1]);
  for (int64_t w : widths) activations += static_cast<double>(w) * static_cast<double>(rows);
  const double bytes = 4.0 * (4.0 * parameters + 2.0 * activations);
  const double memory =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  TORCHLET_CHECK(memory <= 0 || bytes <= memory, option,
                 ": Expected layers that fit in this machine's ",
                 fmt::format("{:.1f} GiB of memory, but training them needs about {:.1f} GiB ",
                             memory / kGiB, bytes / kGiB),
                 fmt::format("({:.3g} parameters x 4 copies and {:.3g} activations x 2, "
                             "float32)",
                             parameters, activations));
}

}  // namespace torchlet::cli
