// torchlet: train, inspect hardware, and benchmark from the command line. main() parses the
// arguments with CLI11, runs one subcommand, and turns every error into one line on stderr.
#include <fmt/core.h>

#include <CLI/CLI.hpp>

#include "bench_command.h"
#include "commands.h"
#include "torchlet/error.h"
#include "torchlet/version.h"

int main(int argc, char** argv) {
  namespace cli = torchlet::cli;
  CLI::App app{"torchlet: a small deep-learning training engine with a PyTorch-shaped C++ API",
               "torchlet"};
  app.set_version_flag("--version", std::string("torchlet ") + TORCHLET_VERSION);
  app.require_subcommand(1);
  cli::add_train_command(app);
  cli::add_info_command(app);
  cli::add_predict_command(app);
  cli::add_bench_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const cli::ExitStatus& e) {
    return e.status;
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "torchlet: error: {} (see torchlet --help)\n", e.what());
    return cli::kExitBadInput;
  } catch (const torchlet::Error& e) {
    fmt::print(stderr, "torchlet: error: {}\n", e.what());
    return cli::kExitBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "torchlet: internal error: {}\n", e.what());
    return cli::kExitFailure;
  }
  return cli::kExitOk;
}
