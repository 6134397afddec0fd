// Finding 7 of issue 16: the graph pool (the blocks a captured graph owns) and the list of
// blocks freed during a capture are shared by every thread that allocates or frees on the
// device, so the backend changes them only under its pool mutex. Here one thread captures
// graphs that allocate and free while another frees the blocks those captures handed to it and
// allocates blocks of its own. The ThreadSanitizer build of this file (the test
// cuda_emu_threads_tsan) fails on any unsynchronised access; the normal and AddressSanitizer
// builds check that every block comes back, none twice.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "cuda_emu/stub_testing.h"
#include "torchlet/cuda.h"

namespace torchlet::emu::testing {
namespace {

// Blocks handed from the capturing thread to the freeing one.
class Handoff {
 public:
  void push(void* block) {
    {
      std::lock_guard lock(mutex_);
      blocks_.push_back(block);
    }
    ready_.notify_one();
  }
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_one();
  }
  // The next block, or nullptr once closed and empty.
  void* pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return closed_ || !blocks_.empty(); });
    if (blocks_.empty()) return nullptr;
    void* block = blocks_.front();
    blocks_.pop_front();
    return block;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<void*> blocks_;
  bool closed_ = false;
};

constexpr std::size_t kBytes = 1024;

TEST(CudaEmuThreads, GraphPoolsAndEagerBlocksAreSharedSafelyAcrossThreads) {
  gpu().empty_cache();  // made (its workspace allocated) and holding no cached block
  const int64_t mallocs_before = stub::stats().mallocs, frees_before = stub::stats().frees;
  Handoff handoff;
  std::thread freeing([&] {
    while (void* block = handoff.pop()) {
      gpu().deallocate(block, kBytes);  // a graph's block: back to its pool, or freed
      void* own = gpu().allocate(kBytes);
      gpu().deallocate(own, kBytes);
    }
  });
  for (int round = 0; round < 200; ++round) {
    cuda::Graph graph;
    graph.capture_begin(Device("cuda:0"));
    void* kept[4];
    for (void*& block : kept) block = gpu().allocate(kBytes);  // from the graph's pool
    gpu().deallocate(kept[0], kBytes);                         // back to the pool while capturing
    handoff.push(kept[1]);
    handoff.push(kept[2]);
    graph.capture_end();
    gpu().deallocate(kept[3], kBytes);
  }  // each graph dies here, and its pool with it
  handoff.close();
  freeing.join();
  // Every block a pool took from the system went back to it exactly once (the stub's cudaFree
  // refuses a block it does not hold, and a block freed twice would be one it no longer holds).
  gpu().empty_cache();
  EXPECT_EQ(stub::stats().mallocs - mallocs_before, stub::stats().frees - frees_before);
}

}  // namespace
}  // namespace torchlet::emu::testing
