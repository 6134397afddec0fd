// The subcommands of the torchlet tool. Each add_*_command registers its options and the
// callback that runs it; errors are thrown (torchlet::Error for bad input) and main() turns
// them into one line on stderr and an exit status.
#pragma once

#include <CLI/CLI.hpp>

#include "torchlet/error.h"

namespace torchlet::cli {

void add_train_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_predict_command(CLI::App& app);

// Exit statuses shared by every command (the README's table); a signal's is 128 + its number
// (StopSignals::exit_status: 130 for SIGINT, 143 for SIGTERM).
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;  // a bug in torchlet: the message asks for a report
inline constexpr int kExitBadInput = 2;  // bad arguments, data or files: the message says which
inline constexpr int kExitNonFiniteLoss = 3;  // training stopped at a NaN or infinite loss
inline constexpr int kExitDevice = 4;         // out of memory, or the GPU failed

// The one mapping from an error's kind to the exit status.
int exit_status_for(ErrorKind kind) noexcept;

// Thrown by a command that has already said why it stops, to end with `status`.
struct ExitStatus {
  int status;
};

}  // namespace torchlet::cli
