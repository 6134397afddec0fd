// The indexing kernels (index.cu) against the CPU backend's: gather_dim and scatter_dim over
// strided operands and a broadcast index, scatter_dim's repeated indices (the last write wins,
// sums in order), a bad index reported through the error word, and by the backend at the next
// synchronisation.
#include "cuda_emu/emu_testing.h"
#include "cuda_emu/stub_testing.h"
#include "testing.h"

namespace torchlet::emu::testing {
namespace {

TEST(CudaEmuIndex, GatherDimMatchesTheCpu) {
  const int64_t size = 6;
  const backend::IndexLoop loop{
      Shape{4, 5, 3}, Shape{0, 3, 1}, Shape{1, 4, 4 * size}, Shape{15, 3, 1}, 1, size};
  const std::vector<float> src = uniform(4 * size * 3, 21);
  const std::vector<int64_t> index = integers(15, 22, 0, size);
  for_each_order([&] {
    std::vector<float> out(60), ref(60);
    ErrorWord error;
    kernels::gather_dim(DType::Float32, src.data(), index.data(), out.data(), loop, error.flag(),
                        nullptr);
    cpu().gather_dim(DType::Float32, src.data(), index.data(), ref.data(), loop);
    expect_close(out, ref, 0.0, "gather_dim");
    EXPECT_EQ(error.word, kernels::kNoError);
    std::vector<int64_t> bad = index;
    bad[7] = size;
    kernels::gather_dim(DType::Float32, src.data(), bad.data(), out.data(), loop, error.flag(),
                        nullptr);
    EXPECT_EQ(error.word, size);
    EXPECT_EQ(out[7], 0.0f);  // position (0, 2, 1) reads 0
  });
}

TEST(CudaEmuIndex, ScatterDimWritesAndAddsInTheCpusOrder) {
  const int64_t size = 4;  // fewer slots than the 5 positions along dim 1: indices repeat
  const backend::IndexLoop loop{
      Shape{4, 5, 3}, Shape{15, 3, 1}, Shape{15, 3, 1}, Shape{size * 3, 3, 1}, 1, size};
  const std::vector<int64_t> index = integers(60, 31, 0, size);
  const std::vector<float> src = uniform(60, 32);
  const std::vector<int64_t> isrc = integers(60, 33, -9, 9);
  const std::vector<float> start = uniform(4 * size * 3, 34);
  for_each_order([&] {
    for (bool accumulate : {false, true}) {
      SCOPED_TRACE(accumulate ? "accumulate" : "write");
      std::vector<float> out = start, ref = start;
      ErrorWord error;
      kernels::scatter_dim(accumulate, DType::Float32, src.data(), index.data(), out.data(), loop,
                           error.flag(), nullptr);
      cpu().scatter_dim(accumulate, DType::Float32, src.data(), index.data(), ref.data(), loop);
      expect_close(out, ref, 0.0, "scatter_dim");  // the same order: exactly the same sums
      EXPECT_EQ(error.word, kernels::kNoError);
      std::vector<int64_t> iout(4 * size * 3, 1), iref(4 * size * 3, 1);
      kernels::scatter_dim(accumulate, DType::Int64, isrc.data(), index.data(), iout.data(), loop,
                           error.flag(), nullptr);
      cpu().scatter_dim(accumulate, DType::Int64, isrc.data(), index.data(), iref.data(), loop);
      EXPECT_EQ(iout, iref);
    }
    std::vector<int64_t> bad = index;
    bad[0] = -1;
    std::vector<float> out = start;
    ErrorWord error;
    kernels::scatter_dim(true, DType::Float32, src.data(), bad.data(), out.data(), loop,
                         error.flag(), nullptr);
    EXPECT_EQ(error.word, -1);
  });
}

TEST(CudaEmuIndex, MoreLinesThanOneGridHolds) {
  // 70,001 lines of 2 along dim 1: more than 65,535 blocks' worth, so threads take several.
  const int64_t rows = 70001;
  const backend::IndexLoop loop{Shape{rows, 2}, Shape{2, 1}, Shape{2, 1}, Shape{3, 1}, 1, 3};
  const std::vector<int64_t> index = integers(rows * 2, 41, 0, 3);
  const std::vector<float> src = uniform(rows * 2, 42);
  set_order(Order::Forward);
  std::vector<float> out(rows * 3, 0.0f), ref(rows * 3, 0.0f);
  ErrorWord error;
  kernels::scatter_dim(true, DType::Float32, src.data(), index.data(), out.data(), loop,
                       error.flag(), nullptr);
  cpu().scatter_dim(true, DType::Float32, src.data(), index.data(), ref.data(), loop);
  expect_close(out, ref, 0.0, "scatter_dim over 70,001 lines");
  const backend::IndexLoop back{Shape{rows, 2}, Shape{2, 1}, Shape{3, 1}, Shape{2, 1}, 1, 3};
  std::vector<float> g(rows * 2), g_ref(rows * 2);
  kernels::gather_dim(DType::Float32, ref.data(), index.data(), g.data(), back, error.flag(),
                      nullptr);
  cpu().gather_dim(DType::Float32, ref.data(), index.data(), g_ref.data(), back);
  expect_close(g, g_ref, 0.0, "gather_dim over 140,002 elements");
  EXPECT_EQ(error.word, kernels::kNoError);
}

TEST(CudaEmuIndex, ABadGatherOrScatterIndexIsReportedAtTheNextSynchronisation) {
  const std::vector<float> values = {1, 2, 3};
  DeviceBuffer<float> src(values), dst(3);
  DeviceBuffer<int64_t> index(std::vector<int64_t>{2, 5, 0});
  const backend::IndexLoop loop{Shape{3}, Shape{1}, Shape{1}, Shape{1}, 0, 3};
  gpu().gather_dim(DType::Float32, src.get(), index.get(), dst.get(), loop);  // queued
  EXPECT_EQ(torchlet::testing::error_of([] { gpu().synchronize(); }),
            "index_select, gather, scatter or index_add: Expected every index in range, but a "
            "kernel queued earlier on cuda:0 found 5 (what it gathered there is zeros, what it "
            "scattered there was skipped)");
  EXPECT_EQ(dst.read(), (std::vector<float>{3, 0, 1}));
  gpu().scatter_dim(true, DType::Float32, src.get(), index.get(), dst.get(), loop);
  EXPECT_NE(torchlet::testing::error_of([] { gpu().synchronize(); }).find("found 5"),
            std::string::npos);
  EXPECT_EQ(dst.read(), (std::vector<float>{6, 0, 2}));  // 3+3 at 0, 1+1 at 2, 5 skipped
}

}  // namespace
}  // namespace torchlet::emu::testing
