// NCCL through dlopen: the few entry points a process group needs, declared here with NCCL's
// ABI (nccl.h 2.x: a 128-byte unique id, int enums) so that the layer compiles without the CUDA
// toolkit. Collectives run on the legacy default stream after the backend's stream has been
// synchronised, and are polled (cudaStreamQuery) against the group's timeout.
#include "distributed/nccl.h"

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "torchlet/cuda.h"
#include "torchlet/error.h"

namespace torchlet::distributed {

namespace {

constexpr int kIdBytes = 128;      // NCCL_UNIQUE_ID_BYTES
constexpr int kSuccess = 0;        // ncclSuccess, cudaSuccess
constexpr int kNotReady = 600;     // cudaErrorNotReady
constexpr int kNcclInt64 = 4;      // ncclInt64
constexpr int kNcclFloat32 = 7;    // ncclFloat32
constexpr int kSum = 0, kAvg = 4;  // ncclSum, ncclAvg

struct UniqueId {
  char bytes[kIdBytes];
};
using Comm = void*;    // ncclComm_t
using Stream = void*;  // cudaStream_t (null: the legacy default stream)

// The entry points, or a reason they are missing. Opened once; never closed.
struct Api {
  int (*get_unique_id)(UniqueId*) = nullptr;
  int (*comm_init_rank)(Comm*, int, UniqueId, int) = nullptr;
  int (*comm_destroy)(Comm) = nullptr;
  int (*comm_abort)(Comm) = nullptr;
  int (*all_reduce)(const void*, void*, std::size_t, int, int, Comm, Stream) = nullptr;
  int (*broadcast)(const void*, void*, std::size_t, int, int, Comm, Stream) = nullptr;
  const char* (*error_string)(int) = nullptr;
  int (*set_device)(int) = nullptr;
  int (*stream_query)(Stream) = nullptr;
  std::string missing;

