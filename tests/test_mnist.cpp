// load_mnist_dir, fashion_mnist_dir and load_fashion_mnist: a crafted MNIST-style directory
// loads to the right tensors, each missing or inconsistent file is named in its error, and the
// real Fashion-MNIST from Debian's dataset-fashion-mnist loads with known first labels and
// pixel sums (skipped when that package is not installed).
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "idx_testing.h"
#include "testing.h"
#include "torchlet/data/idx.h"

namespace torchlet::data {
namespace {

namespace fs = std::filesystem;
using testing::Bytes;
using testing::error_of;
using testing::idx_bytes;
using testing::iota_bytes;
using testing::ScopedEnv;
using testing::TempFolder;
using testing::write_gz;
using testing::write_plain;

constexpr const char* kDebianDir = "/usr/share/datasets/fashion-mnist";

// A small MNIST-style directory: 5 training and 3 test images of 2 x 3 pixels, the training
// files gzipped and the test files plain (both are allowed).
class MnistDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_gz(dir_ / "train-images-idx3-ubyte.gz", idx_bytes({5, 2, 3}, iota_bytes(30)));
    write_gz(dir_ / "train-labels-idx1-ubyte.gz", idx_bytes({5}, {9, 0, 3, 3, 7}));
    write_plain(dir_ / "t10k-images-idx3-ubyte", idx_bytes({3, 2, 3}, iota_bytes(18, 100)));
    write_plain(dir_ / "t10k-labels-idx1-ubyte", idx_bytes({3}, {1, 2, 8}));
  }
  std::string error(int64_t limit_train = -1, int64_t limit_test = -1) {
    std::string message = error_of([&] { load_mnist_dir(dir_.path(), limit_train, limit_test); });
    for (std::size_t at; (at = message.find(dir_.path())) != std::string::npos;)
      message.replace(at, dir_.path().size(), "DIR");
    return message;
  }

  TempFolder dir_;
};

std::vector<float> scaled(const Bytes& pixels) {
  std::vector<float> out;
  for (uint8_t p : pixels) out.push_back(static_cast<float>(p) / 255.0f);
  return out;
}

TEST_F(MnistDirTest, LoadsImagesAndLabels) {
  const ImageSplit split = load_mnist_dir(dir_.path());
  EXPECT_EQ(split.dir, dir_.path());
  EXPECT_EQ(split.train.images.shape(), Shape({5, 1, 2, 3}));
  EXPECT_EQ(split.train.images.dtype(), kFloat32);
  EXPECT_EQ(split.train.images.to_vector<float>(), scaled(iota_bytes(30)));  // bit for bit
  EXPECT_EQ(split.train.labels.dtype(), kInt64);
  EXPECT_EQ(split.train.labels.to_vector<int64_t>(), (std::vector<int64_t>{9, 0, 3, 3, 7}));
  EXPECT_EQ(split.test.images.shape(), Shape({3, 1, 2, 3}));
  EXPECT_EQ(split.test.images.to_vector<float>(), scaled(iota_bytes(18, 100)));
  EXPECT_EQ(split.test.labels.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 8}));
  EXPECT_EQ(split.class_names,
            (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}));
}

TEST_F(MnistDirTest, LimitsKeepTheFirstSamples) {
  const ImageSplit split = load_mnist_dir(dir_.path(), 2, 7);  // 7 > 3 keeps all three
  EXPECT_EQ(split.train.images.shape(), Shape({2, 1, 2, 3}));
  EXPECT_EQ(split.train.images.to_vector<float>(), scaled(iota_bytes(12)));
  EXPECT_EQ(split.train.labels.to_vector<int64_t>(), (std::vector<int64_t>{9, 0}));
  EXPECT_EQ(split.test.labels.shape(), Shape({3}));
  const ImageSplit none = load_mnist_dir(dir_.path(), 0, 1);
  EXPECT_EQ(none.train.images.shape(), Shape({0, 1, 2, 3}));
  EXPECT_EQ(none.train.labels.shape(), Shape({0}));
  EXPECT_EQ(none.test.labels.to_vector<int64_t>(), (std::vector<int64_t>{1}));
  EXPECT_EQ(error(-2), "load_mnist_dir: Expected limit_train >= 0, or -1 for all, but got -2");
  EXPECT_EQ(error(-1, -3), "load_mnist_dir: Expected limit_test >= 0, or -1 for all, but got -3");
}

