// The mini-batch order of torchlet::train over tensors, for a loop that must repeat it (the
// batched members of train/table_fit.h).
#pragma once

#include <cstdint>

#include "torchlet/tensor.h"

namespace torchlet {

// The order of the n rows in epoch `epoch` (numbered over the whole run) of a run shuffled
// from `seed`: what train's mini-batches take, on `device`.
Tensor shuffled_rows(int64_t n, uint64_t seed, int64_t epoch, const Device& device);

}  // namespace torchlet
