// The backend registry: the one place that knows which devices exist. A CUDA build adds its
// backends here (the CUDA issue); a CPU-only build serves the CPU alone.
#include "backends/backend.h"
#include "backends/cpu/cpu_backend.h"
#include "torchlet/cuda.h"
#include "torchlet/error.h"

namespace torchlet::backend {

Backend& get(const Device& device) {
  if (device.is_cpu()) return cpu::instance();
  TORCHLET_CHECK(false, "Expected a device this build of torchlet can use, but got ", device,
                 ": torchlet was built without CUDA support (torchlet::cuda::is_available() "
                 "is false); use Device(\"cpu\")");
  __builtin_unreachable();
}

int device_count(DeviceType type) { return type == DeviceType::CPU ? 1 : 0; }

}  // namespace torchlet::backend

namespace torchlet::cuda {

bool is_available() { return device_count() > 0; }
int device_count() { return backend::device_count(DeviceType::CUDA); }

}  // namespace torchlet::cuda
