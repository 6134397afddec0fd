// Tests of the CUDA emulator itself: the three thread orders and the NaN fill make a missing
// barrier visible, sm_90's launch limits are enforced, a barrier not every thread reaches is an
// error, and (in the sanitizer build) a write past dynamic shared memory is a heap overflow.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cuda_emu/emu.h"
#include "cuda_emu/harness_kernels.h"

namespace torchlet::emu {
namespace {

// How many of the threads' reads of their neighbour's value were wrong.
int wrong_neighbours(int threads, bool sync, bool wrap) {
  std::vector<float> out(static_cast<std::size_t>(threads), -1.0f);
  harness::neighbour(out.data(), threads, sync, wrap);
  int wrong = 0;
  for (int t = 0; t < threads; ++t) {
    const float expected = t + 1 < threads ? static_cast<float>(t + 1) : 0.0f;
    wrong += !(out[t] == expected);
  }
  return wrong;
}

TEST(CudaEmuHarness, ABarrierMakesEveryOrderAgree) {
  for (Order order : kOrders) {
    set_order(order);
    EXPECT_EQ(wrong_neighbours(256, true, true), 0) << order_name(order);
  }
}

TEST(CudaEmuHarness, AMissingBarrierFailsInTheOrdersThatRaceIt) {
  // Without the barrier, thread t reads thread t + 1's value before it is written unless
  // thread t + 1 ran first: every read is wrong forward, none in reverse, some shuffled.
  set_order(Order::Forward);
  EXPECT_EQ(wrong_neighbours(256, false, false), 255);
  set_order(Order::Reverse);
  EXPECT_EQ(wrong_neighbours(256, false, false), 0);
  set_order(Order::Shuffled, 7);
  const int shuffled = wrong_neighbours(256, false, false);
  EXPECT_GT(shuffled, 0);
  EXPECT_LT(shuffled, 255);
  // With the last thread reading thread 0, no order gets everything right.
  for (Order order : kOrders) {
    set_order(order);
    EXPECT_GT(wrong_neighbours(256, false, true), 0) << order_name(order);
  }
}

TEST(CudaEmuHarness, SharedMemoryStartsAsNaN) {
  set_order(Order::Forward);
  std::vector<float> out(32, 0.0f);
  harness::read_unwritten(out.data(), 32);
  for (float v : out) EXPECT_TRUE(std::isnan(v)) << v;
}

TEST(CudaEmuHarness, EnforcesTheThreadAndGridLimitsOfSm90) {
  int count = 0;
  harness::count_threads(&count, dim3(1), dim3(1024), 0);
  harness::count_threads(&count, dim3(2, 65535, 1), dim3(1), 0);
  harness::count_threads(&count, dim3(1, 2, 65535), dim3(1), 0);
  const int ran = 1024 + 4 * 65535;
  EXPECT_EQ(count, ran);
  EXPECT_THROW(harness::count_threads(&count, dim3(1), dim3(1025), 0), LaunchError);
  EXPECT_THROW(harness::count_threads(&count, dim3(1), dim3(32, 33), 0), LaunchError);
  EXPECT_THROW(harness::count_threads(&count, dim3(1, 65536), dim3(1), 0), LaunchError);
  EXPECT_THROW(harness::count_threads(&count, dim3(1, 1, 65536), dim3(1), 0), LaunchError);
  EXPECT_THROW(harness::count_threads(&count, dim3(0), dim3(1), 0), LaunchError);
  EXPECT_EQ(count, ran);  // a refused launch runs nothing
}

TEST(CudaEmuHarness, EnforcesTheSharedMemoryLimitsWithAndWithoutOptIn) {
  clear_attributes();
  int count = 0;
  harness::count_threads(&count, dim3(1), dim3(1), kSharedDefault);
  EXPECT_THROW(harness::count_threads(&count, dim3(1), dim3(1), kSharedDefault + 1), LaunchError);
  EXPECT_EQ(harness::allow_shared(static_cast<int>(kSharedOptIn) + 1), cudaErrorInvalidValue);
  EXPECT_EQ(harness::allow_shared(static_cast<int>(kSharedOptIn)), cudaSuccess);
  harness::count_threads(&count, dim3(1), dim3(1), kSharedOptIn);
  EXPECT_THROW(harness::count_threads(&count, dim3(1), dim3(1), kSharedOptIn + 1), LaunchError);
  EXPECT_EQ(count, 2);
  std::vector<float> out(32);
  EXPECT_THROW(harness::big_static(out.data()), LaunchError);
  clear_attributes();
}

TEST(CudaEmuHarness, ABarrierSomeThreadsNeverReachIsAnError) {
  std::vector<float> out(64);
  for (Order order : kOrders) {
    set_order(order);
    EXPECT_THROW(harness::early_return(out.data(), 64), LaunchError) << order_name(order);
  }
}

TEST(CudaEmuHarness, RecordsTheKernelsItRan) {
  clear_launched();
  std::vector<float> out(32);
  harness::read_unwritten(out.data(), 32);
  ASSERT_EQ(launched().size(), 1u);
  EXPECT_EQ(launched()[0], "read_unwritten_kernel");
}

TEST(CudaEmuHarness, AddressSanitizerSeesASharedMemoryOverflow) {
#if defined(__SANITIZE_ADDRESS__)
  harness::write_shared(15, 64);  // the last float: fine
  EXPECT_DEATH(harness::write_shared(16, 64), "heap-buffer-overflow");
#else
  GTEST_SKIP() << "needs the sanitizer build (scripts/test --sanitize)";
#endif
}

}  // namespace
}  // namespace torchlet::emu
