// Recording a step's kernels for torchlet::compile on backends without graph capture (the
// CPU): a Backend that runs every call on the device's backend and keeps it, with its
// arguments, in a flat replay list; and the pool that owns the memory those kernels use.
// Not installed; compile/compile.cpp is its one user.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backends/backend.h"

namespace torchlet::backend {

// Memory that a recording's kernels read and write. Blocks allocated while recording come
// from here, and blocks of other tensors freed while recording are kept here: replays still
// touch them, so none goes back to the backend's general cache until the pool dies (when the
// recording and every tensor made in it are gone). Freed pool blocks are reused only by the
// recording itself, which replays that same reuse.
class RecordingPool {
 public:
  explicit RecordingPool(Backend& backend) : backend_(backend) {}
  ~RecordingPool();
  RecordingPool(const RecordingPool&) = delete;
  RecordingPool& operator=(const RecordingPool&) = delete;

  Backend& backend() const noexcept { return backend_; }
  // A block for a tensor made during the recording (reused from this pool's free list).
  void* allocate(std::size_t nbytes);
  // A pool block whose tensor died: free for the recording to reuse, never for others.
  void deallocate(void* ptr, std::size_t nbytes) noexcept;
  // A block from outside the pool freed during the recording: held until the pool dies.
  void retain(void* ptr, std::size_t nbytes) noexcept;
  // One of this pool's blocks freed while another recording runs: it becomes `to`'s, so it
  // lives as long as the recording that may still read it.
  void hand_over(void* ptr, std::size_t nbytes, RecordingPool& to) noexcept;
  // After the recording: nothing more is handed out (every later tensor uses the cache).
  void close() noexcept;
  bool open() const noexcept;

 private:
  Backend& backend_;
  mutable std::mutex mutex_;
  bool open_ = true;
  std::unordered_map<std::size_t, std::vector<void*>> free_;  // by size asked for
  std::vector<std::pair<void*, std::size_t>> owned_;          // every block to give back
};

// A recorded kernel as compile/fuse_mlp.cpp reads it: the kinds a small MLP's training step is
// made of, with their pointers and sizes in argument order (see each Recorder override);
// everything else, and these kernels with other constants, is Other.
struct RecordedCall {
  enum class Kind : uint8_t {
    Other,
    LinearForward,         // ptr x, w, bias, y; size rows, in, out
    ReluForward,           // ptr x, y; size n
    ReluBackward,          // ptr x, dy, dx; size n
    CrossEntropyForward,   // ptr logits, target, loss, probs; size n, c
    CrossEntropyBackward,  // ptr probs, target, dloss, dlogits; size n, c
    FillOne,               // float32 ones: ptr out; size n
    Gemm,                  // alpha 1, beta 0: ptr a, b, c; size m, n, k, lda, ldb, ldc
    SumDim,                // scale 1: ptr in, out; size outer, r, inner
    SgdStep,               // updates, sgd
  };
  Kind kind = Kind::Other;
  const void* ptr[4] = {};
  int64_t size[6] = {};
  bool trans_a = false, trans_b = false;  // Gemm
  std::vector<ParamUpdate> updates;       // SgdStep
  SgdOptions sgd{};
};

// Runs each kernel on `target` at once and appends it to the replay list. Copies to the host
// are refused (their value would be frozen); copies from the host replay the bytes they had;
// dropout draws a new seed from torchlet's generator on every replay, in the order eager
// calls draw them.
class Recorder final : public Backend, public FusedMlpKernels {
 public:
  explicit Recorder(Backend& target);
  ~Recorder() override;
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // Routes this thread's kernels for the target (backend_of, routed) here until stop().
  void start();
  void stop() noexcept;
  // Runs the list again: the same kernels on the same memory.
  void replay() const;
  std::size_t size() const noexcept { return list_.size(); }
  const std::vector<RecordedCall>& calls() const noexcept { return calls_; }
  Backend& target() const noexcept { return target_; }
  const std::shared_ptr<RecordingPool>& pool() const noexcept { return pool_; }

  Device device() const override { return target_.device(); }
  void* allocate(std::size_t nbytes) override { return pool_->allocate(nbytes); }
  void deallocate(void* ptr, std::size_t nbytes) noexcept override {
    pool_->deallocate(ptr, nbytes);
  }
  void copy_from_host(void* dst, const void* src, std::size_t nbytes) override;
  void copy_to_host(void* dst, const void* src, std::size_t nbytes) override;
  void synchronize() override { target_.synchronize(); }

  // The kernels of backends/entries.def (recorder.cpp).
#define TORCHLET_KERNEL(name, recording, params, args) void name params override;
#include "backends/entries.def"
#undef TORCHLET_KERNEL

  void linear_forward(const float* x, const float* w, const float* bias, float* y, int64_t rows,
                      int64_t in, int64_t out) override;
  // Fused kernels when the target has them, recorded as one call.
  FusedMlpKernels* fused_mlp() override { return target_.fused_mlp() ? this : nullptr; }
  void mlp_step(const MlpStep& step) override;
  void mlp_sgd_steps(const MlpStep& step, const MlpSgd& sgd, int64_t steps, float* losses) override;

 private:
  // Runs `kernel` on the target now and keeps it for replay, described by `call`.
  template <typename Kernel>
  void run_and_keep(Kernel&& kernel, RecordedCall call = {});

  Backend& target_;
  std::shared_ptr<RecordingPool> pool_;
  std::vector<std::function<void()>> list_;
  std::vector<RecordedCall> calls_;  // one per entry of list_
  bool started_ = false;
};

// The recorder running on this thread, or null.
Recorder* active_recorder() noexcept;

// Conditions on host values that a recording (a Recorder, or a CUDA graph captured by
// compile) froze, such as an optimizer's lr: compile() records again when one fails.
using Guards = std::vector<std::function<bool()>>;
// Collects the guards added on this thread into `guards` while it lives.
class GuardScope {
 public:
  explicit GuardScope(Guards& guards) noexcept;
  ~GuardScope();
  GuardScope(const GuardScope&) = delete;
  GuardScope& operator=(const GuardScope&) = delete;

 private:
  Guards* outer_;
};
// Adds `holds` to the guards being collected on this thread; nothing when none are.
void add_recording_guard(std::function<bool()> holds);

}  // namespace torchlet::backend
