// The profile counters: relaxed atomics, so recording from any thread costs one add. Times
// are kept in nanoseconds as integers and read back as seconds.
#include "torchlet/profile.h"

#include <atomic>

namespace torchlet::profile {

namespace {

struct Atomics {
  std::atomic<uint64_t> launches{0};
  std::atomic<uint64_t> syncs{0};
  std::atomic<uint64_t> sync_ns{0};
  std::atomic<uint64_t> copies[kCopyKinds]{};
  std::atomic<uint64_t> copy_bytes[kCopyKinds]{};
  std::atomic<uint64_t> copy_ns[kCopyKinds]{};
  std::atomic<uint64_t> allocations{0};
  std::atomic<uint64_t> allocation_bytes{0};
  std::atomic<uint64_t> system_allocations{0};
};

Atomics& state() {
  static Atomics atomics;
  return atomics;
}

constexpr auto kRelaxed = std::memory_order_relaxed;

uint64_t to_ns(double seconds) { return seconds > 0 ? static_cast<uint64_t>(seconds * 1e9) : 0; }
double to_seconds(uint64_t ns) { return static_cast<double>(ns) * 1e-9; }

}  // namespace

Counters counters() {
  const Atomics& s = state();
  Counters c;
  c.launches = s.launches.load(kRelaxed);
  c.syncs = s.syncs.load(kRelaxed);
  c.sync_seconds = to_seconds(s.sync_ns.load(kRelaxed));
  for (int k = 0; k < kCopyKinds; ++k) {
    c.copies[k] = s.copies[k].load(kRelaxed);
    c.copy_bytes[k] = s.copy_bytes[k].load(kRelaxed);
    c.copy_seconds[k] = to_seconds(s.copy_ns[k].load(kRelaxed));
  }
  c.allocations = s.allocations.load(kRelaxed);
  c.allocation_bytes = s.allocation_bytes.load(kRelaxed);
  c.system_allocations = s.system_allocations.load(kRelaxed);
  return c;
}

void reset() {
  Atomics& s = state();
  s.launches.store(0, kRelaxed);
  s.syncs.store(0, kRelaxed);
  s.sync_ns.store(0, kRelaxed);
  for (int k = 0; k < kCopyKinds; ++k) {
    s.copies[k].store(0, kRelaxed);
    s.copy_bytes[k].store(0, kRelaxed);
    s.copy_ns[k].store(0, kRelaxed);
  }
  s.allocations.store(0, kRelaxed);
  s.allocation_bytes.store(0, kRelaxed);
  s.system_allocations.store(0, kRelaxed);
}

Counters operator-(const Counters& after, const Counters& before) {
  Counters d;
  d.launches = after.launches - before.launches;
  d.syncs = after.syncs - before.syncs;
  d.sync_seconds = after.sync_seconds - before.sync_seconds;
  for (int k = 0; k < kCopyKinds; ++k) {
    d.copies[k] = after.copies[k] - before.copies[k];
    d.copy_bytes[k] = after.copy_bytes[k] - before.copy_bytes[k];
    d.copy_seconds[k] = after.copy_seconds[k] - before.copy_seconds[k];
  }
  d.allocations = after.allocations - before.allocations;
  d.allocation_bytes = after.allocation_bytes - before.allocation_bytes;
  d.system_allocations = after.system_allocations - before.system_allocations;
  return d;
}

void record_launch(uint64_t n) noexcept { state().launches.fetch_add(n, kRelaxed); }

void record_sync(double seconds) noexcept {
  state().syncs.fetch_add(1, kRelaxed);
  state().sync_ns.fetch_add(to_ns(seconds), kRelaxed);
}

void record_copy(CopyKind kind, uint64_t bytes, double seconds) noexcept {
  const int k = static_cast<int>(kind);
  state().copies[k].fetch_add(1, kRelaxed);
  state().copy_bytes[k].fetch_add(bytes, kRelaxed);
  state().copy_ns[k].fetch_add(to_ns(seconds), kRelaxed);
}

void record_allocation(uint64_t bytes, bool reached_system) noexcept {
  state().allocations.fetch_add(1, kRelaxed);
  state().allocation_bytes.fetch_add(bytes, kRelaxed);
  if (reached_system) state().system_allocations.fetch_add(1, kRelaxed);
}

}  // namespace torchlet::profile
