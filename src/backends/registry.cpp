// The backend registry: the one place that knows which devices exist. The CPU is always
// there; a build with CUDA (TORCHLET_WITH_CUDA) serves cuda:N from backends/cuda/.
#include "backends/backend.h"
#include "backends/cpu/cpu_backend.h"
#include "torchlet/cuda.h"
#include "torchlet/error.h"
#ifdef TORCHLET_WITH_CUDA
#include "backends/cuda/cuda_backend.h"
#endif

namespace torchlet::backend {

Backend& get(const Device& device) {
  if (device.is_cpu()) return cpu::instance();
#ifdef TORCHLET_WITH_CUDA
  return cuda::instance(device.index() < 0 ? 0 : device.index());
#else
  TORCHLET_CHECK(false, "Expected a device this build of torchlet can use, but got ", device,
                 ": torchlet was built without CUDA support (torchlet::cuda::is_available() "
                 "is false); use Device(\"cpu\")");  // the CUDA build's reasons: cuda/memory.cpp
  __builtin_unreachable();
#endif
}

int device_count(DeviceType type) {
  if (type == DeviceType::CPU) return 1;
#ifdef TORCHLET_WITH_CUDA
  return cuda::device_count();
#else
  return 0;
#endif
}

}  // namespace torchlet::backend

namespace torchlet::cuda {

bool is_available() { return device_count() > 0; }
int device_count() { return backend::device_count(DeviceType::CUDA); }

}  // namespace torchlet::cuda
