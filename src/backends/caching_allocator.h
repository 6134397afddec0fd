// A caching allocator: freed blocks are kept by size and handed out again, so a training loop
// that makes the same tensors every step stops calling the system allocator after its first
// step. Device-independent: a backend gives it raw allocate and free functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace torchlet::backend {

struct AllocatorStats {
  std::size_t bytes_in_use = 0;    // held by live tensors
  std::size_t bytes_reserved = 0;  // in use plus cached
  std::size_t peak_bytes_in_use = 0;
  uint64_t raw_allocations = 0;  // calls that reached the system allocator
};

class CachingAllocator {
 public:
  using RawAllocate = void* (*)(std::size_t nbytes);  // returns null when out of memory
  using RawFree = void (*)(void* ptr);

  CachingAllocator(RawAllocate raw_allocate, RawFree raw_free)
      : raw_allocate_(raw_allocate), raw_free_(raw_free) {}
  ~CachingAllocator() { empty_cache(); }

  // Blocks are rounded up to kAlignment bytes; returns null when the system has no memory
  // left even after the cache was emptied. *reached_system (when given) says whether the
  // block came from the system allocator rather than the cache (for the profile counters).
  void* allocate(std::size_t nbytes, bool* reached_system = nullptr);
  void deallocate(void* ptr, std::size_t nbytes) noexcept;
  // Gives every cached block back to the system.
  void empty_cache() noexcept;
  AllocatorStats stats() const;

  static constexpr std::size_t kAlignment = 64;
  static std::size_t rounded(std::size_t nbytes) {
    return nbytes == 0 ? kAlignment : (nbytes + kAlignment - 1) / kAlignment * kAlignment;
  }

 private:
  void release_cached() noexcept;  // caller holds mutex_

  RawAllocate raw_allocate_;
  RawFree raw_free_;
  mutable std::mutex mutex_;
  std::unordered_map<std::size_t, std::vector<void*>> cached_;  // by rounded size
  AllocatorStats stats_;
};

}  // namespace torchlet::backend
