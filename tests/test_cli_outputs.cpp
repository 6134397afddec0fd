// End-to-end: every output of the CLI goes through the one writer (issue 17, items 1, 4, 5,
// 12 and 13): a target that is not a regular file is refused before any work and left as it
// was, a symbolic link is written through, outputs that name an input or each other are
// refused, the umask is honoured, the temporaries a killed run left are removed, and the
// checkpoint is written before the plot.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fstream>

#include "cli_runner.h"
#include "testing.h"
#include "torchlet/nn/checkpoint.h"

namespace torchlet {
namespace {

namespace fs = std::filesystem;
using testing::expect_refused;
using testing::read_text;
using testing::run_cli;
using testing::scratch_dir;

bool is_char_device(const fs::path& path) {
  struct stat info {};
  return lstat(path.c_str(), &info) == 0 && S_ISCHR(info.st_mode);
}

// A character device node in the scratch folder (the kernel's /dev/full: 1, 7), so that no
// real /dev node is ever at risk; false where the container may not create one.
bool make_full_device(const fs::path& path) {
  return mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0;
}

TEST(CliOutputs, TargetsThatAreNotRegularFilesAreRefusedAndKeptAsTheyWere) {
  const auto dir = scratch_dir();
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0644), 0);
  fs::create_directory(dir / "folder");
  expect_refused("train --epochs 10 --plot fifo",
                 "--plot: Expected a regular file or a new file name, but it is a FIFO ('fifo')",
                 dir, "loss.svg");
  EXPECT_TRUE(fs::is_fifo(dir / "fifo"));
  expect_refused("train --epochs 10 --no-plot --save folder",
                 "--save: Expected a file path, but 'folder' is a folder", dir, "loss.svg");
  ASSERT_EQ(run_cli("train --epochs 10 --no-plot --save m.safetensors", dir).status, 0);
  expect_refused("predict --model m.safetensors --data iris.csv --out fifo",
                 "--out: Expected a regular file or a new file name, but it is a FIFO ('fifo')",
                 dir, "iris.csv");
  if (!make_full_device(dir / "full")) GTEST_SKIP() << "cannot create a device node here";
  for (const char* args : {"train --epochs 10 --plot full", "train --save full --no-plot"})
    expect_refused(args, "but it is a character device ('full')", dir, "loss.svg", false);
  expect_refused("predict --model m.safetensors --data iris.csv --out full",
                 "but it is a character device ('full')", dir, "iris.csv", false);
  EXPECT_TRUE(is_char_device(dir / "full"));
}

TEST(CliOutputs, ASymbolicLinkIsWrittenThroughToItsTarget) {
  const auto dir = scratch_dir();
  std::ofstream(dir / "real.safetensors") << "old";
  fs::create_symlink("real.safetensors", dir / "link.safetensors");
  ASSERT_EQ(run_cli("train --epochs 10 --no-plot --save link.safetensors", dir).status, 0);
  EXPECT_TRUE(fs::is_symlink(dir / "link.safetensors"));
  EXPECT_EQ(nn::read_safetensors((dir / "real.safetensors").string()).metadata.at("epochs"), "10");
  fs::create_symlink("nowhere/x.svg", dir / "dangling.svg");
  expect_refused("train --epochs 10 --plot dangling.svg",
                 "--plot: Cannot write 'dangling.svg': No such file or directory (it is a "
                 "symbolic link that leads to no file)",
                 dir, "loss.svg");
  EXPECT_TRUE(fs::is_symlink(dir / "dangling.svg"));
}

TEST(CliOutputs, AnOutputThatIsAnInputOrAnotherOutputIsRefused) {
  const auto dir = scratch_dir();
  ASSERT_EQ(run_cli("train --epochs 10 --no-plot --save m.safetensors", dir).status, 0);
  const std::string model = read_text(dir / "m.safetensors");
  std::ofstream(dir / "g.csv") << "a,b,label\n1,2,x\n3,4,y\n5,6,x\n7,8,y\n9,1,x\n";
  expect_refused("predict --model m.safetensors --data g.csv --out m.safetensors",
                 "--out: Expected a file other than the --model file (an input), but both name "
                 "'m.safetensors'",
                 dir, "nothing");
  expect_refused("predict --model m.safetensors --data g.csv --out ./g.csv",
                 "--out: Expected a file other than the --data file (an input), but both name "
                 "'g.csv'",
                 dir, "nothing");
  expect_refused("train --data g.csv --save g.csv --no-plot",
                 "--save: Expected a file other than the --data file (an input), but both name "
                 "'g.csv'",
                 dir, "nothing");
  expect_refused("train --plot x.svg --save x.svg",
                 "--plot: Expected a file other than the --save file, but both name 'x.svg'", dir,
                 "x.svg");
  expect_refused("train --epochs 20 --resume m.safetensors --plot m.safetensors",
                 "--plot: Expected a file other than the --resume file (an input), but both name "
                 "'m.safetensors'",
                 dir, "nothing");
  EXPECT_EQ(read_text(dir / "m.safetensors"), model);
  EXPECT_EQ(read_text(dir / "g.csv"), "a,b,label\n1,2,x\n3,4,y\n5,6,x\n7,8,y\n9,1,x\n");
  // Resuming into the checkpoint resumed from is the usual way to continue: it stays allowed.
  EXPECT_EQ(run_cli("train --epochs 20 --no-plot --resume m.safetensors --save m.safetensors", dir)
                .status,
            0);
}

