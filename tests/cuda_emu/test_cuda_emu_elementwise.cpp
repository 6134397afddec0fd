// The elementwise CUDA kernels (elementwise.cu) in the emulator against the CPU backend: fill,
// cast, strided_copy, binary and ==, binary with a scalar, gather_rows (with a bad index) and
// relu both ways, on sizes that leave partial blocks and grid-stride loops.
#include "cuda_emu/emu_testing.h"

namespace torchlet::emu::testing {
namespace {

using backend::BinaryOp;
using backend::Loop;

constexpr int64_t kSizes[] = {1, 7, 129, 1000};

TEST(CudaEmuElementwise, FillEveryDType) {
  for_each_order([] {
    for (int64_t n : kSizes) {
      std::vector<float> f(n, 0.0f), fr(n, 1.0f);
      kernels::fill(f.data(), DType::Float32, n, 2.5, nullptr);
      cpu().fill(fr.data(), DType::Float32, n, 2.5);
      expect_close(f, fr, 0.0, "fill float32");
      std::vector<int64_t> i(n, 0), ir(n, 1);
      kernels::fill(i.data(), DType::Int64, n, -3.0, nullptr);
      cpu().fill(ir.data(), DType::Int64, n, -3.0);
      EXPECT_EQ(i, ir);
      std::vector<char> b(n, 0), br(n, 0);
      kernels::fill(b.data(), DType::Bool, n, 1.0, nullptr);
      cpu().fill(br.data(), DType::Bool, n, 1.0);
      EXPECT_EQ(b, br);
    }
  });
}

TEST(CudaEmuElementwise, CastBetweenFloatAndInt64AndBool) {
  const int64_t n = 129;
  std::vector<float> x = uniform(n, 1, -5.0f, 5.0f);
  x[0] = 0.0f;
  for_each_order([&] {
    std::vector<int64_t> i(n), ir(n);
    kernels::cast(x.data(), DType::Float32, i.data(), DType::Int64, n, nullptr);
    cpu().cast(x.data(), DType::Float32, ir.data(), DType::Int64, n);
    EXPECT_EQ(i, ir);
    std::vector<char> b(n), br(n);
    kernels::cast(x.data(), DType::Float32, b.data(), DType::Bool, n, nullptr);
    cpu().cast(x.data(), DType::Float32, br.data(), DType::Bool, n);
    EXPECT_EQ(b, br);
    std::vector<float> f(n), fr(n);
    kernels::cast(i.data(), DType::Int64, f.data(), DType::Float32, n, nullptr);
    cpu().cast(ir.data(), DType::Int64, fr.data(), DType::Float32, n);
    expect_close(f, fr, 0.0, "cast int64 -> float32");
  });
}

TEST(CudaEmuElementwise, StridedCopyOfATransposeAndABroadcast) {
  // a [7, 5] read as its transpose [5, 7]; then a row [7] broadcast down [3, 7].
  const std::vector<float> a = uniform(35, 2);
  const Loop transpose{Shape{5, 7}, Shape{1, 5}, Shape{7, 1}};
  const Loop broadcast{Shape{3, 7}, Shape{0, 1}, Shape{7, 1}};
  for_each_order([&] {
    for (const Loop& loop : {transpose, broadcast}) {
      const auto n = static_cast<std::size_t>(loop.shape.numel());
      std::vector<float> out(n), ref(n);
      kernels::strided_copy(a.data(), out.data(), DType::Float32, loop, nullptr);
      cpu().strided_copy(a.data(), ref.data(), DType::Float32, loop);
      expect_close(out, ref, 0.0, "strided_copy " + loop.shape.str());
    }
  });
}

TEST(CudaEmuElementwise, BinaryOpsWithBroadcastingAndEquality) {
  // a [4, 1, 9] op b [1, 6, 9] -> [4, 6, 9]
  const std::vector<float> a = uniform(36, 3), b = uniform(54, 4, 0.5f, 3.0f);
  const Loop loop{Shape{4, 6, 9}, Shape{9, 0, 1}, Shape{0, 9, 1}};
  for_each_order([&] {
    for (BinaryOp op : {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div,
                        BinaryOp::Maximum, BinaryOp::Minimum, BinaryOp::Pow}) {
      std::vector<float> out(216), ref(216);
      kernels::binary(op, DType::Float32, a.data(), b.data(), out.data(), loop, nullptr);
      cpu().binary(op, DType::Float32, a.data(), b.data(), ref.data(), loop);
      expect_close(out, ref, 0.0, "binary op " + std::to_string(static_cast<int>(op)));
    }
    const std::vector<int64_t> ia = integers(36, 5, 0, 3), ib = integers(54, 6, 0, 3);
    std::vector<int64_t> sum(216), sum_ref(216);
    kernels::binary(BinaryOp::Add, DType::Int64, ia.data(), ib.data(), sum.data(), loop, nullptr);
    cpu().binary(BinaryOp::Add, DType::Int64, ia.data(), ib.data(), sum_ref.data(), loop);
    EXPECT_EQ(sum, sum_ref);
    for (BinaryOp op : {BinaryOp::Eq, BinaryOp::Ne, BinaryOp::Lt, BinaryOp::Le, BinaryOp::Gt,
                        BinaryOp::Ge, BinaryOp::LogicalAnd, BinaryOp::LogicalOr}) {
      std::vector<char> eq(216), eq_ref(216);
      kernels::binary(op, DType::Int64, ia.data(), ib.data(), eq.data(), loop, nullptr);
      cpu().binary(op, DType::Int64, ia.data(), ib.data(), eq_ref.data(), loop);
      EXPECT_EQ(eq, eq_ref) << "predicate " << static_cast<int>(op);
    }
    for (BinaryOp op : {BinaryOp::Mul, BinaryOp::Maximum, BinaryOp::Pow}) {
      std::vector<int64_t> out(216), ref(216);
      kernels::binary(op, DType::Int64, ia.data(), ib.data(), out.data(), loop, nullptr);
      cpu().binary(op, DType::Int64, ia.data(), ib.data(), ref.data(), loop);
      EXPECT_EQ(out, ref) << "int64 op " << static_cast<int>(op);
    }
  });
}

TEST(CudaEmuElementwise, BinaryWithAScalarOnEitherSide) {
  const int64_t n = 1000;
  const std::vector<float> a = uniform(n, 7, 0.5f, 2.0f);
  for_each_order([&] {
    for (BinaryOp op : {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div,
                        BinaryOp::Maximum, BinaryOp::Minimum, BinaryOp::Pow})
      for (bool first : {false, true}) {
        std::vector<float> out(n), ref(n);
        kernels::binary_scalar(op, DType::Float32, a.data(), 1.5, first, out.data(), n, nullptr);
        cpu().binary_scalar(op, DType::Float32, a.data(), 1.5, first, ref.data(), n);
        expect_close(out, ref, 0.0, "binary_scalar " + std::to_string(static_cast<int>(op)));
      }
    std::vector<char> lt(n), lt_ref(n);
    kernels::binary_scalar(BinaryOp::Lt, DType::Float32, a.data(), 1.25, false, lt.data(), n,
                           nullptr);
    cpu().binary_scalar(BinaryOp::Lt, DType::Float32, a.data(), 1.25, false, lt_ref.data(), n);
    EXPECT_EQ(lt, lt_ref);
  });
}

TEST(CudaEmuElementwise, GatherRowsAndABadIndex) {
  const int64_t rows = 10, n = 13;
  const std::size_t row_bytes = 3 * sizeof(float);
  const std::vector<float> in = uniform(30, 8);
  const std::vector<int64_t> index = integers(n, 9, 0, rows);
  for_each_order([&] {
    std::vector<float> out(3 * n), ref(3 * n);
    ErrorWord error;
    kernels::gather_rows(in.data(), rows, index.data(), out.data(), n, row_bytes, error.flag(),
                         nullptr);
    cpu().gather_rows(in.data(), rows, index.data(), ref.data(), n, row_bytes);
    expect_close(out, ref, 0.0, "gather_rows");
    EXPECT_EQ(error.word, kernels::kNoError);
    std::vector<int64_t> bad = index;
    bad[4] = rows;
    kernels::gather_rows(in.data(), rows, bad.data(), out.data(), n, row_bytes, error.flag(),
                         nullptr);
    EXPECT_EQ(error.word, rows);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(out[12 + k], 0.0f);
  });
}

TEST(CudaEmuElementwise, GatherRowsOfEightAndOddByteWidths) {
  // 8-byte words (int64 targets), then rows of 3 bytes (byte by byte).
  const int64_t rows = 9, n = 11;
  const std::vector<int64_t> index = integers(n, 12, 0, rows);
  const std::vector<int64_t> targets = integers(rows, 13, -5, 5);
  std::vector<unsigned char> bytes(3 * rows);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 7);
  for_each_order([&] {
    ErrorWord error;
    std::vector<int64_t> t(n), t_ref(n);
    kernels::gather_rows(targets.data(), rows, index.data(), t.data(), n, 8, error.flag(), nullptr);
    cpu().gather_rows(targets.data(), rows, index.data(), t_ref.data(), n, 8);
    EXPECT_EQ(t, t_ref);
    std::vector<unsigned char> b(3 * n), b_ref(3 * n);
    kernels::gather_rows(bytes.data(), rows, index.data(), b.data(), n, 3, error.flag(), nullptr);
    cpu().gather_rows(bytes.data(), rows, index.data(), b_ref.data(), n, 3);
    EXPECT_EQ(b, b_ref);
    EXPECT_EQ(error.word, kernels::kNoError);
  });
}

TEST(CudaEmuElementwise, ReluForwardAndBackward) {
  const int64_t n = 129;
  std::vector<float> x = uniform(n, 10);
  x[3] = 0.0f;
  const std::vector<float> dy = uniform(n, 11);
  for_each_order([&] {
    std::vector<float> y(n), yr(n), dx(n), dxr(n);
    kernels::relu_forward(x.data(), y.data(), n, nullptr);
    cpu().relu_forward(x.data(), yr.data(), n);
    expect_close(y, yr, 0.0, "relu");
    kernels::relu_backward(x.data(), dy.data(), dx.data(), n, nullptr);
    cpu().relu_backward(x.data(), dy.data(), dxr.data(), n);
    expect_close(dx, dxr, 0.0, "relu backward");
  });
}

}  // namespace
}  // namespace torchlet::emu::testing
