// RecordingPool and Recorder: each kernel runs on the target at once and is kept as a closure
// over copies of its arguments (pointer arrays included), so a replay needs nothing else.
#include "backends/recorder.h"

#include <algorithm>

#include "core/random_generator.h"
#include "torchlet/error.h"

namespace torchlet::backend {

// --- RecordingPool ------------------------------------------------------------------------------

RecordingPool::~RecordingPool() {
  for (auto [ptr, nbytes] : owned_) backend_.deallocate(ptr, nbytes);
}

void* RecordingPool::allocate(std::size_t nbytes) {
  {
    std::lock_guard lock(mutex_);
    TORCHLET_ASSERT(open_);
    auto it = free_.find(nbytes);
    if (it != free_.end() && !it->second.empty()) {
      void* ptr = it->second.back();
      it->second.pop_back();
      return ptr;
    }
  }
  void* ptr = backend_.allocate(nbytes);
  std::lock_guard lock(mutex_);
  owned_.emplace_back(ptr, nbytes);
  return ptr;
}

void RecordingPool::deallocate(void* ptr, std::size_t nbytes) noexcept {
  std::lock_guard lock(mutex_);
  if (!open_) return;  // a closed pool hands nothing out again; the block is freed with it
  try {
    free_[nbytes].push_back(ptr);
  } catch (...) {  // no memory for the list: the block just stays unused until the pool dies
  }
}

void RecordingPool::retain(void* ptr, std::size_t nbytes) noexcept {
  std::lock_guard lock(mutex_);
  try {
    owned_.emplace_back(ptr, nbytes);
  } catch (...) {  // cannot keep it: leaking beats letting another tensor reuse it
  }
}

void RecordingPool::hand_over(void* ptr, std::size_t nbytes, RecordingPool& to) noexcept {
  {
    std::lock_guard lock(mutex_);
    auto it = std::find(owned_.begin(), owned_.end(), std::make_pair(ptr, nbytes));
    if (it != owned_.end()) owned_.erase(it);
    if (open_) {  // (only a closed pool's blocks reach here, but keep the free list right)
      auto list = free_.find(nbytes);
      if (list != free_.end()) std::erase(list->second, ptr);
    }
  }
  to.retain(ptr, nbytes);
}

void RecordingPool::close() noexcept {
  std::lock_guard lock(mutex_);
  open_ = false;
  free_.clear();
}

bool RecordingPool::open() const noexcept {
  std::lock_guard lock(mutex_);
  return open_;
}

// --- Recorder -----------------------------------------------------------------------------------

Recorder::Recorder(Backend& target)
    : target_(target), pool_(std::make_shared<RecordingPool>(target)) {}

Recorder::~Recorder() { stop(); }

void Recorder::start() {
  TORCHLET_CHECK(!detail::routing.target,
                 "compile: Expected no other recording on this thread, but one is running (a "
                 "compiled step called inside another compiled step)");
  detail::routing = {&target_, this};
  started_ = true;
}

void Recorder::stop() noexcept {
  if (!started_) return;
  detail::routing = {};
  pool_->close();
  started_ = false;
}

// The routed backend may be another interceptor (the tests' counting backend) that records nothing.
Recorder* active_recorder() noexcept { return dynamic_cast<Recorder*>(detail::routing.recorder); }

void Recorder::replay() const {
  for (const auto& kernel : list_) kernel();
}

namespace {
thread_local Guards* collecting = nullptr;
}  // namespace

GuardScope::GuardScope(Guards& guards) noexcept : outer_(collecting) { collecting = &guards; }
GuardScope::~GuardScope() { collecting = outer_; }

void add_recording_guard(std::function<bool()> holds) {
  if (collecting) collecting->push_back(std::move(holds));
}

template <typename Kernel>
void Recorder::run_and_keep(Kernel&& kernel, RecordedCall call) {
  kernel(target_);
  list_.emplace_back(
      [kernel = std::forward<Kernel>(kernel), &target = target_] { kernel(target); });
  calls_.push_back(std::move(call));
}

namespace {

using Kind = RecordedCall::Kind;

RecordedCall described(Kind kind, std::initializer_list<const void*> ptrs,
                       std::initializer_list<int64_t> sizes) {
  RecordedCall call;
  call.kind = kind;
  std::copy(ptrs.begin(), ptrs.end(), call.ptr);
  std::copy(sizes.begin(), sizes.end(), call.size);
  return call;
}

}  // namespace

// The `plain` entries of backends/entries.def: each runs at once and is kept with a copy of its
// arguments. The `own` entries are written out below.
#define TORCHLET_RECORD_plain(name, params, args)     \
  void Recorder::name params {                        \
    run_and_keep([=](Backend& on) { on.name args; }); \
  }
#define TORCHLET_RECORD_own(name, params, args)
#define TORCHLET_KERNEL(name, recording, params, args) \
  TORCHLET_RECORD_##recording(name, params, args)
#include "backends/entries.def"
#undef TORCHLET_KERNEL
#undef TORCHLET_RECORD_own
#undef TORCHLET_RECORD_plain

void Recorder::copy_from_host(void* dst, const void* src, std::size_t nbytes) {
  const auto* bytes = static_cast<const unsigned char*>(src);
  run_and_keep([dst, data = std::vector<unsigned char>(bytes, bytes + nbytes)](Backend& b) {
    b.copy_from_host(dst, data.data(), data.size());
  });
}

void Recorder::copy_to_host(void*, const void*, std::size_t) {
  TORCHLET_CHECK(false,
                 "compile: Expected a step that only runs device kernels, but got a copy to the "
                 "host inside it (its value would be frozen into every replay); read values "
                 "after the compiled call returns");
}

void Recorder::fill(void* out, DType dtype, int64_t n, double value) {
  run_and_keep([=](Backend& b) { b.fill(out, dtype, n, value); },
               dtype == DType::Float32 && value == 1.0 ? described(Kind::FillOne, {out}, {n})
                                                       : RecordedCall{});
}

void Recorder::relu_forward(const float* x, float* y, int64_t n) {
  run_and_keep([=](Backend& b) { b.relu_forward(x, y, n); },
               described(Kind::ReluForward, {x, y}, {n}));
}

void Recorder::relu_backward(const float* x, const float* dy, float* dx, int64_t n) {
  run_and_keep([=](Backend& b) { b.relu_backward(x, dy, dx, n); },
               described(Kind::ReluBackward, {x, dy, dx}, {n}));
}

void Recorder::sum_dim(const float* in, float* out, int64_t outer, int64_t r, int64_t inner,
                       float scale) {
  run_and_keep(
      [=](Backend& b) { b.sum_dim(in, out, outer, r, inner, scale); },
      scale == 1.0f ? described(Kind::SumDim, {in, out}, {outer, r, inner}) : RecordedCall{});
}

void Recorder::gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                    const float* a, int64_t lda, const float* b_, int64_t ldb, float beta, float* c,
                    int64_t ldc) {
  RecordedCall call;
  if (alpha == 1.0f && beta == 0.0f) {
    call = described(Kind::Gemm, {a, b_, c}, {m, n, k, lda, ldb, ldc});
    call.trans_a = trans_a, call.trans_b = trans_b;
  }
  run_and_keep(
      [=](Backend& b) { b.gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b_, ldb, beta, c, ldc); },
      std::move(call));
}