TEST_F(MnistDirTest, MissingFileNamesTheDirectoryAndTheFile) {
  fs::remove(dir_ / "t10k-labels-idx1-ubyte");
  EXPECT_EQ(error(),
            "DIR: Missing t10k-labels-idx1-ubyte (or t10k-labels-idx1-ubyte.gz); an MNIST-style "
            "directory holds train-images-idx3-ubyte, train-labels-idx1-ubyte, "
            "t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte, each plain or gzipped");
  const std::string nowhere = dir_ / "nowhere";
  EXPECT_EQ(error_of([&] { load_mnist_dir(nowhere); }),
            nowhere +
                ": No such directory; expected a directory holding the four MNIST-style "
                "IDX files");
}

TEST_F(MnistDirTest, LabelOutOfRangeNamesFileIndexAndValue) {
  write_gz(dir_ / "train-labels-idx1-ubyte.gz", idx_bytes({5}, {9, 0, 3, 10, 7}));
  EXPECT_EQ(error(),
            "DIR/train-labels-idx1-ubyte.gz: Expected labels in [0, 10), but label 3 (counting "
            "from 0) is 10");
}

TEST_F(MnistDirTest, ShapesAndCountsMustAgree) {
  write_plain(dir_ / "t10k-images-idx3-ubyte", idx_bytes({3, 6}, iota_bytes(18)));
  EXPECT_EQ(error(),
            "DIR/t10k-images-idx3-ubyte: Expected images with 3 dimensions [count, rows, cols], "
            "but found 2: [3, 6]");
  write_plain(dir_ / "t10k-images-idx3-ubyte", idx_bytes({4, 2, 3}, iota_bytes(24)));
  EXPECT_EQ(error(),
            "Expected as many images as labels, but DIR/t10k-images-idx3-ubyte has 4 images and "
            "DIR/t10k-labels-idx1-ubyte has 3 labels");
  write_plain(dir_ / "t10k-labels-idx1-ubyte", idx_bytes({3, 1}, {1, 2, 3}));
  EXPECT_EQ(error(),
            "DIR/t10k-labels-idx1-ubyte: Expected labels with 1 dimension [count], but found 2: "
            "[3, 1]");
}

TEST_F(MnistDirTest, DamagedImagesNameTheFileEvenWithALimit) {
  // The limit keeps 1 image, but the whole file is still checked.
  write_gz(dir_ / "train-images-idx3-ubyte.gz", idx_bytes({5, 2, 3}, iota_bytes(29)));
  EXPECT_EQ(error(1),
            "DIR/train-images-idx3-ubyte.gz: Truncated: expected 30 data bytes [5, 2, 3] after "
            "the 16-byte header, found 29");
}

TEST_F(MnistDirTest, FashionMnistDirFollowsTheEnvironment) {
  {
    ScopedEnv env("TORCHLET_FASHION_MNIST_DIR", dir_.path().c_str());
    EXPECT_EQ(fashion_mnist_dir(), dir_.path());
    const ImageSplit split = load_fashion_mnist(3, 2);
    EXPECT_EQ(split.train.labels.to_vector<int64_t>(), (std::vector<int64_t>{9, 0, 3}));
    EXPECT_EQ(split.class_names, fashion_mnist_class_names());
    EXPECT_EQ(split.class_names[9], "Ankle boot");
  }
  fs::remove(dir_ / "train-images-idx3-ubyte.gz");
  ScopedEnv env("TORCHLET_FASHION_MNIST_DIR", dir_.path().c_str());
  EXPECT_EQ(error_of([] { fashion_mnist_dir(); }),
            "Fashion-MNIST is not installed: expected it in " + dir_.path() +
                " (from TORCHLET_FASHION_MNIST_DIR); install it with `apt install "
                "dataset-fashion-mnist`, or pass --data DIR with the four MNIST-style IDX files");
}

