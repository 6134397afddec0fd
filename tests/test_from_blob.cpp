// from_blob: tensors over caller-owned memory share it both ways, run the deleter once when
// the last view dies, follow given strides, and refuse bad strides.
#include "testing.h"
#include "torchlet/from_blob.h"

namespace torchlet {
namespace {

using testing::error_of;

TEST(FromBlob, SharesMemoryBothWays) {
  std::vector<float> buffer = {1, 2, 3, 4, 5, 6};
  Tensor t = from_blob(buffer.data(), {2, 3});
  EXPECT_EQ(t.shape(), Shape({2, 3}));
  EXPECT_EQ(t.dtype(), kFloat32);
  buffer[4] = 50.0f;
  EXPECT_EQ(t.to_vector<float>(), std::vector<float>({1, 2, 3, 4, 50, 6}));
  t.fill_(7.0);
  EXPECT_EQ(buffer, std::vector<float>(6, 7.0f));
  Tensor sum = t + t;  // ops read it like any tensor
  EXPECT_EQ(sum.to_vector<float>(), std::vector<float>(6, 14.0f));
}

TEST(FromBlob, DeleterRunsOnceWhenTheLastViewDies) {
  std::vector<double> buffer = {0.5, 1.5, 2.5};
  int calls = 0;
  void* freed = nullptr;
  Tensor view;
  {
    auto deleter = [&](void* p) {
      ++calls;
      freed = p;
    };
    Tensor t = from_blob(buffer.data(), {3}, deleter, kFloat64);
    EXPECT_EQ(t.dtype(), kFloat64);
    view = t.slice(0, 1, 3);
  }
  EXPECT_EQ(calls, 0);  // the slice still sees the memory
  EXPECT_EQ(view.to_vector<double>(), std::vector<double>({1.5, 2.5}));
  view = Tensor();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(freed, buffer.data());
}

TEST(FromBlob, FollowsStrides) {
  // A 3x2 view of the first column pairs of a 3x4 int64 buffer: rows 4 apart, columns 2 apart.
  std::vector<int64_t> buffer = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  Tensor t = from_blob(buffer.data(), {3, 2}, {4, 2}, {}, kInt64);
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.to_vector<int64_t>(), std::vector<int64_t>({0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(t.sum().item<int64_t>(), 30);
  Tensor empty = from_blob(nullptr, {0, 3}, {});
  EXPECT_EQ(empty.numel(), 0);
}

TEST(FromBlob, RefusesBadStrides) {
  float value = 1.0f;
  EXPECT_EQ(error_of([&] {
              from_blob(&value, {1, 1}, {1}, {});
            }),
            "from_blob: Expected 2 strides for shape [1, 1], but got 1");
  EXPECT_EQ(error_of([&] { from_blob(&value, {1}, {-1}, {}); }),
            "from_blob: Expected non-negative strides, but got strides [-1]");
  EXPECT_EQ(error_of([] { from_blob(nullptr, {2}); }),
            "from_blob: Expected a data pointer, but got nullptr for shape [2]");
}

}  // namespace
}  // namespace torchlet
