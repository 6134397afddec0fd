// Kernels that test the CUDA emulator itself (harness_kernels.cu, rewritten like the project's
// .cu files): a barrier that can be left out, shared memory read before it is written, launches
// at and past sm_90's limits, a write past the end of dynamic shared memory.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace torchlet::emu::harness {

// out[t] = the value thread t + 1 stored in shared memory (threads t < n - 1; with wrap, thread
// n - 1 reads thread 0's): correct with the barrier, wrong without it in some orders.
void neighbour(float* out, int threads, bool sync, bool wrap);
// out[t] = a shared float that no thread wrote.
void read_unwritten(float* out, int threads);
// count += every thread of the grid; shared_bytes of dynamic shared memory (unused).
void count_threads(int* count, dim3 grid, dim3 block, std::size_t shared_bytes);
// cudaFuncSetAttribute(MaxDynamicSharedMemorySize) for count_threads' kernel.
cudaError_t allow_shared(int bytes);
// A block that uses 49,156 bytes of static shared memory (over 48 KiB).
void big_static(float* out);
// Thread 0 returns before a barrier the others wait at.
void early_return(float* out, int threads);
// One thread writes dynamic shared float `index` of shared_bytes / 4.
void write_shared(int index, std::size_t shared_bytes);

}  // namespace torchlet::emu::harness
