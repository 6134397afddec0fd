// The files a command writes, checked together before any work: each can be written (see
// io::check_writable_path), none is another output or one of the command's inputs, and the
// temporaries a killed run left beside them are removed (and said so on stderr).
#pragma once

#include <string>
#include <vector>

namespace torchlet::cli {

// A path and the option that names it ("--save", "--data").
struct PathOption {
  std::string option, path;
};

// Throws torchlet::Error naming the options when a check fails. Every output listed is checked
// (an empty path is refused); inputs with an empty path (not given) are skipped.
void prepare_outputs(const std::vector<PathOption>& outputs, const std::vector<PathOption>& inputs);

}  // namespace torchlet::cli
