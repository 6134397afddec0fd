// Device, DType, Shape and Tensor basics: parsing, factories, conversions, views that share
// storage, reading values back, and autograd bookkeeping.
#include "testing.h"

namespace torchlet {
namespace {

TEST(Device, ParsesAndPrints) {
  EXPECT_EQ(Device("cpu").type(), DeviceType::CPU);
  EXPECT_EQ(Device("cpu").index(), -1);
  EXPECT_FALSE(Device("cpu").is_cuda());
  Device d("cuda:1");
  EXPECT_TRUE(d.is_cuda());
  EXPECT_EQ(d.index(), 1);
  EXPECT_EQ(d.str(), "cuda:1");
  EXPECT_EQ(Device("cuda"), Device(DeviceType::CUDA, 0));
  EXPECT_EQ(Device(DeviceType::CUDA, 0).str(), "cuda:0");
  EXPECT_EQ(Device(DeviceType::CPU), kCPU);
  EXPECT_FALSE(Device("cuda:0") == Device("cuda:1"));
}

TEST(Device, CpuOnlyBuildHasNoCuda) {
  EXPECT_FALSE(cuda::is_available());
  EXPECT_EQ(cuda::device_count(), 0);
}

TEST(Factories, ShapesDtypesAndValues) {
  Tensor z = zeros({2, 3});
  EXPECT_EQ(z.shape(), Shape({2, 3}));
  EXPECT_EQ(z.dim(), 2);
  EXPECT_EQ(z.size(-1), 3);
  EXPECT_EQ(z.numel(), 6);
  EXPECT_EQ(z.dtype(), kFloat32);
  EXPECT_EQ(z.device(), kCPU);
  EXPECT_EQ(z.to_vector<float>(), std::vector<float>(6, 0.0f));
  EXPECT_EQ(ones({4}, kInt64).to_vector<int64_t>(), std::vector<int64_t>(4, 1));
  EXPECT_EQ(full({2}, 2.5).to_vector<float>(), (std::vector<float>{2.5f, 2.5f}));
  EXPECT_EQ(arange(5).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(arange(1, 8, 3).to_vector<int64_t>(), (std::vector<int64_t>{1, 4, 7}));
  EXPECT_EQ(arange(3, kFloat32).to_vector<float>(), (std::vector<float>{0, 1, 2}));
}

// Numbers from torch.arange (PyTorch 1.13): a floating bound or step gives float32 values,
// ceil((end - start) / step) of them, each start + i * step computed in double.
TEST(Tensor, ArangeWithFloatingBoundsOrStepIsFloat32AsPyTorchs) {
  const Tensor tenths = arange(0, 1, 0.1);
  EXPECT_EQ(tenths.dtype(), kFloat32);
  std::vector<float> want;
  for (int i = 0; i < 10; ++i) want.push_back(static_cast<float>(i * 0.1));
  EXPECT_EQ(tenths.to_vector<float>(), want);  // torch.arange(0, 1, 0.1): 10 values, 0.9 last
  EXPECT_EQ(arange(1, 2.5, 0.5).to_vector<float>(), (std::vector<float>{1.0f, 1.5f, 2.0f}));
  EXPECT_EQ(arange(2.5).to_vector<float>(), (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(arange(1.0, -1.0, -0.5, kFloat64).to_vector<double>(),
            (std::vector<double>{1.0, 0.5, 0.0, -0.5}));
  EXPECT_EQ(arange(1.0, 1.0).numel(), 0);
  EXPECT_EQ(testing::error_of([] { arange(3.0, 1.0); }),
            "arange: Expected end >= start for a positive step, but got start 3, end 1, step 1");
  EXPECT_EQ(testing::error_of([] { arange(0, 4, -1); }),
            "arange: Expected end <= start for a negative step, but got start 0, end 4, step -1");
  EXPECT_EQ(arange(0, 5).dtype(), kInt64);  // integer bounds stay int64
  EXPECT_EQ(testing::error_of([] { arange(0.0, 1.0, 0.0); }),
            "arange: Expected a non-zero step, but got 0");
  EXPECT_EQ(tensor({0, 2, 1}).dtype(), kInt64);
  EXPECT_EQ(tensor({0.5, 1.0}).dtype(), kFloat32);
  EXPECT_EQ(tensor({1.0f, 2.0f, 3.0f, 4.0f}, {2, 2}).shape(), Shape({2, 2}));
}

TEST(Factories, RandomIsSeededAndInRange) {
  manual_seed(7);
  const auto a = rand({1000}).to_vector<float>();
  const auto n1 = randn({1000}).to_vector<float>();
  manual_seed(7);
  EXPECT_EQ(rand({1000}).to_vector<float>(), a);
  EXPECT_EQ(randn({1000}).to_vector<float>(), n1);
  double mean = 0, var = 0;
  for (float v : a) EXPECT_TRUE(v >= 0.0f && v < 1.0f);
  for (float v : n1) mean += v / 1000.0;
  for (float v : n1) var += (v - mean) * (v - mean) / 1000.0;
  EXPECT_NEAR(mean, 0.0, 0.1);
  EXPECT_NEAR(var, 1.0, 0.15);
}

TEST(Tensor, HandlesShareStorage) {
  Tensor a = zeros({3});
  Tensor b = a;  // a handle copy, as in PyTorch
  b.fill_(4.0);
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{4, 4, 4}));
  Tensor c = a.clone();
  c.fill_(1.0);
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{4, 4, 4}));
  EXPECT_TRUE(a.is_same(b));
  EXPECT_FALSE(a.is_same(c));
}

TEST(Tensor, ToReturnsSameTensorWhenNothingChanges) {
  Tensor a = ones({2});
  EXPECT_TRUE(a.to(kCPU).is_same(a));
  EXPECT_TRUE(a.to(kFloat32).is_same(a));
  Tensor i = tensor({1.7f, -2.2f}).to(kInt64);
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{1, -2}));  // truncation, as PyTorch
  EXPECT_EQ(tensor({0, 3}).to(kBool).to_vector<bool>(), (std::vector<bool>{false, true}));
}

