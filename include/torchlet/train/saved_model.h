// What `torchlet train --save` keeps beside the weights, in the checkpoint's metadata: enough
// to rebuild the MLP, scale new rows exactly as the training rows were, name the classes and
// continue training (the optimizer's state is in the same file, see nn::save). `torchlet predict`
// and `train --resume` read it back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "torchlet/data/dataset.h"
#include "torchlet/data/table.h"
#include "torchlet/nn/checkpoint.h"

namespace torchlet {

struct SavedModel {
  std::vector<int64_t> layers;  // the MLP's widths: features, hidden..., classes
  std::vector<std::string> features, classes;
  data::ScalerParams scaler;
  int64_t epochs = 0;     // epochs trained so far, over every resumed run
  std::string optimizer;  // what trained it: sgd or adam
  double lr = 0.0, momentum = 0.0;
  std::string torchlet_version;
  // Whose state the checkpoint holds beside the weights ("SGD", "Adam"; nn::save with an
  // optimizer writes it), or "" for a checkpoint without one. Read only: to_metadata leaves
  // it to nn::save.
  std::string optimizer_state;
  // A model of a table (read_table): its fitted schema, whose input_names() are the features.
  // A regression model has no classes and one output.
  std::optional<data::TableSchema> table{};
  // A table's model: how many members (TableEnsemble's, their weights "member<k>.") its
  // prediction averages; 1: one TableModel. Metadata 'members', absent in older checkpoints.
  int64_t members = 1;
};

nn::Metadata to_metadata(const SavedModel& model);
// Reads and checks the metadata of the checkpoint at `path` (named in errors): every key
// present, lists of the right lengths, widths > 0.
SavedModel from_metadata(const nn::Metadata& metadata, const std::string& path);
// The checkpoint's metadata, read (and checked, with its MLP's tensors) without a module to load
// it into.
SavedModel read_saved_model(const std::string& path);

}  // namespace torchlet
