// In-place arithmetic (add_, sub_, mul_, div_, +=, -=, *=, /=): the values of the out-of-place
// ops written into the tensor's own memory (views see them), PyTorch's rules for shape and
// dtype, and autograd: a leaf that requires grad refused in grad mode, updated in place under
// NoGradGuard, and a recorded op that keeps its gradient.
#include "testing.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::error_of;
using testing::random_tensor;

TEST(InPlace, WritesTheOutOfPlaceValuesIntoTheSameMemory) {
  const Tensor a = random_tensor({2, 3}, 1), b = random_tensor({3}, 2);
  Tensor x = a.clone();
  const float* memory = x.data_ptr<float>();
  x.add_(b, 2.5);
  EXPECT_EQ(x.data_ptr<float>(), memory);
  EXPECT_TRUE(all_close(x.to_vector<float>(), (a + b * 2.5).to_vector<float>()));
  x = a.clone();
  x.sub_(b).mul_(b).div_(3.0);
  EXPECT_TRUE(all_close(x.to_vector<float>(), ((a - b) * b / 3.0).to_vector<float>()));
  Tensor y = a.clone();
  const Tensor alias = y;  // another handle to the same tensor sees the writes
  y += 1.0, y -= b, y *= 2, y /= b;
  EXPECT_TRUE(alias.is_same(y));
  EXPECT_TRUE(all_close(alias.to_vector<float>(), ((a + 1.0 - b) * 2 / b).to_vector<float>()));
}

TEST(InPlace, ViewsOfTheTensorSeeTheWrite) {
  Tensor base = zeros({2, 3});
  Tensor row = base.select(0, 1);
  row += ones({3});
  Tensor column = base.select(1, 2);  // strided
  column.mul_(5.0);
  EXPECT_EQ(base.to_vector<float>(), (std::vector<float>{0, 0, 0, 1, 1, 5}));
}

TEST(InPlace, KeepsTheDtypeAndRefusesAFloatingResultForIntegers) {
  Tensor i = arange(4);
  i.add_(3, 2);  // + 6, still int64
  i *= 2;
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{12, 14, 16, 18}));
  Tensor f = ones({2});
  f += ones({2}, kFloat64) * 0.5;  // computed in float64, written back as float32
  EXPECT_EQ(f.dtype(), kFloat32);
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{1.5f, 1.5f}));
  EXPECT_EQ(error_of([&] { i += 2.5; }),
            "add_: Expected a result that can be cast to this tensor's dtype int64, but got a "
            "result of dtype float32");
  EXPECT_EQ(error_of([&] { i /= 2; }),
            "div_: Expected a result that can be cast to this tensor's dtype int64, but got a "
            "result of dtype float32");
}

TEST(InPlace, OnlyTheOtherOperandBroadcasts) {
  Tensor x = zeros({3});
  EXPECT_EQ(error_of([&] {
              x.add_(ones({2, 3}));
            }),
            "add_: Expected a result of this tensor's shape [3] (only the other operand "
            "broadcasts in place), but got the broadcast shape [2, 3]");
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, 0, 0}));  // nothing written
}

TEST(InPlace, ALeafThatRequiresGradIsUpdatedOnlyWithoutGrad) {
  Tensor w = ones({2}).set_requires_grad(true);
  EXPECT_EQ(error_of([&] { w -= 0.1; }),
            "sub_: Expected a tensor that does not require grad, but got a leaf that requires "
            "grad; change parameters under NoGradGuard");
  (w * w).sum().backward();
  const Tensor handle = w;
  {
    NoGradGuard no_grad;
    w -= w.grad() * 0.25;  // the manual SGD step of PyTorch tutorials
  }
  EXPECT_TRUE(handle.is_same(w));
  EXPECT_TRUE(w.is_leaf() && w.requires_grad());
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{0.5f, 0.5f}));
}

TEST(InPlace, ARecordedOpKeepsItsGradient) {
  Tensor x = random_tensor({3}, 3, true), y = random_tensor({3}, 4, true);
  Tensor h = x * 2.0;
  h += y;
  h *= y;  // h = (2x + y) y
  h.sum().backward();
  const auto yv = y.to_vector<float>(), xv = x.to_vector<float>();
  std::vector<float> dx, dy;
  for (std::size_t i = 0; i < yv.size(); ++i)
    dx.push_back(2 * yv[i]), dy.push_back(2 * xv[i] + 2 * yv[i]);
  EXPECT_TRUE(all_close(x.grad().to_vector<float>(), dx));
  EXPECT_TRUE(all_close(y.grad().to_vector<float>(), dy));
}

}  // namespace
}  // namespace torchlet
