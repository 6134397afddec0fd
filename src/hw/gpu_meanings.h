// What the parts of a GPU name mean: generations, tiers, data-center letters and suffixes,
// written into a GpuName once gpu_names.cpp has cut the name up (internal to src/hw).
#pragma once

#include <string>

#include "hw/name_tokens.h"
#include "torchlet/hw/names.h"

namespace torchlet::hw {

// The suffix words found in a name.
struct Suffixes {
  bool ti = false, super = false, d = false, laptop = false, max_q = false;
  bool pcie = false, nvl = false, sff = false, ada_generation = false;
  std::string sxm, hbm, edition;  // as written: "SXM4", "HBM3", "Server Edition"
};

// prefix: "rtx", "gtx", "gt" or "mx"; number: "3080" ("" when the name has none).
void set_geforce_model(GpuName& g, const std::string& prefix, const std::string& number);
// variant: "RTX", "V", "Xp", "X", "Z", "Black" or "".
void set_titan(GpuName& g, const std::string& variant, bool gtx, bool pascal);
void set_quadro(GpuName& g, const std::string& model, bool rtx);
void set_rtx_pro(GpuName& g, const std::string& number, bool blackwell);
void set_rtx_a(GpuName& g, const std::string& model);
void set_rtx_ada_or_ambiguous(GpuName& g, const std::string& number, bool ada);
// "A100", "T4", "L40S", "GH200": false when the letters name no data-center generation.
bool set_datacenter(GpuName& g, const AlphaNum& word, bool tesla);
void set_jetson(GpuName& g, const std::string& chip);
// brand_word: "radeon", "instinct", "arc", "iris", "uhd" or "".
void set_other_vendor(GpuName& g, const std::string& brand_word);
void set_suffix_meanings(GpuName& g, const Suffixes& s);

}  // namespace torchlet::hw
