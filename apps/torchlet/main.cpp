// torchlet: train, inspect hardware, and benchmark from the command line. main() installs the
// signal handlers, parses the arguments with CLI11, runs one subcommand, checks that its output
// reached stdout, and turns every error into one line on stderr and the exit status of its kind.
#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <new>
#include <system_error>
#include <utility>

#include "bench_command.h"
#include "commands.h"
#include "stop_signals.h"
#include "terminal.h"
#include "torchlet/error.h"
#include "torchlet/version.h"

namespace torchlet::cli {

int exit_status_for(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::InvalidArgument:
    case ErrorKind::Index:
    case ErrorKind::IO: return kExitBadInput;
    case ErrorKind::OutOfMemory:
    case ErrorKind::Device: return kExitDevice;
    case ErrorKind::Internal: break;
  }
  return kExitInternal;
}

namespace {

// "stdout" or "stderr" when that descriptor is closed (a later open would take its number, and
// the output would land in a checkpoint), otherwise nullptr.
const char* closed_stream() {
  if (fcntl(STDOUT_FILENO, F_GETFD) < 0) return "stdout";
  if (fcntl(STDERR_FILENO, F_GETFD) < 0) return "stderr";
  return nullptr;
}

// One line on stderr; never throws (stderr may be the file that failed).
template <typename... Args>
void say(fmt::format_string<Args...> format, Args&&... args) noexcept {
  try {
    std::fputs((fmt::format(format, std::forward<Args>(args)...) + "\n").c_str(), stderr);
  } catch (...) {  // formatting ran out of memory: the exit status still says it failed
  }
}

int run(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    flush_output(stdout, "stdout");
    // A signal a command had no point to stop at (info, a short predict) still ends it so.
    if (const int signal = StopSignals::received()) {
      say("torchlet: stopped by {}", StopSignals::name(signal));
      return StopSignals::exit_status(signal);
    }
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const ExitStatus& e) {
    return e.status;
  } catch (const CLI::ParseError& e) {
    say("torchlet: error: {} (see torchlet --help)", e.what());
    return kExitBadInput;
  } catch (const Error& e) {
    const int status = exit_status_for(e.kind());
    say("torchlet: {}: {}", status == kExitInternal ? "internal error" : "error", e.what());
    return status;
  } catch (const std::bad_alloc&) {
    say("torchlet: error: out of memory");
    return kExitDevice;
  } catch (const std::filesystem::filesystem_error& e) {  // a path the system cannot use
    say("torchlet: error: {}", e.what());
    return kExitBadInput;
  } catch (const std::system_error& e) {  // fmt could not write to stdout or stderr
    const char* name = std::ferror(stdout) ? "stdout" : std::ferror(stderr) ? "stderr" : "a file";
    say("torchlet: error: Cannot write to {}: {}", name, e.code().message());
    return kExitBadInput;
  } catch (const std::exception& e) {
    say("torchlet: internal error (please report): {}", e.what());
    return kExitInternal;
  }
  return kExitOk;
}

}  // namespace
}  // namespace torchlet::cli

int main(int argc, char** argv) {
  namespace cli = torchlet::cli;
  cli::StopSignals::install();
  if (const char* stream = cli::closed_stream()) {
    if (std::strcmp(stream, "stdout") == 0)
      cli::say("torchlet: error: Cannot write to stdout: it is closed");
    return cli::kExitBadInput;
  }
  CLI::App app{"torchlet: a small deep-learning training engine with a PyTorch-shaped C++ API",
               "torchlet"};
  app.set_version_flag("--version", std::string("torchlet ") + TORCHLET_VERSION);
  app.require_subcommand(1);
  cli::add_train_command(app);
  cli::add_info_command(app);
  cli::add_predict_command(app);
  cli::add_bench_command(app);
  const int status = cli::run(app, argc, argv);
  // What is still buffered for stdout must reach it; a failure there is the command's failure.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    if (status == cli::kExitOk) {
      cli::say("torchlet: error: Cannot write to stdout: {}", std::strerror(errno));
      return cli::kExitBadInput;
    }
  }
  return status;
}
