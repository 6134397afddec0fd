// Colors and the progress bar.
#include "terminal.h"

#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "torchlet/error.h"

namespace torchlet::cli {

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

void flush_output(std::FILE* stream, const char* name) {
  errno = 0;
  const bool failed = std::fflush(stream) != 0 || std::ferror(stream);
  TORCHLET_CHECK_KIND(IO, !failed, "Cannot write to ", name, ": ",
                      errno != 0 ? std::strerror(errno) : "a write failed");
}

Style stderr_style() {
  const char* no_color = std::getenv("NO_COLOR");
  return Style{stderr_is_terminal() && (no_color == nullptr || *no_color == '\0')};
}

ProgressBar::ProgressBar(int64_t total, bool enabled, Style style, std::string label)
    : total_(total),
      enabled_(enabled),
      style_(style),
      label_(std::move(label)),
      start_(Clock::now()),
      last_draw_(start_) {}

bool ProgressBar::due() const {
  if (!enabled_) return false;
  const auto now = Clock::now();
  return now - start_ > std::chrono::seconds(1) &&
         now - last_draw_ > std::chrono::milliseconds(100);
}

void ProgressBar::draw(int64_t done, float loss, const std::string& extra) {
  if (!enabled_) return;
  last_draw_ = Clock::now();
  const double elapsed = std::chrono::duration<double>(last_draw_ - start_).count();
  const double fraction = total_ > 0 ? static_cast<double>(done) / total_ : 1.0;
  const double eta = fraction > 0 ? elapsed * (1.0 - fraction) / fraction : 0.0;
  constexpr int kWidth = 24;
  const int filled = static_cast<int>(fraction * kWidth);
  std::string bar;
  for (int i = 0; i < kWidth; ++i) bar += i < filled ? "█" : "░";
  fmt::print(stderr, "\r\x1b[2K{} {}/{} {} loss {:.4f}{}  {:.1f} s, ETA {:.1f} s", label_, done,
             total_, style_.green(bar), loss, extra, elapsed, eta);
  std::fflush(stderr);
  visible_ = true;
}

void ProgressBar::clear() {
  if (!visible_) return;
  fmt::print(stderr, "\r\x1b[2K");
  std::fflush(stderr);
  visible_ = false;
}

}  // namespace torchlet::cli
