// The subcommands of the torchlet tool. Each add_*_command registers its options and the
// callback that runs it; errors are thrown (torchlet::Error for bad input) and main() turns
// them into one line on stderr and an exit status.
#pragma once

#include <CLI/CLI.hpp>

namespace torchlet::cli {

void add_train_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_predict_command(CLI::App& app);

// Exit statuses shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;        // a bug or an unexpected system error
inline constexpr int kExitBadInput = 2;       // bad arguments or data: the message says which
inline constexpr int kExitNonFiniteLoss = 3;  // training stopped at a NaN or infinite loss
inline constexpr int kExitInterrupted = 130;  // stopped early by SIGINT or SIGTERM (128 + 2)

// Thrown by a command that has already said why it stops, to end with `status`.
struct ExitStatus {
  int status;
};

}  // namespace torchlet::cli
