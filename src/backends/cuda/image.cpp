// The CUDA backend's image ops (NCHW, float32), as backend.h asks for them: each method makes
// its device current, queues one kernel (image.cu) on the device's stream and checks the
// launch. Dropout needs nothing special here under CUDA graph capture: its seed is a kernel
// argument, frozen into the graph like any other (ops/dropout.cpp refuses to capture it).
#include "backends/cuda/cuda_backend.h"

namespace torchlet::backend::cuda {

void CudaBackend::im2col(const float* image, float* col, const Window2d& w) {
  if (w.batch * w.out_h * w.out_w * w.channels * w.kernel_h * w.kernel_w == 0) return;
  activate();
  kernels::im2col(image, col, w, stream_);
  check_launch("conv2d (im2col)");
}

void CudaBackend::col2im(const float* col, float* image, const Window2d& w) {
  if (w.batch * w.channels * w.height * w.width == 0) return;
  activate();
  kernels::col2im(col, image, w, stream_);
  check_launch("conv2d backward (col2im)");
}

void CudaBackend::max_pool2d_forward(const float* x, float* y, int64_t* argmax, const Window2d& w) {
  if (w.batch * w.channels * w.out_h * w.out_w == 0) return;
  activate();
  kernels::max_pool2d_forward(x, y, argmax, w, stream_);
  check_launch("max_pool2d");
}

void CudaBackend::max_pool2d_backward(const float* dy, const int64_t* argmax, float* dx,
                                      const Window2d& w) {
  if (w.batch * w.channels * w.height * w.width == 0) return;
  activate();
  kernels::max_pool2d_backward(dy, argmax, dx, w, stream_);
  check_launch("max_pool2d backward");
}

void CudaBackend::dropout_forward(const float* x, float* y, float* mask, int64_t n, float p,
                                  uint64_t seed) {
  if (n == 0) return;
  activate();
  kernels::dropout_forward(x, y, mask, n, p, seed, stream_);
  check_launch("dropout");
}

}  // namespace torchlet::backend::cuda
