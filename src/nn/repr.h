// How layers print a height-width pair in their repr, as PyTorch prints a tuple: "(3, 3)".
// Internal header.
#pragma once

#include <string>

#include "torchlet/functional.h"

namespace torchlet::nn {

// Built with += ("(" + std::to_string(...) trips GCC 12's -Wrestrict false positive).
inline std::string pair_text(Size2 s) {
  std::string text = "(";
  text += std::to_string(s.h);
  text += ", ";
  text += std::to_string(s.w);
  text += ")";
  return text;
}

}  // namespace torchlet::nn
