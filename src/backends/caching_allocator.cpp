// CachingAllocator: exact-size free lists (sizes rounded to 64 bytes).
#include "backends/caching_allocator.h"

#include <algorithm>

namespace torchlet::backend {

void* CachingAllocator::allocate(std::size_t nbytes, bool* reached_system) {
  const std::size_t size = rounded(nbytes);
  if (reached_system) *reached_system = false;
  std::lock_guard lock(mutex_);
  void* ptr = nullptr;
  auto it = cached_.find(size);
  if (it != cached_.end() && !it->second.empty()) {
    ptr = it->second.back();
    it->second.pop_back();
  } else {
    ptr = raw_allocate_(size);
    if (!ptr) {  // out of memory: give the cache back and try once more
      release_cached();
      ptr = raw_allocate_(size);
      if (!ptr) return nullptr;
    }
    ++stats_.raw_allocations;
    if (reached_system) *reached_system = true;
    stats_.bytes_reserved += size;
  }
  stats_.bytes_in_use += size;
  stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  return ptr;
}

void CachingAllocator::deallocate(void* ptr, std::size_t nbytes) noexcept {
  const std::size_t size = rounded(nbytes);
  std::lock_guard lock(mutex_);
  stats_.bytes_in_use -= size;
  try {
    cached_[size].push_back(ptr);
  } catch (...) {  // no memory for the list itself: free the block instead
    raw_free_(ptr);
    stats_.bytes_reserved -= size;
  }
}

void CachingAllocator::empty_cache() noexcept {
  std::lock_guard lock(mutex_);
  release_cached();
}

void CachingAllocator::release_cached() noexcept {
  for (auto& [size, blocks] : cached_) {
    for (void* block : blocks) raw_free_(block);
    stats_.bytes_reserved -= size * blocks.size();
  }
  cached_.clear();
}

AllocatorStats CachingAllocator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace torchlet::backend
