// NCCL for CUDA tensors (internal to the distributed layer): libnccl.so.2 and libcudart opened
// with dlopen when a group first reduces a CUDA tensor, so a build and a machine without them
// work as before (CUDA tensors then travel through host memory over MPI). The communicator's
// unique id goes from rank 0 to the others over MPI (as llm.c does), or, where MPI cannot carry
// it, through the file named by TORCHLET_NCCL_ID_FILE on a directory every rank sees.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "torchlet/tensor.h"

namespace torchlet::distributed {

class Nccl {
 public:
  // Why NCCL cannot be used here ("" when it can): the libraries, or no GPU.
  static std::string unavailable_reason();
  // A communicator of `size` ranks on CUDA device `device`. share_id(bytes, n) sends rank 0's
  // n-byte id to every rank (in place), used unless TORCHLET_NCCL_ID_FILE is set.
  Nccl(int rank, int size, int device, double timeout_s,
       const std::function<void(char* bytes, int n)>& share_id);
  ~Nccl();
  Nccl(const Nccl&) = delete;
  Nccl& operator=(const Nccl&) = delete;

  int device() const noexcept { return device_; }
  // In place on the GPU; return once the result is there (throws at the timeout, aborting the
  // communicator).
  void all_reduce(const Tensor& tensor, bool average);
  void broadcast(const Tensor& tensor, int root);

 private:
  std::pair<void*, int> prepare(const Tensor& tensor, const char* what);
  void wait(const char* what);

  struct Comm;
  std::unique_ptr<Comm> comm_;
  int rank_, size_, device_;
  double timeout_s_;
};

}  // namespace torchlet::distributed
