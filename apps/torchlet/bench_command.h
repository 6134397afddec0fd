// `torchlet bench`: overhead, crossover and mlp, each on every device asked for.
#pragma once

#include <CLI/CLI.hpp>

namespace torchlet::cli {

void add_bench_command(CLI::App& app);

}  // namespace torchlet::cli
