// Reading input files whole, bounded: only regular files (a FIFO, /dev/zero or a folder is
// refused at once, before a byte is read), and at most max_input_bytes() of them.
#pragma once

#include <cstdint>
#include <string>

namespace torchlet::io {

// The environment variable that raises (or lowers) the input size limit, in MiB.
inline constexpr const char* kMaxInputEnv = "TORCHLET_MAX_INPUT_MB";
inline constexpr uint64_t kDefaultMaxInputMiB = 4096;

// The most bytes read_file reads: $TORCHLET_MAX_INPUT_MB MiB when it is set (a whole number
// >= 1), otherwise 4096 MiB. A malformed value throws torchlet::Error naming it.
uint64_t max_input_bytes();

// A read-only descriptor (close-on-exec, blocking) of the regular file at `path`, for readers
// that stream it (gzdopen); the caller closes it. Errors as read_file's, without the size.
int open_regular_file(const std::string& path);

// The content of the regular file at `path`, or of standard input (to its end, within the same
// limit) when `path` is "-". torchlet::Error (kind IO) names the path and the
// reason: it cannot be opened (missing, no permission, a symbolic link loop, a name too long),
// it is not a regular file, or it is larger than max_input_bytes().
std::string read_file(const std::string& path);

}  // namespace torchlet::io
