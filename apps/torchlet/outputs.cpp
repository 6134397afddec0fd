// prepare_outputs: the checks of every output path of a command, in one place.
#include "outputs.h"

#include <fmt/core.h>

#include "torchlet/error.h"
#include "torchlet/io/file.h"

namespace torchlet::cli {

void prepare_outputs(const std::vector<PathOption>& outputs,
                     const std::vector<PathOption>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const PathOption& out = outputs[i];
    io::check_writable_path(out.path, out.option);
    for (const PathOption& in : inputs)
      TORCHLET_CHECK(in.path.empty() || !io::same_file(out.path, in.path), out.option,
                     ": Expected a file other than the ", in.option, " file (an input), but both ",
                     "name '", in.path, "'");
    for (std::size_t j = 0; j < i; ++j)
      TORCHLET_CHECK(!io::same_file(out.path, outputs[j].path), out.option,
                     ": Expected a file other than the ", outputs[j].option,
                     " file, but both name '", out.path, "'");
  }
  for (const PathOption& out : outputs) {
    for (const std::string& stale : io::remove_stale_temporaries(out.path))
      fmt::print(stderr, "torchlet: removed '{}', a temporary file left by an interrupted run\n",
                 stale);
  }
}

}  // namespace torchlet::cli
