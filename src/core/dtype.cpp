// DType names for messages and printing.
#include "torchlet/dtype.h"

#include "torchlet/scalar.h"

namespace torchlet {

const char* dtype_name(DType dtype) noexcept {
  switch (dtype) {
    case DType::Float32: return "float32";
    case DType::Int64: return "int64";
    case DType::Bool: return "bool";
    case DType::Float64: return "float64";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& out, DType dtype) { return out << dtype_name(dtype); }

std::ostream& operator<<(std::ostream& out, const Scalar& s) {
  if (s.is_bool()) return out << (s.to_int64() ? "True" : "False");
  if (s.is_integral()) return out << s.to_int64();
  return out << s.to_double();
}

}  // namespace torchlet
