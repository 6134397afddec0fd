// Counters of what the devices did: kernel launches, synchronisations, copies between host
// and device, allocations, and the time spent in each where it can be timed. They answer the
// course's question "why was the GPU slower?" with counts instead of guesses.
//
// Counting is always on and costs one relaxed atomic add per event. Read a snapshot before
// and after the work you want to measure and subtract:
//
//   auto before = torchlet::profile::counters();
//   train_one_epoch();
//   auto spent = torchlet::profile::counters() - before;
//   std::cout << spent.launches << " launches, " << spent.syncs << " syncs\n";
#pragma once

#include <cstdint>

namespace torchlet::profile {

// The direction of a copy. On the CPU device "host" and "device" are the same memory; its
// copies are counted all the same, so the counts of a program agree across devices.
enum class CopyKind : uint8_t { HostToDevice, DeviceToHost, DeviceToDevice };
inline constexpr int kCopyKinds = 3;

struct Counters {
  // Kernels started: on the CPU one backend kernel call (every Backend method that computes,
  // from fill to adam_step; mlp_sgd_steps, the replayed training step, counts once), on CUDA
  // one kernel launch or one cuBLAS call, and one per CUDA graph replay. Copies, allocations
  // and synchronize() are not launches.
  uint64_t launches = 0;
  // Waits of the host for a device result. A backend records exactly one per copy_to_host
  // (which item(), to_vector() and to(cpu) go through: Tensor::item() is one sync and one
  // device-to-host copy) and one per synchronize() called from outside the backend; a
  // copy_to_host that waits by calling its own synchronize() still counts once. The CPU
  // device counts the same events although it never waits, so that the counts of one program
  // agree across devices.
  uint64_t syncs = 0;
  double sync_seconds = 0;  // host steady-clock time spent waiting (always 0 on the CPU)
  // Copies by CopyKind (index with static_cast<int>(kind)).
  uint64_t copies[kCopyKinds] = {};
  uint64_t copy_bytes[kCopyKinds] = {};
  double copy_seconds[kCopyKinds] = {};  // host time of copies that wait (0 for queued ones)
  // Requests for device memory (one per backend allocate()), and how many reached the system
  // allocator (the rest came from the backend's caching allocator).
  uint64_t allocations = 0;
  uint64_t allocation_bytes = 0;
  uint64_t system_allocations = 0;

  uint64_t copies_of(CopyKind kind) const { return copies[static_cast<int>(kind)]; }
  uint64_t bytes_of(CopyKind kind) const { return copy_bytes[static_cast<int>(kind)]; }
  // Over every direction.
  uint64_t total_copies() const { return copies[0] + copies[1] + copies[2]; }
  uint64_t total_copy_bytes() const { return copy_bytes[0] + copy_bytes[1] + copy_bytes[2]; }
};

// What has been counted since the process started (or since reset()).
Counters counters();
// Sets every counter to zero.
void reset();
// The counts between two snapshots: after - before.
Counters operator-(const Counters& after, const Counters& before);

// --- recording (called by backends) ---------------------------------------------------------
void record_launch(uint64_t n = 1) noexcept;
void record_sync(double seconds) noexcept;
void record_copy(CopyKind kind, uint64_t bytes, double seconds) noexcept;
void record_allocation(uint64_t bytes, bool reached_system) noexcept;

}  // namespace torchlet::profile
