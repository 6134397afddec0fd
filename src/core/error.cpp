// The out-of-line thrower behind the check macros, so their call sites stay small, and the
// names of the error kinds.
#include "torchlet/error.h"

namespace torchlet {

const char* to_string(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::InvalidArgument: return "invalid argument";
    case ErrorKind::Index: return "index";
    case ErrorKind::OutOfMemory: return "out of memory";
    case ErrorKind::Device: return "device";
    case ErrorKind::IO: return "I/O";
    case ErrorKind::Internal: break;
  }
  return "internal";
}

namespace detail {

void throw_error(std::string message, const char* file, int line, const char* function,
                 ErrorKind kind) {
  throw Error(std::move(message), file, line, function, kind);
}

}  // namespace detail
}  // namespace torchlet
