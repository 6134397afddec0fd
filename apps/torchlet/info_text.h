// Text layout helpers shared by torchlet info's printers (internal to the CLI): one labelled
// row per fact, values starting in one column, and the name explanations.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "torchlet/hw/gpu_specs.h"
#include "torchlet/hw/names.h"

namespace torchlet::cli::info {

inline constexpr int kValueColumn = 24;

// "  Label                 value", the label indented by `indent`.
void row(std::string_view label, std::string_view value, int indent = 2);
// The first value on the labelled row, the rest below it in the value column.
void rows(std::string_view label, const std::vector<std::string>& values, int indent = 2);
std::string bytes_text(uint64_t bytes);  // "32 KiB", "12.0 GiB"
std::string mhz_text(double mhz);        // "2.45 GHz", "800 MHz"
std::vector<std::string> vram_lines(const hw::VramVerdict& v);
void print_peaks(const hw::GpuPeaks& p, int indent);
void print_cpu_name(const hw::CpuName& c, int indent, std::string_view heading);
void print_gpu_name(const hw::GpuName& g, int indent, std::string_view heading);

}  // namespace torchlet::cli::info
