// End-to-end tests of `torchlet train` and `torchlet predict` on real tables (the fixtures of
// tests/fixtures/make_table_fixtures.py): text categories, missing cells and a regression
// target with no preparation, the schema in the checkpoint, predict's handling of odd files,
// and bad input refused in one line with exit status 2 and nothing written.
#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.h"
#include "testing.h"

namespace torchlet {
namespace {

namespace fs = std::filesystem;
using testing::expect_refused;
using testing::read_text;
using testing::run_cli;
using testing::scratch_dir;

fs::path fixture(const std::string& name) {
  return fs::path(TORCHLET_FIXTURES_DIR) / "tables" / name;
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

nlohmann::json train_json(const fs::path& dir, const std::string& options) {
  const testing::CliRun run = run_cli("train --json " + options, dir);
  EXPECT_EQ(run.status, 0) << run.err;
  return nlohmann::json::parse(run.out, nullptr, false);
}

TEST(CliTable, TrainsOnTextCategoriesAndMissingCellsAndPredictsOddFiles) {
  const auto dir = scratch_dir();
  fs::copy_file(fixture("passengers.csv"), dir / "p.csv");
  const nlohmann::json j = train_json(dir, "--data p.csv --save m.safetensors");
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["task"], "classification");
  EXPECT_EQ(j["classes"], (std::vector<std::string>{"no", "yes"}));
  EXPECT_GT(j["test_acc"].get<double>(), 0.64);  // always "yes" scores 111/180 = 0.617
  EXPECT_EQ(j["members"], 5);                    // the default ensemble, saved whole
  EXPECT_LE(j["epochs"].get<int64_t>(), 300);
  EXPECT_EQ(j["val_losses"].size(), j["epochs"].get<std::size_t>());
  const std::string svg = read_text(dir / "loss.svg");
  EXPECT_NE(svg.find("validation"), std::string::npos);

  // Columns in another order, an extra one, missing cells and a city never seen.
  write(dir / "new.csv",
        "id,city,member,deck,port,sex,fare,age\n"
        "1,Atlantis,no,B,Southampton,female,30.5,\n"
        "2,city01,yes,Z,?,male,NA,44\n");
  const testing::CliRun run = run_cli("predict --model m.safetensors --data new.csv", dir);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out.substr(0, run.out.find('\n')), "class,prob_no,prob_yes");
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 3);
  EXPECT_EQ(run.err, "torchlet: note: new.csv: column 'id' ignored (not used by the model)\n");

  write(dir / "short.csv", "age,fare,sex,port,deck\n30,7,male,Southampton,A\n");
  expect_refused("predict --model m.safetensors --data short.csv --out out.csv",
                 "short.csv:1: Expected the model's feature columns 'member', 'city', but the "
                 "header has no such column",
                 dir, "out.csv");
}

TEST(CliTable, InfersARegressionTargetAndReportsRmseMaeAndR2) {
  const auto dir = scratch_dir();
  fs::copy_file(fixture("houses.csv"), dir / "h.csv");
  const testing::CliRun train = run_cli("train --data h.csv --save m.safetensors", dir);
  ASSERT_EQ(train.status, 0) << train.err;
  EXPECT_NE(train.out.find("regression (inferred from the label)"), std::string::npos) << train.out;
  EXPECT_NE(train.out.find("test R²: 0.9"), std::string::npos) << train.out;
  EXPECT_NE(read_text(dir / "predictions.svg").find("predicted = true"), std::string::npos);
  write(dir / "new.csv",
        "rooms,area,district,garden,year\n3,80,centre,,NA\n4,120,moon,true,2000\n");
  const testing::CliRun run = run_cli("predict --model m.safetensors --data new.csv", dir);
  ASSERT_EQ(run.status, 0) << run.err;
  std::istringstream lines(run.out);
  std::string header, first, second;
  std::getline(lines, header), std::getline(lines, first), std::getline(lines, second);
  EXPECT_EQ(header, "price");
  // 1.8 * area + ... in the generator: the larger flat costs more.
  EXPECT_GT(std::stod(second), std::stod(first) - 40);
  EXPECT_GT(std::stod(first), 100);
}

