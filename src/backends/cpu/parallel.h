// parallel_for: the CPU kernels' way to use every core on large tensors. [0, n) is cut into
// at most get_num_threads() contiguous ranges of at least `grain` items; the calling thread
// runs the first and a small pool of sleeping workers the others. Small work, a nested call,
// or a call while another thread's loop is running runs on the caller alone. Every item is
// computed by one thread in the same order as serially, so results do not depend on the
// thread count.
#pragma once

#include <cstdint>
#include <type_traits>

namespace torchlet::backend::cpu {

// Items per thread below which splitting costs more than it saves: about 256 KB of floats,
// some 20-40 us of streaming, against a sleeping worker's wake-up of tens of microseconds on a
// virtual machine (2^14 made the tables' small batched steps 10-15% slower on 2 threads).
inline constexpr int64_t kParallelGrain = int64_t{1} << 16;

using RangeFn = void (*)(void* context, int64_t begin, int64_t end);
void parallel_for_ranges(int64_t n, int64_t grain, RangeFn fn, void* context);

// Calls body(begin, end) over disjoint ranges covering [0, n), concurrently. body must not
// throw: check arguments before the loop.
template <typename Body>
void parallel_for(int64_t n, int64_t grain, Body&& body) {
  if (n < 2 * grain) {  // one range: run it here, inlined (most kernels of small models)
    if (n > 0) body(int64_t{0}, n);
    return;
  }
  using B = std::remove_reference_t<Body>;
  parallel_for_ranges(
      n, grain,
      [](void* context, int64_t begin, int64_t end) { (*static_cast<B*>(context))(begin, end); },
      const_cast<void*>(static_cast<const void*>(&body)));
}

}  // namespace torchlet::backend::cpu
