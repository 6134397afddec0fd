// End-to-end: a checkpoint's metadata is validated, value by value and against its tensors,
// before anything is allocated from it (issue 17, item 9). Each case edits one value of a
// checkpoint `torchlet train` wrote and expects predict (and --resume) to refuse it at once.
#include <cmath>
#include <fstream>
#include <limits>

#include "cli_runner.h"
#include "testing.h"
#include "torchlet/nn/checkpoint.h"

namespace torchlet {
namespace {

namespace fs = std::filesystem;
using testing::expect_refused;
using testing::run_cli;
using testing::scratch_dir;

class CliCheckpointMetadata : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(run_cli("train --epochs 10 --no-plot --save m.safetensors", dir_).status, 0);
    good_ = nn::read_safetensors((dir_ / "m.safetensors").string());
    std::ofstream(dir_ / "x.csv") << "sepal length (cm),sepal width (cm),petal length (cm),"
                                     "petal width (cm)\n5,3,1,0.2\n";
  }

  // Writes bad.safetensors: the good checkpoint with metadata[key] = value.
  void write_with(const std::string& key, const std::string& value) {
    nn::Safetensors edited = good_;
    edited.metadata[key] = value;
    nn::write_safetensors((dir_ / "bad.safetensors").string(), edited.tensors, edited.metadata);
  }

  void expect_predict_refuses(const std::string& message) {
    expect_refused("predict --model bad.safetensors --data x.csv --out p.csv",
                   "bad.safetensors: " + message, dir_, "p.csv");
  }

  fs::path dir_ = scratch_dir();
  nn::Safetensors good_;
};

TEST_F(CliCheckpointMetadata, WidthsTheTensorsDoNotBackAreRefusedBeforeAllocating) {
  write_with("layers", "[4,200000000,3]");
  ASSERT_LT(fs::file_size(dir_ / "bad.safetensors"), 2000u);
  expect_predict_refuses(
      "Expected tensor '0.weight' of shape [200000000, 4] (float32) for metadata 'layers' "
      "[4,200000000,3], but got [10, 4] (float32)");
  write_with("layers", "[4,10.7,3]");
  expect_predict_refuses(
      "Expected metadata 'layers' as a list of at least 2 whole widths in [1, 2147483648], but "
      "got '[4,10.7,3]'");
  write_with("layers", "[4,99999999999,3]");
  expect_predict_refuses(
      "Expected metadata 'layers' as a list of at least 2 whole widths in [1, 2147483648], but "
      "got '[4,99999999999,3]'");
  write_with("layers", "[4,10,3,3]");
  expect_predict_refuses(
      "Expected a tensor '4.weight' for metadata 'layers' [4,10,3,3], but there is none");
}

TEST_F(CliCheckpointMetadata, NumbersMustBeWholeFiniteAndInRange) {
  for (const char* epochs : {"1e30", "\"10\"", "-1", "10.5"}) {
    write_with("epochs", epochs);
    expect_predict_refuses(
        "Expected metadata 'epochs' as a whole number in [0, "
        "9007199254740992], but got '" +
        std::string(epochs) + "'");
  }
  write_with("lr", "NaN");
  expect_predict_refuses("Expected metadata 'lr' as a finite number, but got 'NaN'");
  write_with("scaler_scale", "[1,2,3,1e999]");
  expect_predict_refuses(
      "Expected metadata 'scaler_scale' as a list of finite numbers, but got '[1,2,3,1e999]'");
}

TEST_F(CliCheckpointMetadata, DuplicateNamesAreRefused) {
  write_with("classes", R"(["setosa","setosa","virginica"])");
  expect_predict_refuses(
      "Expected distinct names in metadata 'classes', but 'setosa' appears more than once");
  write_with("features", R"(["a","b","a","c"])");
  expect_predict_refuses(
      "Expected distinct names in metadata 'features', but 'a' appears more than once");
}

TEST_F(CliCheckpointMetadata, NonFiniteWeightsAreRefusedNamingTheTensor) {
  for (const float bad : {std::numeric_limits<float>::infinity(), std::nanf("")}) {
    nn::Safetensors edited = good_;
    for (auto& [name, t] : edited.tensors)
      if (name == "2.bias") {
        std::vector<float> values = t.to_vector<float>();
        values[1] = bad;
        t = tensor(values, t.shape());
      }
    nn::write_safetensors((dir_ / "bad.safetensors").string(), edited.tensors, edited.metadata);
    expect_predict_refuses(std::string("Expected finite weights, but tensor '2.bias' holds ") +
                           (std::isnan(bad) ? "nan" : "inf") + " at index 1");
    expect_refused("train --no-plot --epochs 20 --resume bad.safetensors",
                   std::string("bad.safetensors: Expected finite weights, but tensor '2.bias' "
                               "holds ") +
                       (std::isnan(bad) ? "nan" : "inf") + " at index 1",
                   dir_, "loss.svg");
  }
}

}  // namespace
}  // namespace torchlet
