// torchlet::distributed: a process group over MPI (Open MPI, MPICH) for data-parallel training,
// as torch.distributed's: the rank, world size and local rank from the launcher's environment
// (mpirun, srun), and the collectives training needs (all-reduce, broadcast, barrier, all-gather
// of small values). Every blocking wait has a deadline: a rank that never arrives makes the
// others throw torchlet::Error naming the collective, never hang. DistributedDataParallel and
// DistributedSampler are in torchlet/distributed/ddp.h.
//
//   distributed::ProcessGroup group;        // under `mpirun -np 2`: rank 0 and 1 of 2
//   group.all_reduce(t, distributed::ReduceOp::Average);  // t is now the mean over ranks
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "torchlet/tensor.h"

namespace torchlet::distributed {

// Where this process stands, read from the launcher's variables: Open MPI's
// OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_RANK}, PMIx's PMIX_RANK, MPICH/Hydra's PMI_{RANK,SIZE} and
// MPI_LOCALRANKID, Slurm's SLURM_{PROCID,NTASKS,LOCALID}. Without any: rank 0 of 1.
struct Environment {
  int rank = 0, world_size = 1, local_rank = 0;
  std::string launcher;  // "Open MPI", "PMIx", "MPICH", "Slurm" or "" (none)
};
Environment environment();

// The seconds a collective waits by default: TORCHLET_DIST_TIMEOUT when set (> 0), else 300.
double default_timeout_s();

enum class ReduceOp { Sum, Average };

struct ProcessGroupOptions {
  double timeout_s = 0.0;  // how long a collective waits for every rank; 0: default_timeout_s()
};

class ProcessGroup;
class Nccl;  // internal: src/distributed/nccl.h

// A collective in flight (all_reduce_async): wait() blocks until it is done on this rank, then
// finishes an average; throws torchlet::Error when the group's timeout passes first. Waiting
// twice is a no-op. is_completed() moves the collective on without blocking (Open MPI has no
// progress thread: a transfer advances only while a rank tests or waits) and says whether it
// has completed on this rank; wait() is still needed to finish it.
class Work {
 public:
  Work() = default;
  void wait();
  bool done() const noexcept;
  bool is_completed();

 private:
  friend class ProcessGroup;
  struct State;
  std::shared_ptr<State> state_;
};

// All processes of the launch (MPI_COMM_WORLD, duplicated). Without a launcher it is a group of
// one that never starts MPI and whose collectives change nothing. One group per process: MPI
// starts with the first and finalises with it (not after a timeout, nor when an exception
// destroys it: MPI_Finalize would wait for ranks that may never come). Tensors are reduced in
// place: float32 or int64, contiguous, on the CPU over MPI, or on a GPU over NCCL where every rank
// has it (one GPU a rank; TORCHLET_NCCL=0, or no NCCL, sends CUDA tensors through host memory over
// MPI). Every rank must call the same collectives in the same order.
class ProcessGroup {
 public:
  explicit ProcessGroup(ProcessGroupOptions options = {});
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  int local_rank() const noexcept { return local_rank_; }
  double timeout_s() const noexcept { return timeout_s_; }
  bool uses_mpi() const noexcept { return impl_ != nullptr; }
  // "Open MPI v4.1.4, ..." (MPI_Get_library_version's first line), or "none".
  std::string library() const;

  // Sums (or averages: the sum divided by size()) `tensor` over every rank, in place.
  void all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::Sum);
  // The same without waiting: the tensor must not be touched until the Work is waited for.
  Work all_reduce_async(const Tensor& tensor, ReduceOp op = ReduceOp::Sum);
  // Copies rank `root`'s tensor into every rank's (same shape and dtype everywhere).
  void broadcast(const Tensor& tensor, int root = 0);
  void barrier();
  // Every rank's value, in rank order.
  std::vector<double> all_gather(double value);
  std::vector<int64_t> all_gather(int64_t value);
  // Whether every rank is fine: the lowest rank that is not, or -1. For errors one rank finds
  // (a bad file) that must stop all of them with one message and one exit status.
  int first_failure(bool ok);

 private:
  friend class Work;
  struct Impl;  // the MPI communicator; null without MPI
  Nccl* nccl_for(const Tensor& tensor);
  template <typename T>
  std::vector<T> gather(T value, const void* type);  // type: an MPI_Datatype

  int rank_ = 0, size_ = 1, local_rank_ = 0;
  double timeout_s_ = 0.0;
  std::unique_ptr<Impl> impl_;
};

}  // namespace torchlet::distributed