void Recorder::linear_forward(const float* x, const float* w, const float* bias, float* y,
                              int64_t rows, int64_t in, int64_t out) {
  run_and_keep([=](Backend& b) { b.linear_forward(x, w, bias, y, rows, in, out); },
               described(Kind::LinearForward, {x, w, bias, y}, {rows, in, out}));
}

// The recording call uses the seed the op drew; each replay draws the next one, as the next
// eager call of the op would.
void Recorder::dropout_forward(const float* x, float* y, float* mask, int64_t n, float p,
                               uint64_t seed) {
  target_.dropout_forward(x, y, mask, n, p, seed);
  list_.emplace_back(
      [=, &target = target_] { target.dropout_forward(x, y, mask, n, p, random::next_u64()); });
  calls_.emplace_back();
}

void Recorder::cross_entropy_forward(const float* logits, const int64_t* target, float* loss,
                                     float* probs, int64_t n, int64_t c) {
  run_and_keep([=](Backend& b) { b.cross_entropy_forward(logits, target, loss, probs, n, c); },
               described(Kind::CrossEntropyForward, {logits, target, loss, probs}, {n, c}));
}

void Recorder::cross_entropy_backward(const float* probs, const int64_t* target, const float* dloss,
                                      float* dlogits, int64_t n, int64_t c) {
  run_and_keep([=](Backend& b) { b.cross_entropy_backward(probs, target, dloss, dlogits, n, c); },
               described(Kind::CrossEntropyBackward, {probs, target, dloss, dlogits}, {n, c}));
}

