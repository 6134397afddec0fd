// End-to-end: one strict reading of the options (issue 17, item 11): no wrap-around, no silent
// clamp, no empty list item, no empty path, and limits that say their reason.
#include "cli_runner.h"
#include "testing.h"

namespace torchlet {
namespace {

using testing::expect_refused;
using testing::run_cli;
using testing::scratch_dir;

void expect_option_refused(const std::string& args, const std::string& message,
                           const std::filesystem::path& dir) {
  expect_refused("train --no-plot " + args, message, dir, "loss.svg", false);
}

TEST(CliOptions, NumbersThatDoNotFitAreRefusedNotWrappedOrClamped) {
  const auto dir = scratch_dir();
  expect_option_refused(
      "--seed -1", "--seed: Expected a whole number in [0, 18446744073709551615], but got '-1'",
      dir);
  expect_option_refused(
      "--split-seed 99999999999999999999",
      "--split-seed: Expected a whole number in [0, 18446744073709551615], but got "
      "'99999999999999999999'",
      dir);
  expect_option_refused("--record-every 99999999999999999999",
                        "--record-every: Expected a whole number in [-9223372036854775808, "
                        "9223372036854775807], but got '99999999999999999999'",
                        dir);
  expect_option_refused("--epochs 10.5", "--epochs: Expected a whole number in", dir);
  expect_option_refused("--threads 99999999999",
                        "--threads: Expected a whole number in [-2147483648, 2147483647]", dir);
  expect_option_refused("--hidden 99999999999999999999",
                        "--hidden: Expected whole widths of at most 2147483648, but got "
                        "'99999999999999999999'",
                        dir);
  // A whole number written with an exponent is read exactly.
  const auto run = run_cli("train --no-plot --json --epochs 2e2 --seed 1e1", dir);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("\"epochs\":200"), std::string::npos);
  EXPECT_NE(run.out.find("\"seed\":10"), std::string::npos);
}

TEST(CliOptions, EmptyListItemsAndEmptyPathsAreRefused) {
  const auto dir = scratch_dir();
  for (const char* hidden : {"10,,10", "10,", ",10"})
    expect_option_refused(std::string("--hidden ") + hidden,
                          "--hidden: Expected widths separated by single commas, e.g. 64,64, but "
                          "got '" +
                              std::string(hidden) + "' (an empty item)",
                          dir);
  expect_option_refused("--save ''", "--save: Expected a file path, but got an empty one", dir);
  expect_refused("train --plot ''", "--plot: Expected a file path, but got an empty one", dir,
                 "loss.svg");
}

TEST(CliOptions, LimitsSayTheirReason) {
  const auto dir = scratch_dir();
  expect_option_refused("--threads 100000", "--threads: Expected at most ", dir);
  expect_option_refused("--threads 100000", " per core; this machine has ", dir);
  // Trained whole, 100000 x 100000 weights need about 150 GiB: refused with the figures, before
  // an allocation, instead of an internal error.
  expect_option_refused("--hidden 100000,100000",
                        "GiB (1e+10 parameters x 4 copies and 2.4e+07 activations x 2, float32)",
                        dir);
  // A billion recorded losses would be reserved up front: refused with the count.
  expect_option_refused("--epochs 1e9 --record-every 1",
                        "--record-every: Expected at most 10000000 recorded losses (--epochs / "
                        "--record-every), but --epochs 1000000000 --record-every 1 records "
                        "1000000000: record less often",
                        dir);
}

}  // namespace
}  // namespace torchlet
