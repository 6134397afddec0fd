// DType names for messages and printing.
#include "torchlet/dtype.h"

namespace torchlet {

const char* dtype_name(DType dtype) noexcept {
  switch (dtype) {
    case DType::Float32: return "float32";
    case DType::Int64: return "int64";
    case DType::Bool: return "bool";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& out, DType dtype) { return out << dtype_name(dtype); }

}  // namespace torchlet
