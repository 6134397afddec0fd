// The words for a file that is not a regular one, shared by the reader and the writer.
#pragma once

#include <sys/stat.h>

namespace torchlet::io::detail {

// "a folder", "a character device", "a block device", "a FIFO", "a socket".
inline const char* kind_of_file(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace torchlet::io::detail
