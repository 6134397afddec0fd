// Pieces shared by the CPU name parsers (internal to src/hw): the vendor-specific parsers and
// the suffix-letter decoder.
#pragma once

#include <span>
#include <string>

#include "hw/name_tokens.h"
#include "torchlet/hw/names.h"

namespace torchlet::hw {

struct SuffixMeaning {
  const char* code;  // upper case: "K", "HX", "X3D"
  const char* meaning;
};

// Decodes the letters after a model number ("KF", "HX", "X3D"): a whole-code match in
// `combined` first, then letter by letter in `single`; unknown letters are reported.
void add_cpu_suffixes(CpuName& c, const std::string& letters,
                      std::span<const SuffixMeaning> combined,
                      std::span<const SuffixMeaning> single);

std::string ordinal(int n);  // 1 -> "1st", 11 -> "11th", 22 -> "22nd"

// The first unused token that starts with digits ("11300H", "7800X3D", "8480+"), or -1.
int find_model_token(const NameTokens& t);

void parse_intel(CpuName& c, NameTokens& t);
void parse_amd(CpuName& c, NameTokens& t);

}  // namespace torchlet::hw
