// Terminal output for the CLI: colors (only on a terminal, never with NO_COLOR) and a
// progress bar on stderr that appears once a run has taken about a second.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace torchlet::cli {

bool stderr_is_terminal();

// Flushes `stream` (named `name`: "stdout") and throws torchlet::Error (kind IO) when anything
// written to it since the last check failed: a full disk, a closed pipe.
void flush_output(std::FILE* stream, const char* name);

// ANSI styling that turns into plain text when disabled.
struct Style {
  bool color = false;
  std::string bold(const std::string& s) const { return wrap("1", s); }
  std::string dim(const std::string& s) const { return wrap("2", s); }
  std::string green(const std::string& s) const { return wrap("32", s); }
  std::string yellow(const std::string& s) const { return wrap("33", s); }

 private:
  std::string wrap(const char* code, const std::string& s) const {
    return color ? "\x1b[" + std::string(code) + "m" + s + "\x1b[0m" : s;
  }
};

// Colors when stderr is a terminal and NO_COLOR is unset or empty (no-color.org).
Style stderr_style();

// "epoch 1200/20000 [#####.....] loss 0.4123  0.3 s, ETA 4.1 s", redrawn in place; `label`
// names what is counted ("epoch", or "epoch 2/5: batch").
class ProgressBar {
 public:
  ProgressBar(int64_t total, bool enabled, Style style, std::string label = "epoch");
  // True when a redraw is due (enabled, past the first second, 100 ms since the last one):
  // callers read the loss (a device sync) only then.
  bool due() const;
  // `extra` follows the loss, e.g. "  5230 images/s".
  void draw(int64_t done, float loss, const std::string& extra = "");
  // Erases the bar so other text can be printed; the next draw() brings it back.
  void clear();

 private:
  using Clock = std::chrono::steady_clock;
  int64_t total_;
  bool enabled_;
  Style style_;
  std::string label_;
  Clock::time_point start_, last_draw_;
  bool visible_ = false;
};

}  // namespace torchlet::cli
