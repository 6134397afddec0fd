// Stopping cleanly on Ctrl-C (SIGINT) or SIGTERM, from start-up to exit: main() installs the
// handlers before anything else, and the first such signal only sets a flag that the commands
// read (after each epoch, between benchmark cells, between stages). A second signal ends the
// process at once (status 128 + the signal), except inside a FinalWrites scope, where the
// checkpoint, the plot and the JSON are being written: there it waits for them.
#pragma once

#include <string>

namespace torchlet::cli {

class StopSignals {
 public:
  // Installs the handlers for the life of the process (a signal the parent set to be ignored
  // stays ignored) and unblocks both signals.
  static void install();
  // The first signal received (SIGINT or SIGTERM), or 0.
  static int received() noexcept;
  // "SIGINT" or "SIGTERM".
  static const char* name(int signal) noexcept;
  // The exit status for a run stopped by `signal`: 130 for SIGINT, 143 for SIGTERM.
  static int exit_status(int signal) noexcept;
  // When a signal has been received: says on stderr that the command stopped `when` (e.g.
  // "before training") with nothing written, with `json` prints {"interrupted": true,
  // "stopped": when} on stdout, and throws ExitStatus with the signal's exit status.
  static void stop_if_received(const std::string& when, bool json = false);
};

// While one is alive, a second signal does not end the process: the writes finish first.
class FinalWrites {
 public:
  FinalWrites();
  ~FinalWrites();
  FinalWrites(const FinalWrites&) = delete;
  FinalWrites& operator=(const FinalWrites&) = delete;
};

}  // namespace torchlet::cli
