// `torchlet train --resume`: whether a checkpoint can be continued by this run.
#pragma once

#include <cstdint>
#include <string>

#include "torchlet/train/saved_model.h"

namespace torchlet::cli {

// Throws torchlet::Error (naming the checkpoint `path` and the option to change) unless a run
// that would make `fresh` (its layers, features, classes and scaler kind) and train until
// `epochs` can continue `saved`: the same model on the same columns, with epochs left to do.
void check_resumable(const SavedModel& saved, const std::string& path, const SavedModel& fresh,
                     int64_t epochs);

}  // namespace torchlet::cli
