// Runs the built torchlet CLI (TORCHLET_CLI_PATH) in a shell and captures its exit status,
// stdout and stderr, for end-to-end tests (scratch_dir() in testing.h gives each its folder).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

#include "testing.h"

namespace torchlet::testing {

struct CliRun {
  int status = -1;
  std::string out, err;
};

// Runs `torchlet <args>` with `cwd` as the working directory (args are passed to the shell).
inline CliRun run_cli(const std::string& args, const std::filesystem::path& cwd) {
  const auto err_path = cwd / "stderr.txt";
  const std::string command = "cd '" + cwd.string() + "' && NO_COLOR=1 '" TORCHLET_CLI_PATH "' " +
                              args + " 2>'" + err_path.string() + "'";
  CliRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return run;
  char buffer[4096];
  std::size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) run.out.append(buffer, n);
  const int raw = pclose(pipe);
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  run.err = read_text(err_path);
  std::filesystem::remove(err_path);
  return run;
}

// Expects `torchlet <args>` run in `dir` to refuse its input before any work: exit status 2,
// one line on stderr, "torchlet: error: <message>" (or a line holding `message` when not
// `whole_line`), and no file `output` in `dir` (what the command would have written).
inline void expect_refused(const std::string& args, const std::string& message,
                           const std::filesystem::path& dir, const std::string& output,
                           bool whole_line = true) {
  const CliRun run = run_cli(args, dir);
  EXPECT_EQ(run.status, 2) << args << "\n" << run.err;
  if (whole_line) {
    EXPECT_EQ(run.err, "torchlet: error: " + message + "\n") << args;
  } else {
    EXPECT_NE(run.err.find(message), std::string::npos) << args << "\nstderr: " << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << args << "\n" << run.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / output)) << args;
}

}  // namespace torchlet::testing
