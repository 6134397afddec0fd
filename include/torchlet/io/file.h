// Writing files so that a crash, a full disk or a kill never leaves a half-written one.
#pragma once

#include <string>
#include <string_view>

namespace torchlet::io {

// Writes `content` to a temporary file in path's folder, flushes and fsyncs it, renames it
// over `path` and fsyncs the folder. On any failure the old file (if any) is untouched, the
// temporary is removed, and torchlet::Error names the path and the system's reason.
void write_file_atomic(const std::string& path, std::string_view content);

// Throws torchlet::Error unless `path` could be created: its folder exists and is writable.
// Lets a command refuse bad output paths before it starts long work.
void check_writable_path(const std::string& path, const std::string& what);

}  // namespace torchlet::io
