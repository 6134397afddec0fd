// The Backend interface's default implementations, for backends without a faster way.
#include "backends/backend.h"

namespace torchlet::backend {

void Backend::linear_forward(const float* x, const float* w, const float* bias, float* y,
                             int64_t rows, int64_t in, int64_t out) {
  gemm(false, true, rows, out, in, 1.0f, x, in, w, in, 0.0f, y, out);
  if (!bias || rows * out == 0) return;
  const Loop loop{Shape{rows, out}, Shape{out, 1}, Shape{0, 1}};
  binary(BinaryOp::Add, DType::Float32, y, bias, y, loop);
}

}  // namespace torchlet::backend