  Api() {
    void* nccl = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!nccl) nccl = dlopen(TORCHLET_CUDA_LIBRARY_DIR "/libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    void* cudart = nullptr;
    for (const char* name : {"libcudart.so.13", "libcudart.so.12", "libcudart.so"})
      if (!cudart) cudart = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!cudart) cudart = dlopen(TORCHLET_CUDA_LIBRARY_DIR "/libcudart.so", RTLD_NOW | RTLD_LOCAL);
    if (!nccl || !cudart) {
      missing = !nccl ? "libnccl.so.2 not found" : "libcudart not found";
      return;
    }
    auto get = [&](void* lib, auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      if (!fn && missing.empty()) missing = std::string(name) + " not found";
    };
    get(nccl, get_unique_id, "ncclGetUniqueId");
    get(nccl, comm_init_rank, "ncclCommInitRank");
    get(nccl, comm_destroy, "ncclCommDestroy");
    get(nccl, comm_abort, "ncclCommAbort");
    get(nccl, all_reduce, "ncclAllReduce");
    get(nccl, broadcast, "ncclBroadcast");
    get(nccl, error_string, "ncclGetErrorString");
    get(cudart, set_device, "cudaSetDevice");
    get(cudart, stream_query, "cudaStreamQuery");
  }
};

const Api& api() {
  static const Api loaded;
  return loaded;
}

void check(int result, const char* what) {
  TORCHLET_CHECK_KIND(Device, result == kSuccess, what, ": Expected NCCL to succeed, but got \"",
                      api().error_string(result), "\"");
}

// The id through TORCHLET_NCCL_ID_FILE: rank 0 writes it atomically, the others wait for it.
bool share_by_file(UniqueId& id, int rank, double timeout_s) {
  const char* path = std::getenv("TORCHLET_NCCL_ID_FILE");
  if (!path || !*path) return false;
  if (rank == 0) {
    const std::string temporary = std::string(path) + ".tmp" + std::to_string(getpid());
    std::ofstream(temporary, std::ios::binary).write(id.bytes, kIdBytes);
    TORCHLET_CHECK_KIND(IO, std::rename(temporary.c_str(), path) == 0,
                        "TORCHLET_NCCL_ID_FILE: Expected to write ", path,
                        ", but the rename failed");
    return true;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    std::ifstream in(path, std::ios::binary);
    if (in.read(id.bytes, kIdBytes)) return true;
    TORCHLET_CHECK_KIND(IO, std::chrono::steady_clock::now() < deadline,
                        "TORCHLET_NCCL_ID_FILE: Expected rank 0 to write ", path, " within ",
                        timeout_s, " s, but it is not there");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

struct Nccl::Comm {
  distributed::Comm comm = nullptr;
};

std::string Nccl::unavailable_reason() {
  if (!cuda::is_available()) return "no CUDA device";
  return api().missing;
}

Nccl::Nccl(int rank, int size, int device, double timeout_s,
           const std::function<void(char* bytes, int n)>& share_id)
    : comm_(std::make_unique<Comm>()),
      rank_(rank),
      size_(size),
      device_(device),
      timeout_s_(timeout_s) {
  const std::string why = unavailable_reason();
  TORCHLET_CHECK_KIND(Device, why.empty(), "NCCL: Expected libnccl and a GPU, but got: ", why);
  UniqueId id{};
  if (rank == 0) check(api().get_unique_id(&id), "ncclGetUniqueId");
  if (!share_by_file(id, rank, timeout_s)) share_id(id.bytes, kIdBytes);
  check(api().set_device(device), "cudaSetDevice");
  check(api().comm_init_rank(&comm_->comm, size, id, rank), "ncclCommInitRank");
}

Nccl::~Nccl() {
  if (comm_->comm) api().comm_destroy(comm_->comm);
}

// The host waits for the default stream's NCCL work, aborting it at the timeout.
void Nccl::wait(const char* what) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s_);
  for (;;) {
    const int status = api().stream_query(nullptr);
    if (status == kSuccess) return;
    TORCHLET_CHECK_KIND(Device, status == kNotReady, what,
                        ": Expected the CUDA stream to finish, but got error ", status);
    if (std::chrono::steady_clock::now() > deadline) {
      api().comm_abort(comm_->comm);
      comm_->comm = nullptr;
      TORCHLET_CHECK_KIND(Device, false, what, " (NCCL): Expected all ", size_,
                          " ranks to join within ", timeout_s_,
                          " s (TORCHLET_DIST_TIMEOUT), but rank ", rank_,
                          " is still waiting: another rank stopped or died");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

// The tensor's data and NCCL type, once the backend's stream is done with it (its stream is
// non-blocking, so the default stream would not wait for it).
std::pair<void*, int> Nccl::prepare(const Tensor& tensor, const char* what) {
  TORCHLET_CHECK_KIND(Device, comm_->comm, what, ": Expected a live NCCL communicator, but an ",
                      "earlier collective timed out");
  cuda::synchronize(device_);
  if (tensor.dtype() == kFloat32) return {tensor.data_ptr<float>(), kNcclFloat32};
  return {tensor.data_ptr<int64_t>(), kNcclInt64};
}

void Nccl::all_reduce(const Tensor& tensor, bool average) {
  const auto [data, type] = prepare(tensor, "all_reduce");
  check(api().all_reduce(data, data, static_cast<std::size_t>(tensor.numel()), type,
                         average ? kAvg : kSum, comm_->comm, nullptr),
        "ncclAllReduce");
  wait("all_reduce");
}

void Nccl::broadcast(const Tensor& tensor, int root) {
  const auto [data, type] = prepare(tensor, "broadcast");
  check(api().broadcast(data, data, static_cast<std::size_t>(tensor.numel()), type, root,
                        comm_->comm, nullptr),
        "ncclBroadcast");
  wait("broadcast");
}

}  // namespace torchlet::distributed
