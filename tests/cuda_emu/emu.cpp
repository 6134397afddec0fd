// The CUDA emulator's runtime: a grid's blocks run one after another, each block's threads as
// ucontext fibers on the calling thread that run until their next __syncthreads (or their end)
// in the chosen order; a barrier opens when every thread of the block reached it. __shared__
// memory is allocated per block, exactly sized on the heap (AddressSanitizer sees an overflow)
// and filled with 0xFF bytes (a NaN as float and as double) before the block starts.
#include "cuda_emu/emu.h"

#include <ucontext.h>

#include <algorithm>
#include <exception>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>

#include "cuda_runtime_api.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define TORCHLET_EMU_ASAN 1
#endif

namespace torchlet::emu {

namespace {

#if defined(TORCHLET_EMU_ASAN)
constexpr std::size_t kStackBytes = std::size_t{256} << 10;  // frames carry redzones
#else
constexpr std::size_t kStackBytes = std::size_t{64} << 10;
#endif

enum class State { Ready, AtBarrier, Done };

struct Fiber {
  ucontext_t context;
  uint3 index;
  State state = State::Ready;
  std::size_t shared_calls = 0;
  void* fake_stack = nullptr;  // AddressSanitizer's, while switched out
};

struct Block {
  std::vector<Fiber> fibers;
  std::unique_ptr<char[]> stacks;
  ucontext_t scheduler;
  const void* scheduler_stack = nullptr;  // AddressSanitizer: the scheduler's stack bounds
  std::size_t scheduler_stack_size = 0;
  Fiber* running = nullptr;
  std::vector<std::unique_ptr<char[]>> statics;
  std::vector<std::size_t> static_sizes;
  std::size_t static_total = 0;
  std::unique_ptr<char[]> dynamic;
  std::size_t dynamic_bytes = 0;
  std::size_t shared_cap = 0;
  void (*body)(void*) = nullptr;
  void* arg = nullptr;
  std::exception_ptr error;
};

Order g_order = Order::Forward;
uint64_t g_seed = 1;
ThreadState g_state{};
Block* g_block = nullptr;
std::vector<std::string> g_launched;
std::map<std::string, int> g_max_dynamic;  // cudaFuncAttributeMaxDynamicSharedMemorySize
int64_t g_attribute_calls = 0;

std::unique_ptr<char[]> nan_filled(std::size_t bytes) {
  auto p = std::make_unique<char[]>(bytes);
  std::memset(p.get(), 0xFF, bytes);
  return p;
}

// Switches from the running fiber to the scheduler (the fiber resumes later, or never when done).
void to_scheduler(Fiber& f, bool done) {
  Block& b = *g_block;
#if defined(TORCHLET_EMU_ASAN)
  __sanitizer_start_switch_fiber(done ? nullptr : &f.fake_stack, b.scheduler_stack,
                                 b.scheduler_stack_size);
#endif
  swapcontext(&f.context, &b.scheduler);
#if defined(TORCHLET_EMU_ASAN)
  __sanitizer_finish_switch_fiber(f.fake_stack, nullptr, nullptr);
#else
  (void)done;
#endif
}

void fiber_main() {
  Block& b = *g_block;
  Fiber& f = *b.running;
#if defined(TORCHLET_EMU_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, &b.scheduler_stack, &b.scheduler_stack_size);
#endif
  try {
    b.body(b.arg);
  } catch (...) {
    if (!b.error) b.error = std::current_exception();
  }
  f.state = State::Done;
  to_scheduler(f, true);
}

void resume(Block& b, Fiber& f, std::size_t stack_index) {
  b.running = &f;
  g_state.thread_idx = f.index;
  (void)stack_index;
#if defined(TORCHLET_EMU_ASAN)
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, b.stacks.get() + stack_index * kStackBytes, kStackBytes);
#endif
  swapcontext(&b.scheduler, &f.context);
#if defined(TORCHLET_EMU_ASAN)
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
}

std::vector<std::size_t> permutation(std::size_t n, std::mt19937_64& rng) {
  std::vector<std::size_t> p(n);
  std::iota(p.begin(), p.end(), std::size_t{0});
  if (g_order == Order::Reverse) std::reverse(p.begin(), p.end());
  if (g_order == Order::Shuffled) std::shuffle(p.begin(), p.end(), rng);
  return p;
}

[[noreturn]] void refuse(const char* kernel, const std::string& why) {
  throw LaunchError(std::string(kernel) + ": " + why);
}

void check_config(const char* kernel, const Config& c) {
  const dim3 &g = c.grid, &t = c.block;
  const unsigned long long threads = 1ull * t.x * t.y * t.z;
  std::ostringstream dims;
  dims << "grid (" << g.x << ", " << g.y << ", " << g.z << "), block (" << t.x << ", " << t.y
       << ", " << t.z << ")";
  if (g.x == 0 || g.y == 0 || g.z == 0 || threads == 0)
    refuse(kernel, "Expected no zero dimension, but got " + dims.str());
  if (threads > kMaxThreadsPerBlock || t.z > 64)
    refuse(kernel, "Expected at most 1024 threads a block (z at most 64), but got " + dims.str());
  if (g.y > kMaxGridYZ || g.z > kMaxGridYZ || g.x > 0x7FFFFFFFu)
    refuse(kernel, "Expected at most 65535 blocks in y and z, but got " + dims.str());
}

void run_block(Block& b, std::size_t threads) {
  for (std::size_t k = 0; k < threads; ++k) {
    Fiber& f = b.fibers[k];
    f.state = State::Ready;
    f.shared_calls = 0;
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = b.stacks.get() + k * kStackBytes;
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = nullptr;
    makecontext(&f.context, fiber_main, 0);
  }
  b.statics.clear();
  b.static_sizes.clear();
  b.static_total = 0;
  b.dynamic = nan_filled(b.dynamic_bytes);
  b.error = nullptr;
  std::mt19937_64 rng(g_seed);
  for (;;) {
    for (std::size_t k : permutation(threads, rng)) {
      if (b.fibers[k].state == State::Ready) resume(b, b.fibers[k], k);
      if (b.error) std::rethrow_exception(b.error);
    }
    std::size_t done = 0, waiting = 0;
    for (std::size_t k = 0; k < threads; ++k) {
      done += b.fibers[k].state == State::Done;
      waiting += b.fibers[k].state == State::AtBarrier;
    }
    if (done == threads) return;
    if (done > 0)
      throw LaunchError("Expected every thread of a block at __syncthreads(), but " +
                        std::to_string(done) + " of " + std::to_string(threads) +
                        " had returned while " + std::to_string(waiting) + " waited");
    for (std::size_t k = 0; k < threads; ++k) b.fibers[k].state = State::Ready;
  }
}

}  // namespace

