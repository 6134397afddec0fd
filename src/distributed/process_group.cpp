// The process group on MPI: the launcher's environment, MPI started with the first group, and
// every collective as its non-blocking MPI_I* form polled against the group's deadline, so a
// rank that died or stopped calling makes the others throw instead of hang.
#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string_view>
#include <thread>

#include "distributed/nccl.h"
#include "torchlet/distributed.h"
#include "torchlet/error.h"

namespace torchlet::distributed {

namespace {

using Clock = std::chrono::steady_clock;

// An integer variable of the environment, or -1 when it is not set or not a number.
int env_int(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return -1;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return *end == '\0' && value >= 0 ? static_cast<int>(value) : -1;
}

MPI_Datatype mpi_type(const Tensor& tensor, const char* what) {
  switch (tensor.dtype()) {
    case kFloat32: return MPI_FLOAT;
    case kInt64: return MPI_INT64_T;
    default: break;
  }
  TORCHLET_CHECK(false, what, ": Expected a float32 or int64 tensor, but got ", tensor.dtype());
  return MPI_DATATYPE_NULL;
}

void check_tensor(const Tensor& tensor, const char* what) {
  TORCHLET_CHECK(tensor.defined() && tensor.is_contiguous(), what,
                 ": Expected a defined, contiguous tensor, but got ",
                 tensor.defined() ? "a non-contiguous one" : "an undefined one");
}

}  // namespace

Environment environment() {
  struct Launcher {
    const char *name, *rank, *size, *local;
  };
  static constexpr Launcher kLaunchers[] = {
      {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
      {"PMIx", "PMIX_RANK", "PMIX_SIZE", "PMIX_LOCAL_RANK"},
      {"MPICH", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
      {"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
  };
  for (const Launcher& l : kLaunchers) {
    const int rank = env_int(l.rank), size = env_int(l.size);
    if (rank < 0 || size < 1) continue;
    TORCHLET_CHECK(rank < size, l.rank, ": Expected a rank below ", l.size, " (", size,
                   "), but got ", rank);
    const int local = env_int(l.local);
    return {rank, size, local < 0 ? 0 : local, l.name};
  }
  return {};
}

double default_timeout_s() {
  const char* text = std::getenv("TORCHLET_DIST_TIMEOUT");
  if (!text || !*text) return 300.0;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  TORCHLET_CHECK(*end == '\0' && seconds > 0.0,
                 "TORCHLET_DIST_TIMEOUT: Expected a number of seconds > 0, but got \"", text, "\"");
  return seconds;
}

struct ProcessGroup::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  bool started_mpi = false;  // this group called MPI_Init_thread, so it finalises
  bool broken = false;       // a collective timed out: MPI_Finalize would wait for the lost rank
  std::vector<Tensor> abandoned;  // buffers of collectives that timed out (MPI may still write)
  // NCCL for CUDA tensors: decided by every rank together at the first CUDA collective.
  std::unique_ptr<Nccl> nccl;
  bool nccl_decided = false;

  void check(int code, const char* what) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    broken = true;
    TORCHLET_CHECK_KIND(Device, false, what, ": Expected MPI to succeed, but got \"",
                        std::string_view(text, static_cast<std::size_t>(length)), "\"");
  }

  // Polls `request` until it completes or `timeout_s` passes (then throws). Open MPI has no
  // progress thread: a non-blocking collective moves on only inside MPI_Test, one round of its
  // transfer a call, so a waiting rank keeps testing for the first kSpin (a rank sleeping
  // between tests would add a sleep to every round once the other ranks arrive), yielding in
  // between to any thread waiting for the core (more ranks than cores), and only then sleeps
  // 50 us between tests (a rank far behind, or gone).
  void wait(MPI_Request& request, const char* what, int rank, int size, double timeout_s) {
    constexpr auto kSpin = std::chrono::milliseconds(20);
    const auto start = Clock::now();
    const auto deadline = start + std::chrono::duration<double>(timeout_s);
    for (;;) {
      int done = 0;
      check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
      if (done) return;
      const auto now = Clock::now();
      if (now > deadline) {
        broken = true;
        TORCHLET_CHECK_KIND(Device, false, what, ": Expected all ", size, " ranks to join within ",
                            timeout_s, " s (TORCHLET_DIST_TIMEOUT), but rank ", rank,
                            " is still waiting: another rank stopped or died");
      }
      if (now - start > kSpin)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      else
        std::this_thread::yield();
    }
  }
};

// The NCCL communicator for a CUDA tensor, or null for the host path: NCCL is used when every
// rank can (libnccl, a GPU) and TORCHLET_NCCL is not 0; a collective over all ranks decides.
Nccl* ProcessGroup::nccl_for(const Tensor& tensor) {
  if (!impl_ || !tensor.device().is_cuda()) return nullptr;
  if (!impl_->nccl_decided) {
    impl_->nccl_decided = true;
    const char* off = std::getenv("TORCHLET_NCCL");
    const bool can = !(off && std::strcmp(off, "0") == 0) && Nccl::unavailable_reason().empty();
    if (first_failure(can) >= 0) return nullptr;
    impl_->nccl = std::make_unique<Nccl>(
        rank_, size_, tensor.device().index(), timeout_s_, [this](char* bytes, int n) {
          MPI_Request request = MPI_REQUEST_NULL;
          impl_->check(MPI_Ibcast(bytes, n, MPI_BYTE, 0, impl_->comm, &request), "NCCL id");
          impl_->wait(request, "broadcast of the NCCL id", rank_, size_, timeout_s_);
        });
  }
  TORCHLET_CHECK(
      !impl_->nccl || impl_->nccl->device() == tensor.device().index(),
      "ProcessGroup: Expected CUDA tensors on cuda:", impl_->nccl ? impl_->nccl->device() : 0,
      " (one GPU a rank), but got one on ", tensor.device());
  return impl_->nccl.get();
}

ProcessGroup::ProcessGroup(ProcessGroupOptions options)
    : timeout_s_(options.timeout_s > 0.0 ? options.timeout_s : default_timeout_s()) {
  TORCHLET_CHECK(options.timeout_s >= 0.0,
                 "ProcessGroup: Expected timeout_s >= 0 (0: the default), but got ",
                 options.timeout_s);
  const Environment env = environment();
  local_rank_ = env.local_rank;
  if (env.launcher.empty()) return;  // a group of one without MPI
  auto impl = std::make_unique<Impl>();
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    // Open MPI's non-blocking all-reduce picks a binomial tree for two ranks, which sends every
    // byte up and back down; Rabenseifner's (reduce-scatter, then all-gather) moves half as
    // much with as few rounds (docs/distributed.md: 0.33 against 0.54 ms for a 0.9 MB bucket).
    // A setting of the user's (environment, mpirun --mca) stands; other MPIs ignore it.
    setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "3", 0);
    int provided = 0;
    impl->check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided),
                "MPI_Init_thread");
    impl->started_mpi = true;
  }
  impl->check(MPI_Comm_dup(MPI_COMM_WORLD, &impl->comm), "MPI_Comm_dup");
  // Errors come back as codes (thrown as torchlet::Error) instead of aborting the job.
  MPI_Comm_set_errhandler(impl->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(impl->comm, &rank_);
  MPI_Comm_size(impl->comm, &size_);
  impl_ = std::move(impl);
}