TEST(Tensor, ItemAndToVector) {
  EXPECT_FLOAT_EQ(tensor({2.5f}).item(), 2.5f);
  EXPECT_EQ(tensor({7}).item<int64_t>(), 7);
  EXPECT_EQ(tensor({3}).item<float>(), 3.0f);
  EXPECT_EQ(tensor({1.5f, 2.0f}).to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
}

TEST(Tensor, RowSlicingAndTransposeAreViews) {
  Tensor x = arange(12, kFloat32).reshape({4, 3});
  Tensor rows = x.slice(0, 1, 3);
  EXPECT_EQ(rows.shape(), Shape({2, 3}));
  EXPECT_TRUE(rows.is_contiguous());
  EXPECT_EQ(rows.to_vector<float>(), (std::vector<float>{3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(x.slice(0, -1, 100).to_vector<float>(), (std::vector<float>{9, 10, 11}));
  EXPECT_EQ(x.narrow(1, 1, 1).to_vector<float>(), (std::vector<float>{1, 4, 7, 10}));
  Tensor t = x.t();
  EXPECT_EQ(t.shape(), Shape({3, 4}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.slice(0, 0, 1).to_vector<float>(), (std::vector<float>{0, 3, 6, 9}));
  rows.fill_(-1.0);  // writes through the view
  EXPECT_EQ(x.slice(0, 1, 2).to_vector<float>(), (std::vector<float>{-1, -1, -1}));
  t.slice(1, 0, 1).fill_(5.0);  // a strided write
  EXPECT_EQ(x.slice(0, 0, 1).to_vector<float>(), (std::vector<float>{5, 5, 5}));
}

TEST(Tensor, CopyConvertsDtype) {
  Tensor dst = zeros({3});
  dst.copy_(tensor({1, 2, 3}));
  EXPECT_EQ(dst.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  Tensor strided = zeros({3, 2}).t();
  strided.copy_(tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}, {2, 3}));
  EXPECT_EQ(strided.contiguous().to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(Autograd, AccumulatesIntoLeaves) {
  Tensor w = tensor({1.0f, 2.0f}).requires_grad_();
  Tensor x = tensor({3.0f, 4.0f});
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
  EXPECT_FALSE(w.grad().defined());
  Tensor loss = (w * x).sum();
  EXPECT_FALSE(loss.is_leaf());
  loss.backward();
  EXPECT_EQ(w.grad().to_vector<float>(), (std::vector<float>{3, 4}));
  (w * w).sum().backward();  // accumulates: 3 + 2, 4 + 4
  EXPECT_EQ(w.grad().to_vector<float>(), (std::vector<float>{5, 8}));
  EXPECT_FALSE(x.grad().defined());
}

TEST(Autograd, SharedSubexpressionsSumTheirGradients) {
  Tensor a = tensor({2.0f}).requires_grad_();
  Tensor b = a * 3.0f;
  Tensor loss = (b * b + b).sum();  // d/da = (2b + 1) * 3 = 39
  loss.backward();
  EXPECT_FLOAT_EQ(a.grad().item(), 39.0f);
}

TEST(Autograd, NoGradGuardStopsRecording) {
  Tensor w = ones({2}).requires_grad_();
  {
    NoGradGuard guard;
    EXPECT_FALSE(is_grad_enabled());
    EXPECT_FALSE((w * 2.0f).requires_grad());
  }
  EXPECT_TRUE(is_grad_enabled());
  EXPECT_TRUE((w * 2.0f).requires_grad());
  EXPECT_FALSE((w * 2.0f).detach().requires_grad());
}

}  // namespace
}  // namespace torchlet
