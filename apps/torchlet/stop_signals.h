// Stopping training cleanly on Ctrl-C (SIGINT) or SIGTERM: while a StopSignals is alive the
// first such signal only sets a flag, which the training loop reads after each epoch; the
// handler then reverts to the default, so a second Ctrl-C ends the process at once.
#pragma once

namespace torchlet::cli {

class StopSignals {
 public:
  StopSignals();   // installs the handlers (one StopSignals at a time)
  ~StopSignals();  // restores the handlers that were there before
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The signal received since construction (SIGINT or SIGTERM), or 0.
  static int received() noexcept;
  // "SIGINT" or "SIGTERM".
  static const char* name(int signal) noexcept;
};

}  // namespace torchlet::cli