ProcessGroup::~ProcessGroup() {
  // Neither after a timeout nor while an exception unwinds (an error on this rank only): the
  // others may be inside a collective, and Open MPI's MPI_Finalize waits for every rank. The
  // process then ends without finalising, and the launcher ends the job.
  if (!impl_ || impl_->broken || std::uncaught_exceptions() > 0) return;
  MPI_Comm_free(&impl_->comm);
  if (impl_->started_mpi) MPI_Finalize();
}

std::string ProcessGroup::library() const {
  if (!impl_) return "none";
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string version(text, static_cast<std::size_t>(length));
  return version.substr(0, version.find_first_of("\r\n"));
}

struct Work::State {
  ProcessGroup* group = nullptr;
  MPI_Request request = MPI_REQUEST_NULL;
  Tensor tensor, host;  // the caller's tensor, and its host copy when it lives on a GPU
  ReduceOp op = ReduceOp::Sum;
  bool done = false;

  // Waits for the collective. MPI writes into `host` until it completes, so after a timeout the
  // buffer is handed to the group, which keeps it for the rest of its life instead of freeing
  // it under MPI; a Work dropped unwaited (an exception between launch and wait) waits here.
  void complete() {
    done = true;
    ProcessGroup& g = *group;
    try {
      g.impl_->wait(request, "all_reduce", g.rank_, g.size_, g.timeout_s_);
    } catch (const Error&) {
      g.impl_->abandoned.push_back(host);
      throw;
    }
  }
  ~State() {
    if (done || request == MPI_REQUEST_NULL) return;
    try {
      complete();
    } catch (const Error&) {  // already reported by the collective that timed out first
    }
  }
};

