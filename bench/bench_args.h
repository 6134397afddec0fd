// Command-line parsing shared by the bench programs: an integer option, or exit status 2 with
// a line naming the program, the flag and what was given.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace bench {

inline int parse_int(const char* program, const char* flag, const char* value, int min) {
  char* end = nullptr;
  const long v = value ? std::strtol(value, &end, 10) : 0;
  if (!value || *end != '\0' || v < min || v > 1'000'000'000) {
    std::fprintf(stderr, "%s: %s: Expected an integer >= %d, but got '%s'\n", program, flag, min,
                 value ? value : "");
    std::exit(2);
  }
  return static_cast<int>(v);
}

}  // namespace bench
