// End-to-end tests of `torchlet predict` on models from `torchlet train --save`: the output
// CSV, probabilities bit-identical to the same model and scaler run in-process, columns found
// by name, and bad data or model files reported by file and line with exit status 2.
#include <cstdlib>
#include <sstream>

#include "cli_runner.h"
#include "testing.h"
#include "torchlet/data/csv.h"
#include "torchlet/nn/checkpoint.h"

namespace torchlet {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::run_cli;
using testing::scratch_dir;

std::vector<std::vector<std::string>> parse_rows(const std::string& csv) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
    rows.push_back(fields);
  }
  return rows;
}

// Trains on Iris with `options` and saves m.safetensors in dir.
void train(const fs::path& dir, const std::string& options) {
  const testing::CliRun run =
      run_cli("train --epochs 500 --no-plot --save m.safetensors " + options, dir);
  ASSERT_EQ(run.status, 0) << run.err;
}

// The probabilities the saved model gives the Iris rows, computed here: the same split and
// scaler as training, the weights loaded with nn::load.
std::vector<float> expected_probabilities(const fs::path& dir, const std::string& scale) {
  const data::Dataset iris = data::load_iris();
  const data::Split split = data::train_test_split(iris.X, iris.y, 0.2, 42);
  Tensor X = iris.X;
  if (scale == "minmax") X = data::MinMaxScaler().fit(split.X_train).transform(iris.X);
  if (scale == "standard") X = data::StandardScaler().fit(split.X_train).transform(iris.X);
  nn::Sequential model;
  model.add<nn::Linear>(4, 10);
  model.add<nn::ReLU>();
  model.add<nn::Linear>(10, 3);
  nn::load(model, (dir / "m.safetensors").string());
  NoGradGuard no_grad;
  return model(X).softmax(1).to_vector<float>();
}

TEST(CliPredict, LabelsEveryRowWithTheSavedScalerAndTheModelsProbabilities) {
  const auto dir = scratch_dir();
  data::write_csv((dir / "iris.csv").string(), data::load_iris());
  for (const std::string scale : {"minmax", "standard", "none"}) {
    train(dir, "--scale " + scale);
    const testing::CliRun run = run_cli("predict --model m.safetensors --data iris.csv", dir);
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.err, "");
    const auto rows = parse_rows(run.out);
    ASSERT_EQ(rows.size(), 151u) << run.out;
    EXPECT_EQ(rows[0], (std::vector<std::string>{"class", "prob_setosa", "prob_versicolor",
                                                 "prob_virginica"}));
    const std::vector<float> want = expected_probabilities(dir, scale);
    const char* names[] = {"setosa", "versicolor", "virginica"};
    for (std::size_t r = 0; r < 150; ++r) {
      ASSERT_EQ(rows[r + 1].size(), 4u) << r;
      std::size_t best = 0;
      for (std::size_t k = 0; k < 3; ++k) {
        // The shortest text that reads back as the same float32: exact.
        EXPECT_EQ(std::strtof(rows[r + 1][k + 1].c_str(), nullptr), want[r * 3 + k])
            << scale << " row " << r << " class " << k;
        if (want[r * 3 + k] > want[r * 3 + best]) best = k;
      }
      EXPECT_EQ(rows[r + 1][0], names[best]) << scale << " row " << r;
    }
  }
}

TEST(CliPredict, FindsTheFeaturesByNameWithOrWithoutALabelAndWritesOutAtomically) {
  const auto dir = scratch_dir();
  train(dir, "");
  std::ofstream(dir / "with_label.csv")
      << "sepal length (cm),sepal width (cm),petal length (cm),petal width (cm),label\n"
         "5.1,3.5,1.4,0.2,setosa\n6.7,3.0,5.2,2.3,virginica\n";
  std::ofstream(dir / "shuffled.csv")
      << "id,petal width (cm),\"sepal length (cm)\",petal length (cm),sepal width (cm)\r\n"
         "a,0.2,5.1,1.4,3.5\r\n\r\nb,2.3,6.7,5.2,3.0\r\n";
  const testing::CliRun with_label =
      run_cli("predict --model m.safetensors --data with_label.csv", dir);
  ASSERT_EQ(with_label.status, 0) << with_label.err;
  EXPECT_EQ(parse_rows(with_label.out).size(), 3u);
  const testing::CliRun shuffled =
      run_cli("predict --model m.safetensors --data shuffled.csv --out p.csv", dir);
  ASSERT_EQ(shuffled.status, 0) << shuffled.err;
  EXPECT_EQ(shuffled.out, "predictions: 2 rows of shuffled.csv written to p.csv\n");
  EXPECT_EQ(read_text(dir / "p.csv"), with_label.out);
}