Work ProcessGroup::all_reduce_async(const Tensor& tensor, ReduceOp op) {
  check_tensor(tensor, "all_reduce");
  const MPI_Datatype type = mpi_type(tensor, "all_reduce");
  Work work;
  work.state_ = std::make_shared<Work::State>();
  Work::State& s = *work.state_;
  s.group = this, s.tensor = tensor, s.op = op;
  if (!impl_) {
    s.done = true;  // one rank: the sum and the mean are the tensor itself
    return work;
  }
  if (Nccl* nccl = nccl_for(tensor)) {
    nccl->all_reduce(tensor, op == ReduceOp::Average);
    s.done = true;
    return work;
  }
  s.host = tensor.device().is_cpu() ? tensor : tensor.to(kCPU);
  void* data = s.host.dtype() == kFloat32 ? static_cast<void*>(s.host.data_ptr<float>())
                                          : static_cast<void*>(s.host.data_ptr<int64_t>());
  impl_->check(MPI_Iallreduce(MPI_IN_PLACE, data, static_cast<int>(tensor.numel()), type, MPI_SUM,
                              impl_->comm, &s.request),
               "all_reduce");
  return work;
}

void Work::wait() {
  if (!state_ || state_->done) return;
  State& s = *state_;
  ProcessGroup& g = *s.group;
  s.complete();
  if (s.op == ReduceOp::Average) {
    if (s.host.dtype() == kFloat32) {
      float* p = s.host.data_ptr<float>();
      const auto n = static_cast<float>(g.size_);
      for (int64_t i = 0, e = s.host.numel(); i < e; ++i) p[i] /= n;
    } else {
      int64_t* p = s.host.data_ptr<int64_t>();
      for (int64_t i = 0, e = s.host.numel(); i < e; ++i) p[i] /= g.size_;
    }
  }
  if (!s.tensor.device().is_cpu()) s.tensor.copy_(s.host);
}

bool Work::done() const noexcept { return !state_ || state_->done; }

bool Work::is_completed() {
  if (!state_ || state_->done || state_->request == MPI_REQUEST_NULL) return true;
  int completed = 0;
  state_->group->impl_->check(MPI_Test(&state_->request, &completed, MPI_STATUS_IGNORE),
                              "all_reduce");
  return completed != 0;
}

void ProcessGroup::all_reduce(const Tensor& tensor, ReduceOp op) {
  all_reduce_async(tensor, op).wait();
}

void ProcessGroup::broadcast(const Tensor& tensor, int root) {
  check_tensor(tensor, "broadcast");
  TORCHLET_CHECK(root >= 0 && root < size_, "broadcast: Expected a root rank in [0, ", size_,
                 "), but got ", root);
  const MPI_Datatype type = mpi_type(tensor, "broadcast");
  if (!impl_) return;
  if (Nccl* nccl = nccl_for(tensor)) return nccl->broadcast(tensor, root);
  Tensor host = tensor.device().is_cpu() ? tensor : tensor.to(kCPU);
  void* data = host.dtype() == kFloat32 ? static_cast<void*>(host.data_ptr<float>())
                                        : static_cast<void*>(host.data_ptr<int64_t>());
  MPI_Request request = MPI_REQUEST_NULL;
  impl_->check(
      MPI_Ibcast(data, static_cast<int>(tensor.numel()), type, root, impl_->comm, &request),
      "broadcast");
  impl_->wait(request, "broadcast", rank_, size_, timeout_s_);
  if (!tensor.device().is_cpu()) Tensor(tensor).copy_(host);  // a handle: the same storage
}

void ProcessGroup::barrier() {
  if (!impl_) return;
  MPI_Request request = MPI_REQUEST_NULL;
  impl_->check(MPI_Ibarrier(impl_->comm, &request), "barrier");
  impl_->wait(request, "barrier", rank_, size_, timeout_s_);
}

// One value from every rank, in rank order.
template <typename T>
std::vector<T> ProcessGroup::gather(T value, const void* type) {
  std::vector<T> all(static_cast<std::size_t>(size_), value);
  if (!impl_) return all;
  const MPI_Datatype mpi = *static_cast<const MPI_Datatype*>(type);
  MPI_Request request = MPI_REQUEST_NULL;
  impl_->check(MPI_Iallgather(&value, 1, mpi, all.data(), 1, mpi, impl_->comm, &request),
               "all_gather");
  impl_->wait(request, "all_gather", rank_, size_, timeout_s_);
  return all;
}

std::vector<double> ProcessGroup::all_gather(double value) {
  const MPI_Datatype type = MPI_DOUBLE;
  return gather(value, &type);
}

std::vector<int64_t> ProcessGroup::all_gather(int64_t value) {
  const MPI_Datatype type = MPI_INT64_T;
  return gather(value, &type);
}

int ProcessGroup::first_failure(bool ok) {
  const std::vector<int64_t> flags = all_gather(static_cast<int64_t>(ok));
  for (std::size_t r = 0; r < flags.size(); ++r)
    if (!flags[r]) return static_cast<int>(r);
  return -1;
}

}  // namespace torchlet::distributed
