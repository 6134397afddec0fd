// Questions about CUDA devices that every build can answer (false / 0 without CUDA).
#pragma once

namespace torchlet::cuda {

// True when torchlet was built with CUDA and at least one usable GPU is present.
bool is_available();
// The number of CUDA devices torchlet can use (0 in a CPU-only build or without a GPU).
int device_count();

}  // namespace torchlet::cuda
