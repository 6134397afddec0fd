// Checkpoints in the safetensors format (Hugging Face's, readable from PyTorch): an 8-byte
// little-endian header length, a JSON header naming each tensor's dtype, shape and byte range,
// then the raw little-endian data. nn::save / nn::load store a module's parameters under their
// named_parameters() names ("0.weight", as PyTorch's state_dict) with a string metadata map.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "torchlet/nn/module.h"
#include "torchlet/tensor.h"

namespace torchlet::nn {

// The header's "__metadata__": string keys and string values (the format allows no others).
using Metadata = std::map<std::string, std::string>;
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// A safetensors file's contents: its tensors (float32 or int64, on the CPU) in the order of
// their data in the file, and its metadata.
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

// Saves every parameter of `module` (see write_safetensors) with `metadata`.
void save(const Module& module, const std::string& path, const Metadata& metadata = {});

// Reads `path` and, only when it holds exactly the module's parameters with their shapes and
// dtypes, copies them into the module's tensors (on whatever device each one lives). Otherwise
// throws torchlet::Error listing the missing, unexpected and mis-shaped tensors, and the
// module is unchanged. Returns the file's metadata.
Metadata load(Module& module, const std::string& path);

}  // namespace torchlet::nn
