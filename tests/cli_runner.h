// Runs the built torchlet CLI (TORCHLET_CLI_PATH) in a shell and captures its exit status,
// stdout and stderr, for end-to-end tests. Also makes a fresh scratch folder per test.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace torchlet::testing {

struct CliRun {
  int status = -1;
  std::string out, err;
};

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A new empty folder named after the running test.
inline std::filesystem::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "_" + info->name();
  for (char& c : name)
    if (c == '/') c = '_';
  auto dir = std::filesystem::path(::testing::TempDir()) / ("torchlet_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

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

}  // namespace torchlet::testing
