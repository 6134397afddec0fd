// End-to-end tests of `torchlet train`: the course's default run, options, CSV data, the SVG
// plot and JSON output, and every bad input giving one clear line and exit status 2.
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "testing.h"
#include "torchlet/data/csv.h"

namespace torchlet {
namespace {

using testing::read_text;
using testing::run_cli;
using testing::scratch_dir;

nlohmann::json run_json(const std::string& args, const std::filesystem::path& dir) {
  testing::CliRun run = run_cli("train --json " + args, dir);
  EXPECT_EQ(run.status, 0) << run.err;
  return nlohmann::json::parse(run.out);  // throws (fails the test) if not one JSON object
}

TEST(CliTrain, DefaultRunIsTheCourseExperiment) {
  const auto dir = scratch_dir();
  testing::CliRun run = run_cli("train", dir);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("Iris (built in): 150 rows, 4 features, 3 classes; 120 train / 30 test"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("MLP 4-10-3 (83 parameters), SGD lr 0.01, full batch"), std::string::npos);
  EXPECT_NE(run.out.find("device:    cpu"), std::string::npos);
  EXPECT_NE(run.out.find("Epoch [20000/20000], Loss: "), std::string::npos);
  EXPECT_NE(run.out.find("for 20000 epochs"), std::string::npos);
  EXPECT_NE(run.out.find("test accuracy: 0.9667 (29/30)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("virginica"), std::string::npos);  // the report names the classes
  EXPECT_TRUE(std::filesystem::exists(dir / "loss.svg"));
}

TEST(CliTrain, JsonHasTheResultsAndTheLossCurve) {
  const auto dir = scratch_dir();
  nlohmann::json j = run_json("--plot curve.svg", dir);
  EXPECT_EQ(j["device"], "cpu");
  EXPECT_EQ(j["epochs"], 20000);
  EXPECT_DOUBLE_EQ(j["lr"].get<double>(), 0.01);
  EXPECT_GE(j["test_acc"].get<double>(), 29.0 / 30);  // the course: 29 of 30
  EXPECT_EQ(j["losses"].size(), 100u);                // every 200 epochs
  EXPECT_EQ(j["loss_epochs"][0], 200);
  EXPECT_FLOAT_EQ(j["losses"].back().get<float>(), j["final_loss"].get<float>());
  EXPECT_GT(j["train_s"].get<double>(), 0.0);
  EXPECT_EQ(j["layers"], nlohmann::json({4, 10, 3}));
  EXPECT_EQ(j["classes"], nlohmann::json({"setosa", "versicolor", "virginica"}));
  EXPECT_EQ(j["confusion"].size(), 3u);
  EXPECT_EQ(j["plot"], "curve.svg");
  // The SVG is one well-formed document with a point per recorded loss.
  const std::string svg = read_text(dir / "curve.svg");
  EXPECT_EQ(svg.rfind("<svg", 0) == 0 || svg.rfind("<?xml", 0) == 0, true);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  std::size_t circles = 0;
  for (std::size_t at = svg.find("<circle"); at != std::string::npos;
       at = svg.find("<circle", at + 1))
    ++circles;
  EXPECT_EQ(circles, 100u);
  EXPECT_NE(svg.find(">epoch<"), std::string::npos);
}

TEST(CliTrain, AdamConvergesInAThousandEpochs) {
  const auto dir = scratch_dir();
  nlohmann::json j = run_json("--epochs 1000 --optimizer adam --no-plot", dir);
  EXPECT_LT(j["final_loss"].get<double>(), 0.2);
  EXPECT_GE(j["test_acc"].get<double>(), 0.9);
  EXPECT_TRUE(j["plot"].is_null());
  EXPECT_FALSE(std::filesystem::exists(dir / "loss.svg"));
}

TEST(CliTrain, OptionsChangeTheModelAndTheLoop) {
  const auto dir = scratch_dir();
  nlohmann::json j = run_json(
      "--epochs 300 --hidden 16,8 --batch-size 32 --momentum 0.9 "
      "--scale standard --record-every 100 --lr 0.05 --seed 3 --no-plot",
      dir);
  EXPECT_EQ(j["layers"], nlohmann::json({4, 16, 8, 3}));
  EXPECT_EQ(j["parameters"], 4 * 16 + 16 + 16 * 8 + 8 + 8 * 3 + 3);
  EXPECT_EQ(j["losses"].size(), 3u);
  EXPECT_EQ(j["batch_size"], 32);
  EXPECT_GE(j["test_acc"].get<double>(), 0.9);
  nlohmann::json k = run_json("--epochs 10 --record-every 0 --test-size 0.5 --scale none", dir);
  EXPECT_TRUE(k["losses"].empty());
  EXPECT_EQ(k["test_rows"], 75);
}

TEST(CliTrain, SameSeedGivesTheSameLosses) {
  const auto dir = scratch_dir();
  const std::string args = "--epochs 400 --batch-size 16 --seed 5 --no-plot";
  EXPECT_EQ(run_json(args, dir)["losses"], run_json(args, dir)["losses"]);
}

TEST(CliTrain, PrintEveryAndNeverPrint) {
  const auto dir = scratch_dir();
  testing::CliRun run = run_cli("train --epochs 500 --print-every 100 --no-plot", dir);
  ASSERT_EQ(run.status, 0);
  std::size_t lines = 0;
  for (std::size_t at = run.out.find("Epoch ["); at != std::string::npos;
       at = run.out.find("Epoch [", at + 1))
    ++lines;
  EXPECT_EQ(lines, 5u);
  run = run_cli("train --epochs 500 --print-every 0 --no-plot", dir);
  EXPECT_EQ(run.out.find("Epoch ["), std::string::npos);
}

TEST(CliTrain, CsvRoundTripGivesTheSameResult) {
  const auto dir = scratch_dir();
  data::write_csv((dir / "iris.csv").string(), data::load_iris());
  nlohmann::json from_csv = run_json("--data iris.csv --no-plot --epochs 2000", dir);
  nlohmann::json built_in = run_json("--no-plot --epochs 2000", dir);
  EXPECT_EQ(from_csv["classes"], built_in["classes"]);
  EXPECT_EQ(from_csv["losses"], built_in["losses"]);
  EXPECT_EQ(from_csv["test_acc"], built_in["test_acc"]);
}

// One line on stderr holding `message`, exit status 2, and no plot written.
void expect_bad_input(const std::string& args, const std::string& message,
                      const std::filesystem::path& dir) {
  testing::expect_refused("train --plot out.svg " + args, message, dir, "out.svg", false);
}

TEST(CliTrain, BadArgumentsExitTwoBeforeAnyWork) {
  const auto dir = scratch_dir();
  expect_bad_input("--epochs 0", "--epochs: Expected a number > 0, but got 0", dir);
  expect_bad_input("--lr -1", "--lr: Expected a finite number > 0, but got -1", dir);
  expect_bad_input("--lr nan", "--lr", dir);
  expect_bad_input("--optimizer rmsprop", "--optimizer: Expected sgd or adam, but got 'rmsprop'",
                   dir);
  expect_bad_input("--hidden 10,0", "--hidden: Expected widths > 0, but got 0", dir);
  expect_bad_input("--test-size 1.5", "--test-size: Expected a fraction in (0, 1), but got 1.5",
                   dir);
  expect_bad_input("--batch-size 121",
                   "--batch-size: Expected at most 120 (the training rows), "
                   "but got 121",
                   dir);
  expect_bad_input("--device gpu", "--device: Expected auto, cpu, cuda or cuda:N, but got 'gpu'",
                   dir);
  expect_bad_input("--device cuda", "--device cuda: Expected a CUDA device, but none is available",
                   dir);
  expect_bad_input("--scale log", "--scale: Expected minmax, standard or none, but got 'log'", dir);
  expect_bad_input("--epochs ten", "--epochs", dir);
  expect_bad_input("--unknown", "--unknown", dir);
  testing::CliRun run = run_cli("train --plot missing/out.svg", dir);
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("--plot"), std::string::npos) << run.err;
}

TEST(CliTrain, ThreadsTakesACountOfAtLeastOne) {
  const auto dir = scratch_dir();
  for (const char* bad : {"0", "-1"})
    expect_bad_input(std::string("--threads ") + bad,
                     std::string("--threads: Expected a number of threads >= 1 (leave it out for "
                                 "one per core), but got ") +
                         bad,
                     dir);
  // The count changes how fast, not what: one thread and two give the same losses.
  const auto one = run_json("--threads 1 --epochs 300 --batch-size 16 --no-plot", dir);
  const auto two = run_json("--threads 2 --epochs 300 --batch-size 16 --no-plot", dir);
  EXPECT_EQ(one["losses"], two["losses"]);
  EXPECT_EQ(one["losses"].size(), 1u);
}

TEST(CliTrain, BadCsvFilesNameFileLineAndColumn) {
  const auto dir = scratch_dir();
  auto write = [&](const char* name, const char* text) { std::ofstream(dir / name) << text; };
  write("empty.csv", "");
  write("ragged.csv", "a,b,label\n1,2,x\n3,y\n");
  write("text.csv", "a,b,label\n1,2,x\n3,oops,y\n");
  write("nolabel.csv", "a,b,label\n1,2,x\n3,4,\n");
  write("oneclass.csv", "a,b,label\n1,2,x\n3,4,x\n5,6,x\n");
  write("tiny.csv", "a,b,label\n1,2,x\n3,4,y\n");
  expect_bad_input("--data nothere.csv", "nothere.csv", dir);
  expect_bad_input("--data empty.csv", "empty.csv", dir);
  expect_bad_input("--data ragged.csv", "ragged.csv:3", dir);
  // Text in a feature column makes a table (train_table.cpp); told numeric, it is refused.
  expect_bad_input("--data text.csv --numeric b",
                   "text.csv:3: column 2 ('b'): Expected a number (--numeric), but got 'oops'",
                   dir);
  expect_bad_input("--data nolabel.csv", "nolabel.csv:3", dir);
  expect_bad_input("--data oneclass.csv", "oneclass.csv", dir);
  expect_bad_input("--data tiny.csv --test-size 0.6",
                   "tiny.csv: Expected enough rows for a train/test split with --test-size 0.6, "
                   "but got 2 rows (2 for testing, 0 for training)",
                   dir);
  expect_bad_input("--data text.csv --label nosuch", "nosuch", dir);
}

TEST(CliTrain, HelpAndVersion) {
  const auto dir = scratch_dir();
  testing::CliRun run = run_cli("train --help", dir);
  EXPECT_EQ(run.status, 0);
  for (const char* option :
       {"--device",     "--epochs",       "--lr",          "--optimizer", "--momentum",  "--hidden",
        "--batch-size", "--record-every", "--print-every", "--seed",      "--test-size", "--scale",
        "--data",       "--label",        "--plot",        "--no-plot",   "--save",      "--resume",
        "--threads",    "--eager",        "--json"})
    EXPECT_NE(run.out.find(option), std::string::npos) << option;
  run = run_cli("--version", dir);
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out.rfind("torchlet ", 0), 0u) << run.out;
  run = run_cli("", dir);
  EXPECT_EQ(run.status, 2);  // a subcommand is required
}

}  // namespace
}  // namespace torchlet
