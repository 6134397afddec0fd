// The CUDA backend's host code on the stub runtime, against the CPU backend: copies in and out
// (across the staging buffers' size), a GEMM and a Linear layer through cuBLAS(Lt), and a
// captured graph's replay against the same work run eagerly.
#include "cuda_emu/stub_testing.h"
#include "torchlet/cuda.h"

namespace torchlet::emu::testing {
namespace {

TEST(CudaEmuBackend, CopiesRoundTripAcrossTheStagingBufferSize) {
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, (std::size_t{5} << 20) / 4 + 3}) {
    const std::vector<float> host = uniform(n, 100);
    DeviceBuffer<float> d(host);
    EXPECT_EQ(d.read(), host) << n << " floats";
  }
}

TEST(CudaEmuBackend, GemmAndLinearMatchTheCpu) {
  const int64_t rows = 5, in = 7, out = 3;
  const std::vector<float> x = uniform(rows * in, 101), w = uniform(out * in, 102),
                           bias = uniform(out, 103);
  DeviceBuffer<float> dx(x), dw(w), db(bias), dy(rows * out);
  std::vector<float> ref(rows * out);
  gpu().linear_forward(dx.get(), dw.get(), db.get(), dy.get(), rows, in, out);
  cpu().linear_forward(x.data(), w.data(), bias.data(), ref.data(), rows, in, out);
  expect_close(dy.read(), ref, 1e-6, "linear_forward");
  gpu().gemm(true, false, in, out, rows, 1.0f, dx.get(), in, dy.get(), out, 0.0f, dw.get(), out);
  std::vector<float> ref_w(in * out);
  cpu().gemm(true, false, in, out, rows, 1.0f, x.data(), in, ref.data(), out, 0.0f, ref_w.data(),
             out);
  expect_close(dw.read(), ref_w, 1e-6, "gemm x^T y");
}

TEST(CudaEmuBackend, AGraphReplaysWhatItCaptured) {
  const int64_t n = 300;
  const std::vector<float> a = uniform(n, 104);
  DeviceBuffer<float> da(a), acc(n);
  gpu().fill(acc.get(), DType::Float32, n, 0.0);
  const backend::Loop loop{Shape{n}, Shape{1}, Shape{1}};
  cuda::Graph graph;
  graph.capture_begin(Device("cuda:0"));
  gpu().binary(backend::BinaryOp::Add, DType::Float32, acc.get(), da.get(), acc.get(), loop);
  graph.capture_end();
  EXPECT_EQ(acc.read(), std::vector<float>(n, 0.0f));  // captured, not run
  for (int k = 0; k < 3; ++k) graph.replay();
  std::vector<float> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = (a[i] + a[i]) + a[i];
  EXPECT_EQ(acc.read(), want);
}

}  // namespace
}  // namespace torchlet::emu::testing
