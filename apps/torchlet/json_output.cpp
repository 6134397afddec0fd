// print_json_line.
#include "json_output.h"

#include <fmt/core.h>

#include "terminal.h"

namespace torchlet::cli {

void print_json_line(const nlohmann::json& j, int indent) {
  fmt::print("{}\n", j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace));
  flush_output(stdout, "stdout");
}

}  // namespace torchlet::cli
