// The worker pool behind parallel_for, the only threads torchlet's CPU backend runs (OpenBLAS
// is kept at one thread and given a block per thread by gemm.cpp). After a loop a worker spins
// for kSpin, so that the next kernel of a training step finds it awake, then sleeps on a
// condition variable: an idle pool costs no CPU. The caller waits for the workers the same way.
// The pool is created on first use, grows to the thread count asked for, and is never torn
// down (its threads end with the process); a child process after fork() starts a fresh one.
#include "backends/cpu/parallel.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "torchlet/threads.h"

namespace torchlet::backend::cpu {

namespace {

constexpr auto kSpin = std::chrono::microseconds(200);

thread_local bool t_in_loop = false;  // a worker, or a caller inside its loop

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until done() or kSpin has passed; whether done() became true.
template <typename Done>
bool spin_until(Done&& done) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (int i = 1;; ++i) {
    if (done()) return true;
    cpu_relax();
    if (i % 64 == 0 && std::chrono::steady_clock::now() > deadline) return false;
  }
}

class Pool {
 public:
  // Runs fn over `parts` ranges of [0, n): range 0 on the caller, range i on worker i; returns
  // once every worker has checked in, so the next loop cannot overwrite what one still reads.
  void run(int parts, int64_t n, RangeFn fn, void* context) {
    {
      std::lock_guard lock(mutex_);
      while (static_cast<int>(threads_.size()) < parts - 1) {
        const int index = static_cast<int>(threads_.size()) + 1;
        threads_.emplace_back([this, index, seen = generation_.load()] { work(index, seen); });
      }
      fn_ = fn;
      context_ = context;
      n_ = n;
      parts_ = parts;
      pending_.store(static_cast<int>(threads_.size()));  // every worker checks in
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    fn(context, 0, n / parts);
    auto finished = [this] { return pending_.load(std::memory_order_acquire) == 0; };
    if (spin_until(finished)) return;
    std::unique_lock lock(mutex_);
    done_.wait(lock, finished);
  }

 private:
  void work(int index, uint64_t seen) {
    t_in_loop = true;
    auto woken = [&] { return generation_.load(std::memory_order_acquire) != seen; };
    for (;;) {
      if (!spin_until(woken)) {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, woken);
      }
      seen = generation_.load(std::memory_order_acquire);
      if (index < parts_) fn_(context_, n_ * index / parts_, n_ * (index + 1) / parts_);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard lock(mutex_);
        done_.notify_one();
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  // The current loop: written by the caller before generation_ moves on, read by the workers
  // after they see it move.
  RangeFn fn_ = nullptr;
  void* context_ = nullptr;
  int64_t n_ = 0;
  int parts_ = 0;
};

std::mutex g_loop;       // one loop at a time; others run serially meanwhile
Pool* g_pool = nullptr;  // guarded by g_loop
std::once_flag g_atfork;

}  // namespace

void parallel_for_ranges(int64_t n, int64_t grain, RangeFn fn, void* context) {
  if (n <= 0) return;
  const int64_t most = grain > 0 ? n / grain : n;
  const int parts = most < 2 ? 1 : static_cast<int>(std::min<int64_t>(get_num_threads(), most));
  std::unique_lock loop(g_loop, std::defer_lock);
  if (parts < 2 || t_in_loop || !loop.try_lock()) {
    fn(context, 0, n);
    return;
  }
  std::call_once(g_atfork, [] {
    // The child of a fork() has none of the workers: it forgets the pool.
    pthread_atfork(nullptr, nullptr, [] { g_pool = nullptr; });
  });
  if (!g_pool) g_pool = new Pool;
  t_in_loop = true;
  g_pool->run(parts, n, fn, context);
  t_in_loop = false;
}

}  // namespace torchlet::backend::cpu
