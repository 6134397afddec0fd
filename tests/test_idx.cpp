// read_idx: crafted IDX files (plain and gzipped) read back exactly, and every way a file can
// be wrong gives an error naming the file and what was expected and found. The MNIST-style
// loaders built on it are tested in test_mnist.cpp.
#include <cstdint>
#include <string>
#include <vector>

#include "idx_testing.h"
#include "testing.h"
#include "torchlet/data/idx.h"

namespace torchlet::data {
namespace {

using testing::Bytes;
using testing::error_of;
using testing::idx_bytes;
using testing::iota_bytes;
using testing::TempFolder;
using testing::write_gz;
using testing::write_plain;

class IdxTest : public ::testing::Test {
 protected:
  // The error read_idx throws for a file holding `bytes`, the folder left out of its paths.
  std::string error_for(const Bytes& bytes, bool gzipped = false) {
    const std::string path = dir_ / "f.idx";
    gzipped ? write_gz(path, bytes) : write_plain(path, bytes);
    return without_dir(error_of([&] { read_idx(path); }));
  }
  std::string without_dir(std::string message) const {
    for (std::size_t at; (at = message.find(dir_.path() + "/")) != std::string::npos;)
      message.erase(at, dir_.path().size() + 1);
    return message;
  }

  TempFolder dir_;
};

TEST_F(IdxTest, ReadsPlainFile) {
  write_plain(dir_ / "a", idx_bytes({2, 3}, {0, 1, 2, 253, 254, 255}));
  const IdxArray a = read_idx(dir_ / "a");
  EXPECT_EQ(a.dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.data, (Bytes{0, 1, 2, 253, 254, 255}));
}

TEST_F(IdxTest, ReadsGzippedFileWithOneToFourDimensions) {
  const std::vector<std::vector<uint32_t>> shapes = {{7}, {3, 5}, {2, 3, 4}, {1, 2, 3, 5}};
  for (const auto& dims : shapes) {
    std::size_t n = 1;
    for (uint32_t d : dims) n *= d;
    write_gz(dir_ / "a.gz", idx_bytes(dims, iota_bytes(n, 3)));
    const IdxArray a = read_idx(dir_ / "a.gz");
    EXPECT_EQ(a.dims, std::vector<int64_t>(dims.begin(), dims.end()));
    EXPECT_EQ(a.data, iota_bytes(n, 3));
  }
}

TEST_F(IdxTest, WrongMagicSaysExpectedAndFound) {
  EXPECT_EQ(error_for({0x12, 0x34, 0x56, 0x78, 0, 0, 0, 1, 9}),
            "f.idx: Not an IDX file: expected the IDX magic 0x0000 08 0N (N = 1 to 4 dimensions), "
            "found 0x12345678");
  EXPECT_EQ(error_for(idx_bytes({1, 1, 1, 1, 1}, {9})),  // five dimensions
            "f.idx: Not an IDX file: expected the IDX magic 0x0000 08 0N (N = 1 to 4 dimensions), "
            "found 0x00000805");
  EXPECT_EQ(error_for(idx_bytes({}, {})),
            "f.idx: Not an IDX file: expected the IDX magic 0x0000 08 0N (N = 1 to 4 dimensions), "
            "found 0x00000800");
  EXPECT_EQ(error_for({0, 0}),
            "f.idx: Not an IDX file: expected the IDX magic 0x0000 08 0N (N = 1 to 4 dimensions), "
            "found only 2 bytes");
  EXPECT_EQ(error_for({}, /*gzipped=*/true),
            "f.idx: Not an IDX file: expected the IDX magic 0x0000 08 0N (N = 1 to 4 dimensions), "
            "found only 0 bytes");
}

TEST_F(IdxTest, OnlyUnsignedBytesAreSupported) {
  EXPECT_EQ(error_for(idx_bytes({1}, {0, 0, 0, 0}, 0x0D)),
            "f.idx: Expected the IDX element type 0x08 (unsigned byte), the only one supported, "
            "but found 0x0d (32-bit float)");
  EXPECT_EQ(error_for(idx_bytes({1}, {0}, 0x42)),
            "f.idx: Expected the IDX element type 0x08 (unsigned byte), the only one supported, "
            "but found 0x42 (not an IDX type)");
}

TEST_F(IdxTest, TruncatedHeaderAndData) {
  Bytes header = idx_bytes({60000, 28, 28}, {});
  header.resize(10);
  EXPECT_EQ(
      error_for(header),
      "f.idx: Truncated header: expected 16 bytes (the magic and 3 dimension sizes), found 10");
  EXPECT_EQ(error_for(idx_bytes({4, 5}, iota_bytes(17))),
            "f.idx: Truncated: expected 20 data bytes [4, 5] after the 12-byte header, found 17");
  EXPECT_EQ(error_for(idx_bytes({4, 5}, iota_bytes(3)), /*gzipped=*/true),
            "f.idx: Truncated: expected 20 data bytes [4, 5] after the 12-byte header, found 3");
}

TEST_F(IdxTest, TrailingBytesAreAnError) {
  EXPECT_EQ(
      error_for(idx_bytes({2, 2}, iota_bytes(9))),
      "f.idx: Expected the file to end after its 4 data bytes [2, 2], but found 5 more bytes");
  EXPECT_EQ(error_for(idx_bytes({3}, iota_bytes(4)), /*gzipped=*/true),
            "f.idx: Expected the file to end after its 3 data bytes [3], but found 1 more bytes");
}

TEST_F(IdxTest, HugeDimensionsAreRefusedBeforeAllocating) {
  EXPECT_EQ(error_for(idx_bytes({0x7fffffff, 0x7fffffff}, {1, 2, 3})),
            "f.idx: The header's dimensions [2147483647, 2147483647] hold more than 2147483648 "
            "elements, the most accepted (the header is probably damaged)");
  EXPECT_EQ(error_for(idx_bytes({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {})),
            "f.idx: The header's dimensions [4294967295, 4294967295, 4294967295, 4294967295] hold "
            "more than 2147483648 elements, the most accepted (the header is probably damaged)");
  // Exactly the limit is accepted by the header check; the missing data is then reported
  // without the 2 GiB having been allocated.
  EXPECT_EQ(error_for(idx_bytes({32768, 65536}, {1, 2})),
            "f.idx: Truncated: expected 2147483648 data bytes [32768, 65536] after the 12-byte "
            "header, found 2");
}

TEST_F(IdxTest, ZeroSizedDimensionIsAnError) {
  EXPECT_EQ(error_for(idx_bytes({3, 0, 2}, {})),
            "f.idx: Expected every dimension size to be at least 1, but dimension 1 of [3, 0, 2] "
            "is 0");
}

TEST_F(IdxTest, MissingFileAndDirectory) {
  EXPECT_EQ(without_dir(error_of([&] { read_idx(dir_ / "nope"); })),
            "nope: Cannot open the file: No such file or directory");
  EXPECT_EQ(without_dir(error_of([&] { read_idx(dir_.path()); })),
            dir_.path() + ": Expected a regular file, but it is a folder");
}

TEST_F(IdxTest, CorruptGzipGivesZlibsMessage) {
  const std::string path = dir_ / "f.gz";
  write_gz(path, idx_bytes({100}, iota_bytes(100)));
  std::string bytes = testing::read_text(path);
  ASSERT_GT(bytes.size(), 20u);

  std::string bad_crc = bytes;
  bad_crc[bad_crc.size() - 8] ^= 0x5a;  // the trailer's CRC-32 of the data
  write_plain(path, Bytes(bad_crc.begin(), bad_crc.end()));
  EXPECT_EQ(without_dir(error_of([&] { read_idx(path); })),
            "f.gz: Cannot read the file (damaged gzip stream?): incorrect data check");

  std::string bad_block = bytes;
  bad_block[10] = '\xff';  // the first deflate block: block type 3 does not exist
  write_plain(path, Bytes(bad_block.begin(), bad_block.end()));
  EXPECT_EQ(without_dir(error_of([&] { read_idx(path); })),
            "f.gz: Cannot read the file (damaged gzip stream?): invalid block type");

  write_plain(path, Bytes(bytes.begin(), bytes.begin() + bytes.size() / 2));  // cut short
  EXPECT_EQ(without_dir(error_of([&] { read_idx(path); })),
            "f.gz: Cannot read the file (damaged gzip stream?): unexpected end of file");
}

}  // namespace
}  // namespace torchlet::data
