// The pieces of `torchlet info` (internal to the CLI): explaining typed-in names, and writing
// the hardware report, explanations and comparisons as text (info_text.cpp) or JSON
// (info_json.cpp, whose field names docs/info.md documents).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "torchlet/hw/cpu.h"
#include "torchlet/hw/gpu.h"
#include "torchlet/hw/gpu_specs.h"
#include "torchlet/hw/names.h"

namespace torchlet::cli::info {

// A name given to --explain or --compare, read as the kind of hardware it looks like.
struct Explained {
  std::string input;
  hw::NameKind kind = hw::NameKind::Unknown;
  hw::CpuName cpu;                 // when kind == Cpu
  hw::GpuExplanation gpu;          // when kind == Gpu
  std::vector<std::string> words;  // when kind == Unknown: every word, none recognised
};
Explained explain(const std::string& name);

inline constexpr int kJsonSchemaVersion = 1;

void print_cpu(const hw::CpuReport& cpu);
void print_gpu(const hw::GpuReport& gpu);
void print_explained(const Explained& e);
void print_comparison(const std::vector<Explained>& names);

nlohmann::json cpu_json(const hw::CpuReport& cpu);
nlohmann::json gpu_json(const hw::GpuReport& gpu);
nlohmann::json explained_json(const Explained& e);

}  // namespace torchlet::cli::info
