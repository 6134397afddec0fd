// The out-of-line thrower behind TORCHLET_CHECK, so the macro's call sites stay small.
#include "torchlet/error.h"

namespace torchlet::detail {

void throw_error(std::string message, const char* file, int line, const char* function) {
  throw Error(std::move(message), file, line, function);
}

}  // namespace torchlet::detail
