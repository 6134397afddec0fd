// End-to-end tests of `torchlet train` on images: Fashion-MNIST (a slice of Debian's
// dataset-fashion-mnist; skipped with a message where it is not installed, and .ci/run installs
// it), a crafted MNIST-style folder (no package needed), and the options that do not apply.
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "idx_testing.h"
#include "testing.h"

namespace torchlet {
namespace {

using testing::expect_refused;
using testing::run_cli;
using testing::scratch_dir;

constexpr const char* kFashionDir = "/usr/share/datasets/fashion-mnist";

bool fashion_installed() {
  return std::filesystem::exists(std::string(kFashionDir) + "/train-images-idx3-ubyte.gz");
}

nlohmann::json run_json(const std::string& args, const std::filesystem::path& dir) {
  testing::CliRun run = run_cli("train --json " + args, dir);
  EXPECT_EQ(run.status, 0) << run.err;
  return nlohmann::json::parse(run.out);
}

// A folder with the four MNIST files: n_train and n_test 6x6 images whose class is the row of
// their one bright 2x2 square (so a model can learn it), 3 classes.
void write_squares(const std::filesystem::path& dir, uint32_t n_train, uint32_t n_test) {
  std::filesystem::create_directories(dir);
  auto write_split = [&](const std::string& prefix, uint32_t n) {
    testing::Bytes images(n * 36, 0), labels(n);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t label = i % 3, row = label * 2, col = (i / 3) % 5;
      labels[i] = static_cast<uint8_t>(label);
      for (uint32_t y = row; y < row + 2; ++y)
        for (uint32_t x = col; x < col + 2; ++x) images[i * 36 + y * 6 + x] = 255;
    }
    testing::write_gz((dir / (prefix + "-images-idx3-ubyte.gz")).string(),
                      testing::idx_bytes({n, 6, 6}, images));
    testing::write_plain((dir / (prefix + "-labels-idx1-ubyte")).string(),
                         testing::idx_bytes({n}, labels));
  };
  write_split("train", n_train);
  write_split("t10k", n_test);
}

TEST(CliTrainImages, FashionMnistSliceTrainsTheMlp) {
  if (!fashion_installed()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  const auto dir = scratch_dir();
  const nlohmann::json j = run_json(
      "--data fashion-mnist --model mlp --epochs 2 --train-limit 3000 --test-limit 500 "
      "--plot loss.svg",
      dir);
  EXPECT_EQ(j["model"], "mlp");
  EXPECT_EQ(j["model_description"], "MLP 784-256-128-10");
  EXPECT_EQ(j["train_images"], 3000);
  EXPECT_EQ(j["test_images"], 500);
  EXPECT_EQ(j["image_shape"], nlohmann::json({1, 28, 28}));
  EXPECT_EQ(j["classes"][9], "Ankle boot");
  EXPECT_EQ(j["optimizer"], "adam");
  EXPECT_EQ(j["batch_size"], 64);
  ASSERT_EQ(j["per_epoch"].size(), 2u);
  EXPECT_LT(j["per_epoch"][1]["loss"].get<double>(), j["per_epoch"][0]["loss"].get<double>());
  EXPECT_GT(j["test_acc"].get<double>(), 0.7);  // 10 classes: chance is 0.1
  EXPECT_GT(j["images_per_s"].get<double>(), 0.0);
  EXPECT_TRUE(std::filesystem::exists(dir / "loss.svg"));
}

TEST(CliTrainImages, FashionMnistSliceTrainsTheCnn) {
  if (!fashion_installed()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  const auto dir = scratch_dir();
  const testing::CliRun run = run_cli(
      "train --data fashion-mnist --model cnn --epochs 1 --train-limit 640 --test-limit 200 "
      "--no-plot",
      dir);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("Fashion-MNIST (/usr/share/datasets/fashion-mnist): 640 train / 200 "
                         "test images of 28x28, 10 classes"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("CNN conv 1-32-64 3x3 + 2x2 max-pool, Linear 3136-128-10 (421642 "
                         "parameters), Adam lr 0.001, batches of 64"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("Epoch [1/1], Loss: "), std::string::npos);
  EXPECT_NE(run.out.find("images/s)"), std::string::npos);
  EXPECT_NE(run.out.find("test accuracy: "), std::string::npos);
  EXPECT_NE(run.out.find("Ankle boot"), std::string::npos);  // the report names the classes
}

TEST(CliTrainImages, AnyMnistStyleFolderTrains) {
  const auto dir = scratch_dir();
  write_squares(dir / "squares", 300, 60);
  const nlohmann::json j =
      run_json("--data squares --model cnn --epochs 4 --batch-size 20 --lr 0.01 --no-plot", dir);
  EXPECT_EQ(j["image_shape"], nlohmann::json({1, 6, 6}));
  EXPECT_EQ(j["train_images"], 300);
  EXPECT_EQ(j["model_description"], "CNN conv 1-32-64 3x3 + 2x2 max-pool, Linear 64-128-10");
  EXPECT_GE(j["test_acc"].get<double>(), 0.9) << j.dump();
  const nlohmann::json mlp =
      run_json("--data squares --model mlp --hidden 16 --epochs 10 --lr 0.01 --no-plot", dir);
  EXPECT_EQ(mlp["model_description"], "MLP 36-16-10");
  EXPECT_GE(mlp["test_acc"].get<double>(), 0.9) << mlp.dump();
}

// A NaN loss ends an image run as it ends a table's: exit 3 and the one line (exit 2 before).
TEST(CliTrainImages, ANanLossExitsThree) {
  const auto dir = scratch_dir();
  write_squares(dir / "squares", 60, 20);
  const testing::CliRun run = run_cli(
      "train --data squares --model mlp --hidden 16 --epochs 2 --batch-size 20 --optimizer sgd "
      "--lr 1e30",
      dir);
  EXPECT_EQ(run.status, 3) << run.err;
  EXPECT_EQ(run.err.rfind("torchlet: error: training stopped: the loss became ", 0), 0u) << run.err;
  EXPECT_NE(run.err.find(" in epoch 1. The learning rate is probably too high: try a smaller --lr "
                         "than 1e+30\n"),
            std::string::npos)
      << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "loss.svg"));
}

TEST(CliTrainImages, OptionsThatDoNotApplyAreRefused) {
  const auto dir = scratch_dir();
  write_squares(dir / "squares", 30, 6);
  expect_refused("train --model rnn --data squares", "--model: Expected mlp or cnn, but got 'rnn'",
                 dir, "loss.svg");
  expect_refused("train --model cnn",
                 "--model: Expected mlp with tabular data ('iris'), but got 'cnn' (cnn needs "
                 "images: --data fashion-mnist or a folder)",
                 dir, "loss.svg");
  expect_refused("train --data squares --test-size 0.3",
                 "--test-size: Expected no --test-size with image data ('squares'): image data "
                 "sets keep their official train/test split",
                 dir, "loss.svg");
  expect_refused("train --data squares --save model.safetensors",
                 "--save: Expected no --save with image data ('squares'): it applies to tabular "
                 "(CSV and Iris) training only",
                 dir, "loss.svg");
  expect_refused("train --train-limit 10",
                 "--train-limit: Expected no --train-limit with tabular data ('iris'): it applies "
                 "to image data only",
                 dir, "loss.svg");
  expect_refused("train --data squares --batch-size 31",
                 "--batch-size: Expected a number in [1, 30] (the training images), but got 31",
                 dir, "loss.svg");
  expect_refused("train --data squares --train-limit 0",
                 "--train-limit: Expected a number >= 1, but got 0", dir, "loss.svg");
}

}  // namespace
}  // namespace torchlet
