// Checkpoints in the safetensors format (Hugging Face's, readable from PyTorch): an 8-byte
// little-endian header length, a JSON header naming each tensor's dtype, shape and byte range,
// then the raw little-endian data. nn::save / nn::load store a module's parameters and buffers
// under their state_dict() names ("0.weight", "bn.running_mean", as PyTorch's) with a string
// metadata map;
// given an optimizer, they also keep its state, so that training resumes where it stopped.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "torchlet/nn/module.h"
#include "torchlet/optim/optimizer.h"
#include "torchlet/tensor.h"

namespace torchlet::nn {

// The header's "__metadata__": string keys and string values (the format allows no others).
using Metadata = std::map<std::string, std::string>;
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// A safetensors file's contents: its tensors (float32, float64 or int64, on the CPU) in the order
// of their data in the file, and its metadata.
struct Safetensors {
  NamedTensors tensors;
  Metadata metadata;
};

// Writes float32 tensors as F32 and int64 ones as I64, on any device (copied to the host, so
// this waits for the device), atomically (io::write_file_atomic): a crash or a full disk
// leaves the old file. Names must be unique, non-empty and not "__metadata__".
void write_safetensors(const std::string& path, const NamedTensors& tensors,
                       const Metadata& metadata = {});

// Reads and validates the whole file before returning anything: the header length within the
// file, a JSON object header, known dtypes, shapes whose byte sizes match their offsets,
// offsets inside the data and neither overlapping nor leaving bytes unclaimed, string
// metadata. Throws torchlet::Error naming the file and what is wrong.
Safetensors read_safetensors(const std::string& path);
// The same checks on a file's bytes in memory; `name` stands for the file in error messages.
Safetensors parse_safetensors(std::string_view bytes, const std::string& name);

// A checkpoint with an optimizer's state names the optimizer ("SGD", "Adam") under this
// metadata key and stores each state tensor beside the parameters as "optimizer.<parameter
// name>.<state name>", e.g. "optimizer.0.weight.exp_avg" (Adam's "step" an I64 scalar). One
// file, so one atomic rename keeps weights and state in step. PyTorch's load_state_dict wants
// the parameters only: leave out the names starting with "optimizer.".
inline constexpr const char* kOptimizerStateKey = "optimizer_state";

// Saves every parameter of `module` (see write_safetensors) with `metadata`, which must not use
// the key kOptimizerStateKey.
void save(const Module& module, const std::string& path, const Metadata& metadata = {});
// The same, plus the state of `optimizer` (optimizer.state_dict()), whose parameters must be
// the module's.
void save(const Module& module, const optim::Optimizer& optimizer, const std::string& path,
          const Metadata& metadata = {});

// Reads `path` and, only when it holds exactly the module's parameters with their shapes and
// dtypes, copies them into the module's tensors (on whatever device each one lives). Otherwise
// throws torchlet::Error listing the missing, unexpected and mis-shaped tensors, and the
// module is unchanged. An optimizer's state in the file is left alone. Returns the file's
// metadata.
Metadata load(Module& module, const std::string& path);
// The same, and the optimizer's state from the file into `optimizer`. Throws torchlet::Error,
// changing neither the module nor the optimizer, also when the file holds no optimizer state
// or another kind's, state for a tensor that is not a parameter, or state that
// optimizer.load_state_dict refuses (unknown, incomplete or mis-shaped).
Metadata load(Module& module, optim::Optimizer& optimizer, const std::string& path);

}  // namespace torchlet::nn
