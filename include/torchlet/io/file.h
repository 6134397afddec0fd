// Writing files so that a crash, a full disk, a kill or a signal never leaves a half-written
// one, and never replaces anything that is not a regular file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace torchlet::io {

// Writes `content` to a temporary file `.NAME.tmp-XXXXXX` in the target's folder (created with
// the process umask; a replaced file keeps its permissions), fsyncs it, renames it over the
// target and fsyncs the folder. A symbolic link is written through to its target. A target that
// exists and is not a regular file (a folder, /dev/null, a FIFO) is refused. On any failure the
// old file (if any) is untouched, the temporary is removed, and torchlet::Error (kind IO) names
// the path and the system's reason.
void write_file_atomic(const std::string& path, std::string_view content);

// Throws torchlet::Error unless `path` could be written by write_file_atomic: its folder exists
// and a file can be created there (checked by creating and removing one), and the target is new
// or a regular file (through symbolic links) that is not immutable. Lets a command refuse bad
// output paths before it starts long work. `what` names the option, e.g. "--save".
void check_writable_path(const std::string& path, const std::string& what);

// The temporary files write_file_atomic leaves when it is killed (kill -9, a power cut): those
// named `.NAME.tmp-XXXXXX` beside `path`'s target. Removes them and returns their paths; a file
// that a running process is writing (it holds a lock on it) is left alone.
std::vector<std::string> remove_stale_temporaries(const std::string& path);

// True when `a` and `b` name the same file: the same inode when both exist, otherwise the same
// absolute path once symbolic links and "." and ".." are resolved.
bool same_file(const std::string& a, const std::string& b);

}  // namespace torchlet::io
