// Recognising a small MLP's training step in a recording, so compile() runs the backend's
// fused kernels (FusedMlpKernels) instead of replaying it kernel by kernel.
#pragma once

#include <functional>
#include <vector>

#include "backends/recorder.h"

namespace torchlet::compile_detail {

// When `calls` are exactly the kernels of: Linear layers (with bias) with ReLU between them on
// the whole of one input X, the mean cross-entropy against int64 targets into `loss`, the
// backward of that loss into fresh gradient buffers (X needing none) and one SGD step over
// exactly those parameters, returns one call doing the same through target.fused_mlp(): plain
// SGD as mlp_sgd_steps, other SGD settings as mlp_step then the recorded sgd_step. Else (or
// when the target has no fused kernels) returns an empty function.
std::function<void()> fuse_mlp(const std::vector<backend::RecordedCall>& calls,
                               backend::Backend& target, const void* loss);

}  // namespace torchlet::compile_detail
