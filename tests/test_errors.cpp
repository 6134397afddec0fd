// The error messages users read, pinned word for word: bad device strings, device, shape and
// dtype mismatches, and misuse of tensors and modules.
#include <optional>

#include "core/checks.h"
#include "testing.h"
#include "torchlet/io/file.h"
#include "torchlet/io/read.h"

namespace torchlet {
namespace {

using testing::error_of;

TEST(Errors, BadDeviceStringsNameTheString) {
  for (const char* bad : {"gpu", "cuda:-1", "cuda:x", "cuda:", "cuda0", "CPU", "cuda:1x"}) {
    EXPECT_EQ(error_of([&] { Device d(bad); }),
              std::string("Expected a device string such as 'cpu', 'cuda' or 'cuda:1', but got '") +
                  bad + "'");
  }
}

TEST(Errors, ErrorKnowsWhereItWasRaised) {
  try {
    Device d("gpu");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.file()).find("device.cpp"), std::string::npos);
    EXPECT_GT(e.line(), 0);
  }
}

// The kind of the error thrown by f, or nullopt when it throws none.
template <typename F>
std::optional<ErrorKind> kind_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  return std::nullopt;
}

TEST(Errors, EachKindComesFromItsMacroOrThrowSite) {
  EXPECT_EQ(kind_of([] { TORCHLET_CHECK(false, "x"); }), ErrorKind::InvalidArgument);
  EXPECT_EQ(kind_of([] { TORCHLET_CHECK_KIND(IO, false, "x"); }), ErrorKind::IO);
  EXPECT_EQ(kind_of([] { TORCHLET_ASSERT(1 + 1 == 3); }), ErrorKind::Internal);
  EXPECT_EQ(kind_of([] { Device d("gpu"); }), ErrorKind::InvalidArgument);
  EXPECT_EQ(kind_of([] { io::read_file("/torchlet-no-such-file"); }), ErrorKind::IO);
  EXPECT_EQ(kind_of([] { io::write_file_atomic("/torchlet-no-such-folder/x", "x"); }),
            ErrorKind::IO);
  const Tensor rows = zeros({3, 2});
  EXPECT_EQ(kind_of([&] { index_select(rows, tensor(std::vector<int64_t>{3}, {1})); }),
            ErrorKind::Index);
#if !defined(__SANITIZE_ADDRESS__)  // ASan reports a huge allocation instead of failing it
  EXPECT_EQ(kind_of([] { zeros({int64_t{1} << 42}); }), ErrorKind::OutOfMemory);
#endif
  EXPECT_STREQ(to_string(ErrorKind::OutOfMemory), "out of memory");
}

TEST(Errors, ContextAddedOnRethrowKeepsTheKindAndTheOrigin) {
  try {
    TORCHLET_CHECK_KIND(Index, false, "index 7 is out of range");
  } catch (const Error& e) {
    const Error outer = e.with_context("model.bin: ");
    EXPECT_STREQ(outer.what(), "model.bin: index 7 is out of range");
    EXPECT_EQ(outer.kind(), ErrorKind::Index);
    EXPECT_EQ(outer.line(), e.line());
    EXPECT_STREQ(outer.file(), e.file());
  }
}

TEST(Errors, DeviceMismatchNamesBothDevicesAndTheArgument) {
  EXPECT_EQ(error_of([] {
              ops::check_same_device("linear", {{"weight", Device("cuda:0")}, {"input", kCPU}});
            }),
            "Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu! (argument 'input' of linear)");
}

// Without a usable GPU the message says why: a CPU-only build, no driver, or no device.
TEST(Errors, CudaTensorWithoutAGpu) {
  if (cuda::is_available()) GTEST_SKIP() << "a GPU is present";
  const std::string message = error_of([] { zeros({2}, Device("cuda:0")); });
  EXPECT_EQ(message.rfind("Expected a device this build of torchlet can use, but got cuda:0: ", 0),
            0u)
      << message;
  const std::string tail = " (torchlet::cuda::is_available() is false); use Device(\"cpu\")";
  ASSERT_GT(message.size(), tail.size());
  EXPECT_EQ(message.substr(message.size() - tail.size()), tail) << message;
  const std::vector<std::string> reasons = {"torchlet was built without CUDA support",
                                            "no CUDA GPU was found",
                                            "the NVIDIA driver is missing or older than this "
                                            "CUDA runtime"};
  EXPECT_TRUE(std::any_of(reasons.begin(), reasons.end(), [&](const std::string& r) {
    return message.find(r) != std::string::npos;
  })) << message;
}