mode_t mode_of(const fs::path& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 ? info.st_mode & 07777 : 0;
}

TEST(CliOutputs, NewFilesFollowTheUmask) {
  const auto dir = scratch_dir();
  const auto run = run_cli(
      "train --epochs 200 --save m.safetensors >/dev/null && umask 077 && '" TORCHLET_CLI_PATH
      "' train --epochs 200 --save private.safetensors --plot private.svg",
      dir);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(mode_of(dir / "private.safetensors"), 0600u);
  EXPECT_EQ(mode_of(dir / "private.svg"), 0600u);
  EXPECT_EQ(mode_of(dir / "m.safetensors"), 0666u & ~static_cast<mode_t>(022)) << "umask 022";
}

TEST(CliOutputs, StaleTemporariesBesideATargetAreRemovedAndReported) {
  const auto dir = scratch_dir();
  std::ofstream(dir / ".m.safetensors.tmp-Ab3xY9") << "left by kill -9";
  std::ofstream(dir / ".loss.svg.tmp-000000") << "left by kill -9";
  std::ofstream(dir / ".m.safetensors.tmp-keep") << "not the pattern";
  std::ofstream(dir / ".other.tmp-Ab3xY9") << "another target's";
  const auto run = run_cli("train --epochs 200 --save m.safetensors", dir);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_FALSE(fs::exists(dir / ".m.safetensors.tmp-Ab3xY9"));
  EXPECT_FALSE(fs::exists(dir / ".loss.svg.tmp-000000"));
  EXPECT_TRUE(fs::exists(dir / ".m.safetensors.tmp-keep"));
  EXPECT_TRUE(fs::exists(dir / ".other.tmp-Ab3xY9"));
  EXPECT_NE(run.err.find("torchlet: removed './.m.safetensors.tmp-Ab3xY9', a temporary file left "
                         "by an interrupted run\n"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("./.loss.svg.tmp-000000"), std::string::npos) << run.err;
}

// A plot that cannot be written (here: larger than the file size limit, with SIGXFSZ ignored
// so that write() fails) must not cost the checkpoint, which is written first.
TEST(CliOutputs, TheCheckpointIsWrittenBeforeThePlot) {
  const auto dir = scratch_dir();
  const auto run = run_cli("--version >/dev/null; trap '' XFSZ; ulimit -f 8; '" TORCHLET_CLI_PATH
                           "' train --epochs 2000 --record-every 1 --save m.safetensors",
                           dir);
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_NE(run.err.find("torchlet: error: Cannot write 'loss.svg': File too large"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(nn::read_safetensors((dir / "m.safetensors").string()).metadata.at("epochs"), "2000");
  EXPECT_FALSE(fs::exists(dir / "loss.svg"));
  for (const auto& entry : fs::directory_iterator(dir))
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();
}

TEST(CliOutputs, AnImmutableTargetIsFoundBeforeTraining) {
  const auto dir = scratch_dir();
  std::ofstream(dir / "m.safetensors") << "old";
  if (std::system(("chattr +i '" + (dir / "m.safetensors").string() + "' 2>/dev/null").c_str()) !=
      0)
    GTEST_SKIP() << "chattr +i is not available here";
  expect_refused("train --epochs 100000000 --no-plot --save m.safetensors",
                 "--save: Expected a file that can be replaced, but it is immutable or "
                 "append-only (chattr +i or +a) ('m.safetensors')",
                 dir, "loss.svg");
  std::system(("chattr -i '" + (dir / "m.safetensors").string() + "'").c_str());
  EXPECT_EQ(read_text(dir / "m.safetensors"), "old");
}

// stdout on a full disk (/dev/full: writing to it is harmless) or closed: every command ends
// with one line naming the failure and status 2, never 0.
TEST(CliOutputs, WriteErrorsOnStdoutEndEveryCommand) {
  const auto dir = scratch_dir();
  ASSERT_EQ(run_cli("train --epochs 10 --no-plot --save m.safetensors", dir).status, 0);
  std::ofstream(dir / "x.csv") << "sepal length (cm),sepal width (cm),petal length (cm),petal "
                                  "width (cm)\n5,3,1,0.2\n";
  for (const char* command : {"train --epochs 10 --no-plot", "train --json --epochs 10 --no-plot",
                              "predict --model m.safetensors --data x.csv", "info",
                              "bench overhead --device cpu --epochs 20 --repeats 1"}) {
    auto run = run_cli(std::string(command) + " >/dev/full", dir);
    EXPECT_EQ(run.status, 2) << command << "\n" << run.err;
    EXPECT_NE(run.err.find("torchlet: error: Cannot write to stdout: No space left on device\n"),
              std::string::npos)
        << command << "\n"
        << run.err;
    run = run_cli(std::string(command) + " >&-", dir);
    EXPECT_EQ(run.status, 2) << command << "\n" << run.err;
    EXPECT_EQ(run.err, "torchlet: error: Cannot write to stdout: it is closed\n") << command;
  }
}

}  // namespace
}  // namespace torchlet
