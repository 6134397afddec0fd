// What `torchlet train --save` keeps beside the weights, in the checkpoint's metadata: enough
// to rebuild the MLP, scale new rows exactly as the training rows were, name the classes and
// continue training (the optimizer's state is in the same file, see nn::save). `torchlet predict`
// and `train --resume` read it back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "torchlet/nn/checkpoint.h"
#include "torchlet/tensor.h"

namespace torchlet::cli {

// A fitted feature scaler, with scikit-learn's attribute names: minmax computes
// x * scale + min, standard (x - mean) / scale, both in double; none leaves x alone.
struct ScalerParams {
  std::string kind = "none";  // "minmax", "standard" or "none"
  std::vector<double> scale, min, mean;
};

struct SavedModel {
  std::vector<int64_t> layers;  // the MLP's widths: features, hidden..., classes
  std::vector<std::string> features, classes;
  ScalerParams scaler;
  int64_t epochs = 0;     // epochs trained so far, over every resumed run
  std::string optimizer;  // what trained it: sgd or adam
  double lr = 0.0, momentum = 0.0;
  std::string torchlet_version;
  // Whose state the checkpoint holds beside the weights ("SGD", "Adam"; nn::save with an
  // optimizer writes it), or "" for a checkpoint without one. Read only: to_metadata leaves
  // it to nn::save.
  std::string optimizer_state;
};

nn::Metadata to_metadata(const SavedModel& model);
// Reads and checks the metadata of the checkpoint at `path` (named in errors): every key
// present, lists of the right lengths, widths > 0.
SavedModel from_metadata(const nn::Metadata& metadata, const std::string& path);
// The checkpoint's metadata, read (and checked) without a module to load it into.
SavedModel read_saved_model(const std::string& path);

// Throws torchlet::Error (naming the checkpoint `path` and the option to change) unless a run
// that would make `fresh` (its layers, features, classes and scaler kind) and train until
// `epochs` can continue `saved`: the same model on the same columns, with epochs left to do.
void check_resumable(const SavedModel& saved, const std::string& path, const SavedModel& fresh,
                     int64_t epochs);

// X [rows, features] float32 on the CPU, scaled as `scaler` says (bit-identical to
// data::MinMaxScaler / data::StandardScaler's transform with the same parameters).
Tensor apply_scaler(const ScalerParams& scaler, const Tensor& X);

}  // namespace torchlet::cli