TEST(Errors, ShapeMismatches) {
  nn::Linear fc(4, 10);
  EXPECT_EQ(error_of([&] {
              fc(ones({120, 5}));
            }),
            "linear: Expected input with 4 features in its last dimension (weight is [10, 4]), "
            "but got input of shape [120, 5]");
  EXPECT_EQ(error_of([] {
              matmul(ones({2, 3}), ones({2, 3}));
            }),
            "matmul: Expected the inner sizes to match ([m, k] x [k, n]), but got shapes [2, 3] "
            "and [2, 3]");
  EXPECT_EQ(error_of([] {
              ones({2, 3}) + ones({4});
            }),
            "add: Expected shapes that broadcast (equal sizes or 1, aligned at the right), but "
            "got [2, 3] and [4] (dimension 1: 3 vs 4)");
  EXPECT_EQ(error_of([] {
              cross_entropy(ones({3, 2}), tensor({0, 1}));
            }),
            "cross_entropy: Expected target of shape [3] (one class index per row of input "
            "[3, 2]), but got [2]");
  EXPECT_EQ(error_of([] {
              ones({6}).reshape({4, -1});
            }),
            "reshape: Expected a shape with 6 elements to reshape [6] into, but got [4, -1]");
}

TEST(Errors, DtypeMismatches) {
  EXPECT_EQ(error_of([] {
              cross_entropy(ones({2, 3}), tensor({0.0f, 1.0f}));
            }),
            "cross_entropy: Expected argument 'target' to have dtype int64 (class indices), but "
            "got float32 (convert labels with .to(kInt64))");
  // Mixed float32 and int64 operands promote as in PyTorch (test_ops_conformance.cpp) instead.
  EXPECT_EQ((ones({2}) + tensor({1, 2})).to_vector<float>(), (std::vector<float>{2.0f, 3.0f}));
  EXPECT_EQ(error_of([] {
              relu(tensor({1, 2}));
            }),
            "relu: Expected argument 'input' to have dtype float32, but got int64");
}

TEST(Errors, TargetsOutOfRange) {
  EXPECT_EQ(error_of([] {
              cross_entropy(ones({2, 3}), tensor({0, 3}));
            }),
            "cross_entropy: Expected every target to be a class index in [0, 3), but got 3 at "
            "position 1");
}

TEST(Errors, TensorMisuse) {
  EXPECT_EQ(error_of([] { ones({2}).item(); }),
            "item: Expected a tensor with one element, but got shape [2]");
  EXPECT_EQ(error_of([] { ones({2}).sum(2); }), "sum: Expected dim in [-1, 0], but got 2");
  EXPECT_EQ(error_of([] { Tensor().shape(); }),
            "Expected a defined tensor, but got an undefined Tensor() (a default-constructed "
            "handle, or a grad() that backward() has not filled yet)");
  EXPECT_EQ(error_of([] { ones({2}).backward(); }),
            "Expected a tensor that requires grad to call backward() on, but got one that does "
            "not (no parameter it depends on has requires_grad, or it was computed under "
            "NoGradGuard)");
  EXPECT_EQ(error_of([] { (ones({2}).requires_grad_() * 2.0f).backward(); }),
            "Expected backward() without a gradient argument on a tensor of one element (a "
            "loss), but got shape [2]");
  EXPECT_EQ(error_of([] {
              tensor({1.0f, 2.0f}, {3});
            }),
            "tensor: Expected 3 values for shape [3], but got 2");
  EXPECT_EQ(error_of([] { ones({2}).requires_grad_().copy_(zeros({2})); }),
            "copy_: Expected a tensor that does not require grad, but got a leaf that requires "
            "grad; change parameters under NoGradGuard");
}

TEST(Errors, OptimizerAndModuleArguments) {
  nn::Linear fc(2, 2);
  EXPECT_EQ(error_of([&] { optim::SGD(fc.parameters(), -0.1); }),
            "SGD: Expected lr >= 0, but got -0.1");
  EXPECT_EQ(error_of([&] { optim::SGD(fc.parameters(), 0.1, 0.0, 0.0, true); }),
            "SGD: Expected momentum > 0 for Nesterov momentum, but got 0");
  EXPECT_EQ(error_of([&] {
              optim::Adam(fc.parameters(), 1e-3, {0.9, 1.0});
            }),
            "Adam: Expected betas in [0, 1), but got (0.9, 1)");
  EXPECT_EQ(error_of([] { nn::Linear(0, 3); }),
            "Linear: Expected in_features > 0 and out_features > 0, but got in_features 0 and "
            "out_features 3");
  EXPECT_EQ(error_of([&] { fc.register_parameter("weight", ones({1})); }),
            "register_parameter: Expected a new name, but 'weight' is already a parameter");
}

}  // namespace
}  // namespace torchlet
