// The one way a command prints its JSON object: one line on stdout, flushed and checked.
#pragma once

#include <nlohmann/json.hpp>

namespace torchlet::cli {

// Prints `j` (on one line, or indented by `indent` spaces) and a newline on stdout and flushes it
// (a write error throws, see flush_output). Text that is not UTF-8 (inputs are validated before;
// this is the last line of defence) is written with U+FFFD in place of the invalid bytes instead of
// ending the command.
void print_json_line(const nlohmann::json& j, int indent = -1);

}  // namespace torchlet::cli
