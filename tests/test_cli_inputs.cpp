// End-to-end: every input is bounded and every path error is the user's (issue 17, items 6, 7
// and 8): only regular files are read (/dev/zero, /dev/urandom and a FIFO with no writer are
// refused at once), a size limit a user can raise, text validated as UTF-8, and symbolic link
// loops or over-long names exit 2 with the system's reason instead of an internal error.
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "testing.h"

namespace torchlet {
namespace {

namespace fs = std::filesystem;
using testing::expect_refused;
using testing::run_cli;
using testing::scratch_dir;

TEST(CliInputs, DevicesAndFifosAreRefusedBeforeAByteIsRead) {
  const auto dir = scratch_dir();
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0644), 0);
  expect_refused("train --no-plot --data /dev/zero",
                 "/dev/zero: Expected a regular file, but it is a character device", dir, "x");
  expect_refused("train --no-plot --data /dev/urandom",
                 "/dev/urandom: Expected a regular file, but it is a character device", dir, "x");
  // `timeout` turns the old behaviour (blocking forever on the open) into a failure.
  expect_refused("--version >/dev/null; timeout 10 '" TORCHLET_CLI_PATH
                 "' train --no-plot --data fifo",
                 "fifo: Expected a regular file, but it is a FIFO", dir, "x");
  ASSERT_EQ(run_cli("train --epochs 10 --no-plot --save m.safetensors", dir).status, 0);
  expect_refused("predict --model /dev/zero --data fifo",
                 "/dev/zero: Expected a regular file, but it is a character device", dir, "x");
  expect_refused("predict --model m.safetensors --data /dev/urandom",
                 "/dev/urandom: Expected a regular file, but it is a character device", dir, "x");
  expect_refused("train --no-plot --resume fifo", "fifo: Expected a regular file, but it is a FIFO",
                 dir, "x");
}

// "-" reads standard input (a pipe is fine there: it is what the user asked for), bounded.
TEST(CliInputs, DashReadsStandardInput) {
  const auto dir = scratch_dir();
  ASSERT_EQ(run_cli("train --epochs 10 --no-plot --save m.safetensors", dir).status, 0);
  std::ofstream(dir / "x.csv") << "sepal length (cm),sepal width (cm),petal length (cm),petal "
                                  "width (cm)\n5,3,1,0.2\n6.5,3,5.5,2\n";
  const auto from_file = run_cli("predict --model m.safetensors --data x.csv", dir);
  ASSERT_EQ(from_file.status, 0) << from_file.err;
  const auto piped = run_cli("predict --model m.safetensors --data - < x.csv", dir);
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_EQ(piped.out, from_file.out);
  expect_refused(
      "--version >/dev/null; head -c 2000000 /dev/zero | TORCHLET_MAX_INPUT_MB=1 "
      "'" TORCHLET_CLI_PATH "' predict --model m.safetensors --data -",
      "-: Expected standard input of at most 1048576 bytes (set TORCHLET_MAX_INPUT_MB "
      "to a number of MiB to read more), but it holds more",
      dir, "x");
}

TEST(CliInputs, TheSizeLimitIsRefusedWithHowToRaiseIt) {
  const auto dir = scratch_dir();
  {
    std::ofstream csv(dir / "big.csv");
    csv << "a,b,label\n";
    for (int i = 0; i < 200000; ++i) csv << i % 7 << "," << i % 5 << "," << i % 2 << "\n";
  }
  const auto size = fs::file_size(dir / "big.csv");
  ASSERT_GT(size, 1u << 20);
  expect_refused("--version >/dev/null; TORCHLET_MAX_INPUT_MB=1 '" TORCHLET_CLI_PATH
                 "' train --no-plot --data big.csv",
                 "big.csv: Expected a file of at most 1048576 bytes (set TORCHLET_MAX_INPUT_MB "
                 "to a number of MiB to read larger ones), but it has " +
                     std::to_string(size) + " bytes",
                 dir, "x");
  const auto ok = run_cli("--version >/dev/null; TORCHLET_MAX_INPUT_MB=2 '" TORCHLET_CLI_PATH
                          "' train --no-plot --epochs 1 --data big.csv",
                          dir);
  EXPECT_EQ(ok.status, 0) << ok.err;
  expect_refused("--version >/dev/null; TORCHLET_MAX_INPUT_MB=lots '" TORCHLET_CLI_PATH
                 "' train --no-plot --data big.csv",
                 "TORCHLET_MAX_INPUT_MB: Expected a whole number of MiB >= 1, but got 'lots'", dir,
                 "x");
}

TEST(CliInputs, TextThatIsNotUtf8ExitsTwoNamingLineAndColumn) {
  const auto dir = scratch_dir();
  std::ofstream(dir / "bad.csv") << "a,b,label\n1,2,x\n3,4,caf\xe9\n5,6,x\n7,8,y\n";
  std::ofstream(dir / "badhead.csv") << "a,\xff,label\n1,2,x\n3,4,y\n5,6,x\n7,8,y\n";
  expect_refused("train --no-plot --json --data bad.csv --save m.safetensors",
                 "bad.csv:3:8: Expected UTF-8 text, but got the byte 0xe9", dir, "m.safetensors");
  expect_refused("train --no-plot --data badhead.csv",
                 "badhead.csv:1:3: Expected UTF-8 text, but got the byte 0xff", dir, "x");
  // A name given on the command line is printed with U+FFFD, never an internal error.
  const auto run = run_cli("info --json --explain \"$(printf 'RTX \\377 4090')\"", dir);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out)["explain"][0]["input"], "RTX \xef\xbf\xbd 4090");
}

TEST(CliInputs, PathErrorsExitTwoWithTheSystemsReason) {
  const auto dir = scratch_dir();
  fs::create_symlink("loop_b", dir / "loop_a");
  fs::create_symlink("loop_a", dir / "loop_b");
  expect_refused("train --no-plot --data loop_a",
                 "loop_a: Cannot open the file: Too many levels of symbolic links", dir, "x");
  expect_refused("train --plot loop_a/loss.svg",
                 "--plot: Cannot use the folder 'loop_a' of 'loop_a/loss.svg': Too many levels of "
                 "symbolic links",
                 dir, "x");
  const std::string long_name(300, 'n');
  expect_refused("train --no-plot --data " + long_name,
                 long_name + ": Cannot open the file: File name too long", dir, "x");
  expect_refused("train --save " + long_name, "File name too long", dir, "x", false);
  // Without search permission on a folder (as a user root is not: setpriv drops to nobody).
  fs::create_directory(dir / "locked");
  std::ofstream(dir / "locked/d.csv") << "a,label\n1,x\n2,y\n";
  fs::permissions(dir, fs::perms::all, fs::perm_options::add);
  fs::permissions(dir / "locked", fs::perms::none);
  const auto run = run_cli(
      "--version >/dev/null; setpriv --reuid=65534 --regid=65534 "
      "--clear-groups '" TORCHLET_CLI_PATH "' train --no-plot --data locked/d.csv",
      dir);
  fs::permissions(dir / "locked", fs::perms::owner_all);
  if (run.status == 127 || run.err.find("setpriv") != std::string::npos)
    GTEST_SKIP() << "cannot run as another user here: " << run.err;
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_NE(run.err.find("locked/d.csv: Cannot open the file: Permission denied"),
            std::string::npos)
      << run.err;
}

}  // namespace
}  // namespace torchlet