TEST(CliTable, AManyLevelColumnTrainsAnEmbeddingAndPredictsUnseenLevels) {
  const auto dir = scratch_dir();
  fs::copy_file(fixture("shops.csv"), dir / "s.csv");
  const testing::CliRun train = run_cli("train --data s.csv --no-plot --save m.safetensors", dir);
  ASSERT_EQ(train.status, 0) << train.err;
  EXPECT_NE(train.out.find("levels -> embedding of 16"), std::string::npos) << train.out;
  EXPECT_NE(train.out.find(", embedding shop "), std::string::npos) << train.out;
  const auto r2 = train.out.find("test R²: ");
  ASSERT_NE(r2, std::string::npos) << train.out;
  EXPECT_GT(std::stod(train.out.substr(r2 + 10)), 0.8) << train.out;  // the shop effects learned
  write(dir / "new.csv",
        "price,temperature,promo,day,shop\n5,15,no,sat,shop010\n5,15,no,sat,shop999\n"
        "5,15,no,sat,\n");
  const testing::CliRun run = run_cli("predict --model m.safetensors --data new.csv", dir);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 4) << run.out;
}

TEST(CliTable, BadTablesAreRefusedInOneLineWithNothingWritten) {
  const auto dir = scratch_dir();
  write(dir / "one.csv", "x,city,y\n1,a,k\n2,b,k\n");
  expect_refused("train --data one.csv --save m.safetensors",
                 "one.csv:2: column 3 ('y'): Expected at least two classes, but every row has 'k'",
                 dir, "m.safetensors");
  write(dir / "empty.csv", "x,z,y\n1,,a\n2,NA,b\n3,,a\n");
  expect_refused("train --data empty.csv --save m.safetensors",
                 "empty.csv:1: column 2 ('z'): Expected some values, but every cell is empty or "
                 "missing (leave it out with --drop 'z')",
                 dir, "m.safetensors");
  std::string csv = "x,c,y\n";
  for (int i = 0; i < 40; ++i)
    csv += std::to_string(i) + (i % 3 ? ",u," : ",v,") + "ab"[i % 2] + "\n";
  csv += "5,u,\n";
  write(dir / "gap.csv", csv);
  expect_refused("train --data gap.csv --strict --save m.safetensors",
                 "gap.csv:42: column 3 ('y'): Expected a label, but the cell is empty or missing "
                 "(--strict)",
                 dir, "m.safetensors");
  const testing::CliRun run = run_cli("train --data gap.csv --no-plot --epochs 5", dir);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("skipped 1 row with an empty label (the first at line 42)"),
            std::string::npos)
      << run.out;
  expect_refused("train --data gap.csv --val-size 1.5",
                 "--val-size: Expected a fraction in (0, "
                 "1), but got 1.5",
                 dir, "loss.svg");
  expect_refused("train --data gap.csv --embedding-threshold -1",
                 "--embedding-threshold: Expected a number of levels >= 0, but got -1", dir,
                 "loss.svg");
  expect_refused("train --data gap.csv --min-delta -0.5",
                 "--min-delta: Expected a number >= 0, but got -0.5", dir, "loss.svg");
  expect_refused("train --data gap.csv --ensemble 0",
                 "--ensemble: Expected a number of models in [1, 1024], but got 0", dir,
                 "loss.svg");
  expect_refused("train --data gap.csv --loss huber",
                 "--loss: Expected mse (the default) with classification ('y': cross-entropy), "
                 "but got huber",
                 dir, "loss.svg");
  fs::copy_file(fixture("houses.csv"), dir / "h.csv");
  expect_refused("train --data h.csv --class-weight balanced",
                 "--class-weight: Expected none with a regression target ('price'), but got "
                 "balanced",
                 dir, "loss.svg");
  expect_refused("train --data gap.csv --resume m.safetensors",
                 "--resume: Expected no --resume with a table ('gap.csv'): tables train with "
                 "validation and early stopping, which it does not apply to",
                 dir, "loss.svg");
}

}  // namespace
}  // namespace torchlet