// One line on stderr naming `message`, exit status 2, and no output file.
void expect_bad_input(const std::string& args, const std::string& message, const fs::path& dir) {
  testing::expect_refused("predict --out out.csv " + args, message, dir, "out.csv");
}

TEST(CliPredict, BadRowsAreReportedByLine) {
  const auto dir = scratch_dir();
  train(dir, "");
  const std::string header =
      "sepal length (cm),sepal width (cm),petal length (cm),petal width (cm)\n";
  auto write = [&](const char* name, const std::string& text) {
    std::ofstream(dir / name) << text;
  };
  write("ragged.csv", header + "5.1,3.5,1.4,0.2\n\n6.7,3.0,5.2\n");
  write("text.csv", header + "5.1,3.5,1.4,0.2\n6.7,abc,5.2,2.3\n");
  write("blank.csv", header + "5.1,,1.4,0.2\n");
  write("huge.csv", header + "5.1,1e39,1.4,0.2\n");
  write("quote.csv", header + "5.1,\"3.5,1.4,0.2\n");
  write("columns.csv", "sepal length (cm),petal width (cm),label\n1,2,x\n");
  write("twice.csv",
        "sepal length (cm),sepal width (cm),petal length (cm),petal width (cm),"
        "sepal width (cm)\n1,2,3,4,5\n");
  write("empty.csv", "");
  write("header.csv", header);
  const std::string m = "--model m.safetensors --data ";
  expect_bad_input(m + "ragged.csv", "ragged.csv:4: Expected 4 fields as in the header, but got 3",
                   dir);
  expect_bad_input(m + "text.csv",
                   "text.csv:3: column 2 ('sepal width (cm)'): Expected a number, but got 'abc'",
                   dir);
  expect_bad_input(m + "blank.csv",
                   "blank.csv:2: column 2 ('sepal width (cm)'): Expected a number, but got an "
                   "empty field",
                   dir);
  expect_bad_input(m + "huge.csv",
                   "huge.csv:2: column 2 ('sepal width (cm)'): Expected a finite number "
                   "(float32), but got '1e39'",
                   dir);
  expect_bad_input(m + "quote.csv",
                   "quote.csv:2: column 2: Expected a closing quote, but the file ends inside "
                   "the quoted field",
                   dir);
  expect_bad_input(m + "columns.csv",
                   "columns.csv:1: Expected a header naming the model's features 'sepal length "
                   "(cm)', 'sepal width (cm)', 'petal length (cm)', 'petal width (cm)', but it "
                   "has no 'sepal width (cm)', 'petal length (cm)'",
                   dir);
  expect_bad_input(m + "twice.csv",
                   "twice.csv:1: Expected the feature column 'sepal width (cm)' once, but it "
                   "appears twice",
                   dir);
  expect_bad_input(m + "empty.csv",
                   "empty.csv: Expected a header row and at least one data row, but the file is "
                   "empty",
                   dir);
  expect_bad_input(m + "header.csv",
                   "header.csv: Expected a header row and at least one data row, but got only "
                   "the header",
                   dir);
  expect_bad_input(m + "none.csv", "none.csv: Cannot open the file: No such file or directory",
                   dir);
}

TEST(CliPredict, BadModelFilesAndOptions) {
  const auto dir = scratch_dir();
  train(dir, "");
  std::ofstream(dir / "data.csv") << "a,b\n1,2\n";
  nn::Sequential bare;
  bare.add<nn::Linear>(2, 2);
  nn::save(bare, (dir / "bare.safetensors").string());
  expect_bad_input("--model bare.safetensors --data data.csv",
                   "bare.safetensors: Expected a model saved by 'torchlet train --save', but its "
                   "metadata has no 'layers'",
                   dir);
  expect_bad_input("--model data.csv --data data.csv",
                   "data.csv: Expected a header length of at most 0 bytes (the file's size after "
                   "the length), but got 734698278354037857 (a truncated file, or not a "
                   "safetensors file)",
                   dir);
  expect_bad_input("--model none.safetensors --data data.csv",
                   "none.safetensors: Cannot open the file: No such file or directory", dir);
  testing::CliRun run =
      run_cli("predict --model m.safetensors --data data.csv --out no/p.csv", dir);
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.err,
            "torchlet: error: --out: Expected a path in an existing folder, but the folder 'no' "
            "of 'no/p.csv' does not exist\n");
  run = run_cli("predict --help", dir);
  EXPECT_EQ(run.status, 0);
  for (const char* option : {"--model", "--data", "--out"})
    EXPECT_NE(run.out.find(option), std::string::npos) << option;
  run = run_cli("predict --data data.csv", dir);
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("--model is required"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace torchlet