namespace {

// An MlpStep with its host arrays copied, so it outlives the call that made it.
struct OwnedMlpStep {
  explicit OwnedMlpStep(const MlpStep& s)
      : widths(s.widths, s.widths + s.layers + 1),
        weight(s.weight, s.weight + s.layers),
        bias(s.bias, s.bias + s.layers),
        weight_grad(s.weight_grad, s.weight_grad + s.layers),
        bias_grad(s.bias_grad, s.bias_grad + s.layers),
        step(s) {}
  MlpStep get() const {
    MlpStep s = step;
    s.widths = widths.data(), s.weight = weight.data(), s.bias = bias.data();
    s.weight_grad = weight_grad.data(), s.bias_grad = bias_grad.data();
    return s;
  }
  std::vector<int64_t> widths;
  std::vector<float*> weight, bias, weight_grad, bias_grad;
  MlpStep step;
};

}  // namespace

void Recorder::mlp_step(const MlpStep& step) {
  run_and_keep([owned = OwnedMlpStep(step)](Backend& b) { b.fused_mlp()->mlp_step(owned.get()); });
}

void Recorder::mlp_sgd_steps(const MlpStep& step, const MlpSgd& sgd, int64_t steps, float* losses) {
  run_and_keep([owned = OwnedMlpStep(step), sgd, steps, losses](Backend& b) {
    b.fused_mlp()->mlp_sgd_steps(owned.get(), sgd, steps, losses);
  });
}

void Recorder::sgd_step(const ParamUpdate* params, int count, const SgdOptions& options) {
  std::vector<ParamUpdate> updates(params, params + count);
  RecordedCall call;
  call.kind = Kind::SgdStep;
  call.updates = updates;
  call.sgd = options;
  run_and_keep(
      [updates = std::move(updates), options](Backend& b) {
        b.sgd_step(updates.data(), static_cast<int>(updates.size()), options);
      },
      std::move(call));
}

void Recorder::adam_step(const ParamUpdate* params, int count, const AdamOptions& options) {
  run_and_keep([updates = std::vector<ParamUpdate>(params, params + count), options](Backend& b) {
    b.adam_step(updates.data(), static_cast<int>(updates.size()), options);
  });
}

void Recorder::rmsprop_step(const ParamUpdate* params, int count, const RmspropOptions& options) {
  run_and_keep([updates = std::vector<ParamUpdate>(params, params + count), options](Backend& b) {
    b.rmsprop_step(updates.data(), static_cast<int>(updates.size()), options);
  });
}

void Recorder::adagrad_step(const ParamUpdate* params, int count, const AdagradOptions& options) {
  run_and_keep([updates = std::vector<ParamUpdate>(params, params + count), options](Backend& b) {
    b.adagrad_step(updates.data(), static_cast<int>(updates.size()), options);
  });
}

}  // namespace torchlet::backend
