// parallel_for, the CPU backend's thread pool: every index is visited exactly once in at most
// get_num_threads() ranges of at least `grain` items, nested loops run on their caller, and
// kernels that split their work give the results of one thread, to rounding.
#include <atomic>
#include <mutex>
#include <thread>

#include "backends/cpu/parallel.h"
#include "testing.h"
#include "torchlet/optim/optimizer.h"

namespace torchlet {
namespace {

using backend::cpu::parallel_for;

// Sets the thread count for one scope.
class ThreadCount {
 public:
  explicit ThreadCount(int n) : saved_(get_num_threads()) { set_num_threads(n); }
  ~ThreadCount() { set_num_threads(saved_); }

 private:
  int saved_;
};

struct Ranges {
  std::mutex mutex;
  std::vector<std::pair<int64_t, int64_t>> seen;
  std::vector<std::thread::id> threads;
};

TEST(ParallelFor, VisitsEveryIndexOnceInFewEnoughLargeEnoughRanges) {
  for (int threads : {1, 2, 3, 5}) {
    ThreadCount count(threads);
    for (int64_t n : {0, 1, 7, 1000, 100003})
      for (int64_t grain : {1, 100, 40000}) {
        std::vector<std::atomic<int>> visits(static_cast<std::size_t>(n));
        Ranges r;
        parallel_for(n, grain, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) visits[i].fetch_add(1);
          std::lock_guard lock(r.mutex);
          r.seen.emplace_back(begin, end);
        });
        const std::string where = "threads " + std::to_string(threads) + " n " + std::to_string(n) +
                                  " grain " + std::to_string(grain);
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(visits[i].load(), 1) << where << " index " << i;
        EXPECT_EQ(r.seen.size(), n == 0 ? 0u : std::clamp<std::size_t>(n / grain, 1, threads))
            << where;
        if (r.seen.size() > 1) {
          for (auto [begin, end] : r.seen) EXPECT_GE(end - begin, grain) << where;
        }
      }
  }
}

TEST(ParallelFor, UsesOtherThreadsAndRunsNestedLoopsOnTheirCaller) {
  ThreadCount count(3);
  Ranges outer;
  std::atomic<int> nested_calls{0};
  parallel_for(3, 1, [&](int64_t begin, int64_t end) {
    const std::thread::id me = std::this_thread::get_id();
    parallel_for(1000, 1, [&](int64_t b, int64_t e) {
      EXPECT_EQ(std::this_thread::get_id(), me);
      EXPECT_EQ(b, 0);
      EXPECT_EQ(e, 1000);
      nested_calls.fetch_add(1);
    });
    std::lock_guard lock(outer.mutex);
    outer.seen.emplace_back(begin, end);
    outer.threads.push_back(me);
  });
  EXPECT_EQ(nested_calls.load(), 3);
  ASSERT_EQ(outer.threads.size(), 3u);
  EXPECT_NE(outer.threads[0], outer.threads[1]);
  EXPECT_NE(outer.threads[1], outer.threads[2]);
  EXPECT_NE(outer.threads[0], outer.threads[2]);
}

// A convolution block's forward, backward and Adam step, large enough that im2col, the GEMMs,
// ReLU, pooling, the bias sums and the update all split; everything that comes out.
std::vector<std::vector<float>> cnn_step(int threads) {
  ThreadCount count(threads);
  Tensor x = testing::random_tensor({16, 8, 20, 20}, 1);
  Tensor w = testing::random_tensor({32, 8, 3, 3}, 2, true);
  Tensor b = testing::random_tensor({32}, 3, true);
  Tensor q = testing::random_tensor({50000}, 4, true);
  Tensor pooled = max_pool2d(conv2d(x, w, b, 1, 1).relu(), 2);
  Tensor loss = (pooled * testing::random_tensor(pooled.shape(), 5)).sum() + (q * q).sum();
  loss.backward();
  std::vector<std::vector<float>> out{pooled.to_vector<float>(), w.grad().to_vector<float>(),
                                      b.grad().to_vector<float>(), q.grad().to_vector<float>()};
  optim::Adam adam({w, b, q}, 1e-2);
  adam.step();
  for (const Tensor& p : {w, b, q}) out.push_back(p.to_vector<float>());
  return out;
}

TEST(ParallelFor, SplitKernelsGiveTheResultsOfOneThread) {
  const auto one = cnn_step(1), three = cnn_step(3);
  ASSERT_EQ(one.size(), three.size());
  // Not bit for bit: OpenBLAS's kernels for a block's edge round differently.
  for (std::size_t i = 0; i < one.size(); ++i)
    EXPECT_TRUE(testing::all_close(three[i], one[i], 1e-5, 1e-5)) << "output " << i;
}

// The reductions split long runs into fixed parts, column sums into column stripes and argmax
// into outputs: the same bits on any thread count.
TEST(ParallelFor, ReductionsGiveTheSameBitsOnAnyThreadCount) {
  const Tensor x = testing::random_tensor({300, 2000}, 6), flat = x.reshape({-1});
  auto run = [&](int threads) {
    ThreadCount count(threads);
    std::vector<std::vector<float>> out;
    for (const Tensor& y : {x.sum(), x.sum(0), x.sum(1), x.mean(0), flat.sum(), x.max(), x.min(),
                            flat.max(), amax(x, {1})})
      out.push_back(y.to_vector<float>());
    for (const Tensor& i : {x.argmax(0), x.argmax(1), flat.argmax(0)}) {
      const std::vector<int64_t> v = i.to_vector<int64_t>();
      out.emplace_back(v.begin(), v.end());
    }
    return out;
  };
  const auto one = run(1);
  EXPECT_EQ(run(2), one);
  EXPECT_EQ(run(3), one);
}

}  // namespace
}  // namespace torchlet