const char* order_name(Order order) {
  switch (order) {
    case Order::Forward: return "forward";
    case Order::Reverse: return "reverse";
    case Order::Shuffled: return "shuffled";
  }
  return "?";
}

void set_order(Order order, uint64_t seed) {
  g_order = order;
  g_seed = seed;
}

const std::vector<std::string>& launched() { return g_launched; }
void clear_launched() { g_launched.clear(); }
void clear_attributes() { g_max_dynamic.clear(); }
int64_t attribute_calls() { return g_attribute_calls; }

const ThreadState& current() { return g_state; }

void sync_threads() {
  Fiber& f = *g_block->running;
  f.state = State::AtBarrier;
  to_scheduler(f, false);
}

void* shared_static(std::size_t bytes) {
  Block& b = *g_block;
  Fiber& f = *b.running;
  const std::size_t n = f.shared_calls++;
  if (n == b.statics.size()) {
    b.static_total += bytes;
    if (b.static_total + b.dynamic_bytes > b.shared_cap)
      throw LaunchError("Expected at most " + std::to_string(b.shared_cap) +
                        " bytes of shared memory a block, but got " +
                        std::to_string(b.static_total) + " static and " +
                        std::to_string(b.dynamic_bytes) + " dynamic");
    b.statics.push_back(nan_filled(bytes));
    b.static_sizes.push_back(bytes);
  }
  if (b.static_sizes[n] != bytes)
    throw LaunchError("Expected every thread to declare the same __shared__ arrays in order");
  return b.statics[n].get();
}

void* shared_dynamic() { return g_block->dynamic.get(); }

cudaError_t set_attribute(const char* kernel, cudaFuncAttribute attribute, int value) {
  ++g_attribute_calls;
  if (attribute != cudaFuncAttributeMaxDynamicSharedMemorySize || value < 0 ||
      static_cast<std::size_t>(value) > kSharedOptIn)
    return cudaErrorInvalidValue;
  g_max_dynamic[kernel] = value;
  return cudaSuccess;
}

std::function<void(std::function<void()>)>& capture_sink() {
  static auto* sink = new std::function<void(std::function<void()>)>;  // used at exit
  return *sink;
}

void submit(std::function<void()> work) {
  if (capture_sink())
    capture_sink()(std::move(work));
  else
    work();
}

void run_grid(const char* kernel, const Config& config, void (*body)(void*), void* arg) {
  check_config(kernel, config);
  const auto attribute = g_max_dynamic.find(kernel);
  const bool opted_in = attribute != g_max_dynamic.end();
  const std::size_t dynamic_cap =
      opted_in ? static_cast<std::size_t>(attribute->second) : kSharedDefault;
  if (config.shared_bytes > dynamic_cap)
    refuse(kernel, "Expected at most " + std::to_string(dynamic_cap) +
                       " bytes of dynamic shared memory" +
                       (opted_in ? " (cudaFuncSetAttribute)" : " without cudaFuncSetAttribute") +
                       ", but got " + std::to_string(config.shared_bytes));
  g_launched.emplace_back(kernel);
  const dim3 &g = config.grid, &t = config.block;
  const std::size_t threads = std::size_t{t.x} * t.y * t.z;
  Block b;
  b.fibers.resize(threads);
  for (std::size_t k = 0; k < threads; ++k)
    b.fibers[k].index = {static_cast<unsigned>(k % t.x), static_cast<unsigned>(k / t.x % t.y),
                         static_cast<unsigned>(k / (std::size_t{t.x} * t.y))};
  b.stacks = std::make_unique<char[]>(threads * kStackBytes);
  b.dynamic_bytes = config.shared_bytes;
  b.shared_cap = opted_in ? kSharedOptIn : kSharedDefault;
  b.body = body;
  b.arg = arg;
  g_state.block_dim = t;
  g_state.grid_dim = g;
  const std::size_t blocks = std::size_t{g.x} * g.y * g.z;
  std::mt19937_64 rng(g_seed ^ 0x9E3779B97F4A7C15ull);
  Block* outer = g_block;
  g_block = &b;
  try {
    for (std::size_t k : permutation(blocks, rng)) {
      g_state.block_idx = {static_cast<unsigned>(k % g.x), static_cast<unsigned>(k / g.x % g.y),
                           static_cast<unsigned>(k / (std::size_t{g.x} * g.y))};
      run_block(b, threads);
    }
  } catch (...) {
    g_block = outer;
    throw;
  }
  g_block = outer;
}

}  // namespace torchlet::emu