TEST(FashionMnistTest, NotInstalledMessageNamesTheDebianPackage) {
  if (fs::exists(kDebianDir)) GTEST_SKIP() << kDebianDir << " exists, so nothing is missing";
  ScopedEnv env("TORCHLET_FASHION_MNIST_DIR", nullptr);
  EXPECT_EQ(error_of([] { fashion_mnist_dir(); }),
            "Fashion-MNIST is not installed: expected it in /usr/share/datasets/fashion-mnist; "
            "install it with `apt install dataset-fashion-mnist`, or pass --data DIR with the "
            "four MNIST-style IDX files");
}

// The facts below were read from the files with Python's gzip module: the first labels, the
// pixel sum of the first image of each part and of the first 1000 training images.
TEST(FashionMnistTest, LoadsTheDebianPackage) {
  if (!fs::exists(std::string(kDebianDir) + "/train-images-idx3-ubyte.gz"))
    GTEST_SKIP() << "Fashion-MNIST is not installed in " << kDebianDir
                 << " (apt install dataset-fashion-mnist)";
  ScopedEnv env("TORCHLET_FASHION_MNIST_DIR", nullptr);
  EXPECT_EQ(fashion_mnist_dir(), kDebianDir);
  const ImageSplit split = load_fashion_mnist(1000, 500);
  EXPECT_EQ(split.dir, kDebianDir);
  EXPECT_EQ(split.train.images.shape(), Shape({1000, 1, 28, 28}));
  EXPECT_EQ(split.train.labels.shape(), Shape({1000}));
  EXPECT_EQ(split.test.images.shape(), Shape({500, 1, 28, 28}));
  EXPECT_EQ(split.test.labels.shape(), Shape({500}));
  EXPECT_EQ(split.class_names[split.train.labels.to_vector<int64_t>()[0]], "Ankle boot");

  const std::vector<int64_t> train_labels = split.train.labels.to_vector<int64_t>();
  const std::vector<int64_t> test_labels = split.test.labels.to_vector<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(train_labels.begin(), train_labels.begin() + 10),
            (std::vector<int64_t>{9, 0, 0, 3, 0, 2, 7, 2, 5, 5}));
  EXPECT_EQ(std::vector<int64_t>(test_labels.begin(), test_labels.begin() + 10),
            (std::vector<int64_t>{9, 2, 1, 1, 6, 1, 4, 6, 5, 7}));
  for (int64_t label : train_labels) ASSERT_TRUE(label >= 0 && label < 10) << label;
  for (int64_t label : test_labels) ASSERT_TRUE(label >= 0 && label < 10) << label;

  const std::vector<float> train = split.train.images.to_vector<float>();
  const std::vector<float> test = split.test.images.to_vector<float>();
  // Pixel sums back in bytes: each value is p / 255, so round(value * 255) is p.
  const auto byte_sum = [](const std::vector<float>& v, std::size_t n) {
    int64_t sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_TRUE(v[i] >= 0.0f && v[i] <= 1.0f) << "pixel " << i << " is " << v[i];
      sum += std::lround(v[i] * 255.0f);
    }
    return sum;
  };
  EXPECT_EQ(byte_sum(train, 784), 76247);
  EXPECT_EQ(byte_sum(train, train.size()), 56558003);
  EXPECT_EQ(byte_sum(test, 784), 33456);
  EXPECT_EQ(train[417], 1.0f);  // the first image's brightest pixel, 255
}

}  // namespace
}  // namespace torchlet::data
