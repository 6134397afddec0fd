// The CUDA backend's host-side lifetime bugs of issue 16, reproduced on the stub runtime: memory
// a graph still uses handed to another tensor (findings 1 and 2), SGD momentum captured on its
// first step (3), staging copies that always
// start at buffer 0 (4), cuBLASLt refusing a shape (5), calls that invalidate a capture (6)
// and the fused MLP's shared-memory opt-in repeated on every launch (9).
#include "cuda_emu/stub_testing.h"
#include "testing.h"
#include "torchlet/cuda.h"

namespace torchlet::emu::testing {
namespace {

const Device kEmuGpu("cuda:0");

std::vector<float> filled(std::size_t n, float v) { return std::vector<float>(n, v); }

TEST(CudaEmuHost, ABlockFreedDuringACaptureStaysTheGraphs) {
  // Finding 1: a block allocated before the capture and freed during it (zero_grad(false), then
  // grad = grad + g) must not reach another tensor while the graph can still write it.
  const std::size_t n = 64;
  auto before = std::make_unique<DeviceBuffer<float>>(n);
  const float* old_block = before->get();
  cuda::Graph graph;
  graph.capture_begin(kEmuGpu);
  gpu().fill(before->get(), DType::Float32, static_cast<int64_t>(n), 5.0);
  before.reset();  // freed during the capture
  graph.capture_end();
  DeviceBuffer<float> other(filled(n, 7.0f));
  EXPECT_NE(other.get(), old_block);
  graph.replay();
  EXPECT_EQ(other.read(), filled(n, 7.0f));
}

TEST(CudaEmuHost, AGraphStillReadsTheOnesALaterSumOutgrew) {
  // Finding 2: sum_dim's GEMV reads a vector of ones; a later eager sum over more rows must
  // not free the ones a graph reads in its replays.
  const int64_t rows = 256, cols = 32;
  const std::vector<float> in = uniform(rows * cols, 110);
  std::vector<float> want(cols);
  cpu().sum_dim(in.data(), want.data(), 1, rows, cols, 1.0f);
  DeviceBuffer<float> din(in), out(cols);
  gpu().sum_dim(din.get(), out.get(), 1, rows, cols, 1.0f);  // makes the ones eagerly
  cuda::Graph graph;
  graph.capture_begin(kEmuGpu);
  gpu().sum_dim(din.get(), out.get(), 1, rows, cols, 1.0f);
  graph.capture_end();
  {
    DeviceBuffer<float> big(uniform(2 * rows * cols, 111)), big_out(cols);
    gpu().sum_dim(big.get(), big_out.get(), 1, 2 * rows, cols, 1.0f);  // more rows: new ones
  }
  DeviceBuffer<float> junk(filled(rows, 3.0f));  // the size the old ones had
  gpu().fill(out.get(), DType::Float32, cols, 0.0);
  graph.replay();
  expect_close(out.read(), want, 1e-5, "replayed column sums");
}

TEST(CudaEmuHost, SgdMomentumCapturedOnItsFirstStepAccumulatesOnEveryReplay) {
  // Finding 3: the graph used to freeze the first step's "buffer = grad" into every replay.
  // Now a zeroed buffer and one formula make the first step like any other: a capture of the
  // first step, replayed twice, is three steps of the CPU's update.
  const std::size_t n = 37;
  const std::vector<float> p0 = uniform(n, 120), g = uniform(n, 121);
  const backend::SgdOptions o{0.1f, 0.9f, 0.01f, true};
  std::vector<float> p = p0, buf(n, 0.0f);
  const backend::ParamUpdate ref{p.data(), g.data(), buf.data(),
                                 nullptr,  nullptr,  static_cast<int64_t>(n)};
  for (int k = 0; k < 3; ++k) cpu().sgd_step(&ref, 1, o);
  DeviceBuffer<float> dp(p0), dg(g), dbuf(filled(n, 0.0f));
  const backend::ParamUpdate u{dp.get(), dg.get(), dbuf.get(),
                               nullptr,  nullptr,  static_cast<int64_t>(n)};
  cuda::Graph graph;
  graph.capture_begin(kEmuGpu);
  gpu().sgd_step(&u, 1, o);
  graph.capture_end();
  for (int k = 0; k < 3; ++k) graph.replay();  // the capture itself ran nothing
  expect_close(dp.read(), p, 1e-6, "parameters after 3 replays");
  expect_close(dbuf.read(), buf, 1e-6, "momentum buffer after 3 replays");
}

TEST(CudaEmuHost, HostToDeviceCopiesAlternateStagingBuffersAcrossCalls) {
  // Finding 4: each copy used to start at buffer 0, waiting for the previous call's copy.
  DeviceBuffer<float> a(16), b(16);
  const std::vector<float> host = uniform(16, 112);
  auto& sources = stub::stats().host_to_device_sources;
  gpu().copy_from_host(a.get(), host.data(), a.bytes());
  gpu().copy_from_host(b.get(), host.data(), b.bytes());
  ASSERT_GE(sources.size(), 2u);
  EXPECT_NE(sources[sources.size() - 1], sources[sources.size() - 2]);
  EXPECT_EQ(b.read(), host);
}

TEST(CudaEmuHost, LinearFallsBackWhenCublasLtRefusesTheShape) {
  // Finding 5: cuBLASLt's bias epilogue fails with NOT_SUPPORTED or INVALID_VALUE on some
  // shapes; the layer must then still be computed (a GEMM and a broadcast add).
  for (int64_t rows : {1, 6}) {
    const int64_t in = 5, out = 4;
    const std::vector<float> x = uniform(rows * in, 113), w = uniform(out * in, 114),
                             bias = uniform(out, 115);
    std::vector<float> want(rows * out);
    cpu().linear_forward(x.data(), w.data(), bias.data(), want.data(), rows, in, out);
    for (cublasStatus_t status : {CUBLAS_STATUS_NOT_SUPPORTED, CUBLAS_STATUS_INVALID_VALUE}) {
      stub::set_lt_status(status);
      DeviceBuffer<float> dx(x), dw(w), db(bias), dy(rows * out);
      gpu().linear_forward(dx.get(), dw.get(), db.get(), dy.get(), rows, in, out);
      expect_close(dy.read(), want, 1e-6, "linear_forward, " + std::to_string(rows) + " rows");
    }
    stub::set_lt_status(CUBLAS_STATUS_SUCCESS);
  }
}

TEST(CudaEmuHost, SynchronizeAndEmptyCacheRefuseToRunDuringACapture) {
  // Finding 6: either would invalidate the capture (a GPU refuses the call).
  cuda::Graph graph;
  graph.capture_begin(kEmuGpu);
  EXPECT_EQ(torchlet::testing::error_of([] { gpu().synchronize(); }),
            "cuda::synchronize: Expected no CUDA graph capture on cuda:0, but one is running (a "
            "synchronisation would invalidate it)");
  EXPECT_EQ(torchlet::testing::error_of([] { gpu().empty_cache(); }),
            "cuda::empty_cache: Expected no CUDA graph capture on cuda:0, but one is running "
            "(cudaFree would invalidate it)");
  EXPECT_FALSE(stub::stats().capture_invalidated);
  graph.capture_end();
  EXPECT_TRUE(graph.captured());
}

TEST(CudaEmuHost, ADeadGraphsBlocksAreFreedAfterTheCaptureRunningNow) {
  // Finding 6: blocks of a graph destroyed during another capture (its free list, and a block a
  // tensor kept and frees now) went to cudaFree at once, which invalidates that capture.
  auto first = std::make_unique<cuda::Graph>();
  std::unique_ptr<DeviceBuffer<float>> kept;
  first->capture_begin(kEmuGpu);
  kept = std::make_unique<DeviceBuffer<float>>(32);
  { DeviceBuffer<float> scratch(64); }  // back to the graph's free list
  first->capture_end();
  const int64_t frees = stub::stats().frees;
  cuda::Graph second;
  second.capture_begin(kEmuGpu);
  first.reset();  // the graph dies mid-capture
  kept.reset();   // and a tensor it made goes
  EXPECT_EQ(stub::stats().refused_in_capture, 0);
  EXPECT_EQ(stub::stats().frees, frees);
  second.capture_end();
  EXPECT_TRUE(second.captured());
  EXPECT_EQ(stub::stats().frees, frees + 2);  // freed once the capture ended
}

TEST(CudaEmuHost, TheFusedMlpOptsInToLargeSharedMemoryOnce) {
  // Finding 9: cudaFuncSetAttribute ran before every launch above 48 KiB.
  const int64_t widths[] = {4, 64, 3}, rows = 120;
  std::vector<std::unique_ptr<DeviceBuffer<float>>> buffers;
  auto buffer = [&](int64_t n, uint64_t seed) {
    buffers.push_back(std::make_unique<DeviceBuffer<float>>(uniform(n, seed)));
    return buffers.back()->get();
  };
  std::vector<float*> w, b, gw, gb;
  for (int l = 0; l < 2; ++l) {
    w.push_back(buffer(widths[l] * widths[l + 1], 116 + l));
    b.push_back(buffer(widths[l + 1], 118 + l));
    gw.push_back(buffer(widths[l] * widths[l + 1], 0));
    gb.push_back(buffer(widths[l + 1], 0));
  }
  float* x = buffer(rows * widths[0], 120);
  float* loss = buffer(1, 0);
  DeviceBuffer<int64_t> target(integers(rows, 121, 0, widths[2]));
  const backend::MlpStep step{2, widths,       w.data(), b.data(), gw.data(), gb.data(),
                              x, target.get(), rows,     nullptr,  rows,      loss};
  int widths_int[] = {4, 64, 3};
  ASSERT_GT(kernels::mlp_shared_bytes(widths_int, 2, rows), kSharedDefault);
  const int64_t calls = attribute_calls();
  for (int k = 0; k < 3; ++k) gpu().fused_mlp()->mlp_step(step);
  EXPECT_EQ(attribute_calls(), calls + 1);
}

}  // namespace
}  // namespace torchlet::emu::testing
