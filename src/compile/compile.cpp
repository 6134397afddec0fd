// CompiledStep: eager first call, recording second call (backends/recorder.h on the CPU, a
// cuda::Graph on CUDA), replays after that; records again when the inputs' signature changes
// or a guard (an optimizer's lr) fails. A CPU recording that is a small MLP's step replays as
// the backend's fused kernel (fuse_mlp.h).
#include "torchlet/compile.h"

#include <algorithm>
#include <vector>

#include "backends/recorder.h"
#include "compile/fuse_mlp.h"
#include "core/tensor_impl.h"
#include "torchlet/cuda.h"
#include "torchlet/error.h"

namespace torchlet {

namespace {

struct Signature {
  Shape shape;
  DType dtype;
  Device device;
  bool operator==(const Signature&) const = default;
};

std::vector<Signature> signature_of(std::span<const Tensor> inputs) {
  std::vector<Signature> out;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    TORCHLET_CHECK(inputs[i].defined(), "compile: Expected defined tensors as the step's ",
                   "arguments, but argument ", i, " is an undefined Tensor()");
    out.push_back({inputs[i].shape(), inputs[i].dtype(), inputs[i].device()});
  }
  return out;
}

// One recording: what a step of one signature (its inputs' shapes, dtypes and devices) replays.
struct Recording {
  enum class Phase { Fresh, Warm, Recorded };
  Phase phase = Phase::Fresh;
  std::vector<Signature> signature;
  Device device = kCPU;                         // where the step runs: its result's device
  std::vector<Tensor> inputs;                   // the recording's own copies of the arguments
  backend::Guards guards;                       // what the recording froze
  std::unique_ptr<backend::Recorder> recorder;  // the CPU's recording
  std::function<void()> fused;                  // what replays it, when it is a fused pattern
  cuda::Graph graph;                            // CUDA's
  Tensor output;  // the recorded call's result, rewritten by each replay

  void forget() {
    recorder.reset();
    fused = nullptr;
    graph = cuda::Graph();
    inputs.clear(), guards.clear();
    output = Tensor();
  }

  bool guards_hold() const {
    for (const auto& holds : guards)
      if (!holds()) return false;
    return true;
  }

  Tensor record(std::span<const Tensor> args, const CompiledStep::Body& body);
  Tensor replay(std::span<const Tensor> args);
};

Tensor Recording::record(std::span<const Tensor> args, const CompiledStep::Body& body) {
  forget();
  phase = Phase::Warm;  // until this recording succeeds
  for (const Tensor& t : args) inputs.push_back(t.detach().clone());
  Tensor result;
  {
    backend::GuardScope collect(guards);
    if (device.is_cuda()) {  // a capture rejects host reads and frozen seeds itself
      graph.capture_begin(device);
      try {
        result = body(inputs);
      } catch (...) {
        try {
          graph.capture_end();
        } catch (...) {  // the capture is invalid anyway; report the step's own error
        }
        forget();
        throw;
      }
      graph.capture_end();
      graph.replay();  // a capture only records: this is the call's own step
    } else {
      recorder = std::make_unique<backend::Recorder>(backend::get(device));
      recorder->start();
      try {
        result = body(inputs);
      } catch (...) {
        recorder->stop();
        forget();
        throw;
      }
      recorder->stop();
    }
  }
  if (recorder && result.defined())
    fused = compile_detail::fuse_mlp(recorder->calls(), recorder->target(), result.impl()->data());
  TORCHLET_CHECK(result.defined(), "compile: Expected the step to return a defined tensor, but ",
                 "got an undefined Tensor()");
  output = result.detach();
  phase = Phase::Recorded;
  return output.clone();
}

Tensor Recording::replay(std::span<const Tensor> args) {
  for (std::size_t i = 0; i < args.size(); ++i) inputs[i].copy_(args[i]);
  if (fused)
    fused();
  else if (recorder)
    recorder->replay();
  else
    graph.replay();
  return output.clone();
}

}  // namespace

// The recordings of the last kSignatures signatures, the latest used last: a loop that
// alternates shapes (mini-batches and a smaller last one) replays each, recording none again.
struct CompiledStep::Impl {
  static constexpr std::size_t kSignatures = 4;
  std::vector<std::unique_ptr<Recording>> recent;
  int recordings = 0;

  Recording& of(std::vector<Signature> signature) {
    auto it = std::find_if(recent.begin(), recent.end(),
                           [&](const auto& r) { return r->signature == signature; });
    std::unique_ptr<Recording> r;
    if (it != recent.end()) {
      r = std::move(*it);
      recent.erase(it);
    } else {  // new shapes: warm up on them first, then record
      if (recent.size() == kSignatures) recent.erase(recent.begin());
      r = std::make_unique<Recording>();
      r->signature = std::move(signature);
    }
    recent.push_back(std::move(r));
    return *recent.back();
  }
  const Recording* latest() const { return recent.empty() ? nullptr : recent.back().get(); }
};

CompiledStep::CompiledStep() : impl_(std::make_unique<Impl>()) {}
CompiledStep::~CompiledStep() = default;
CompiledStep::CompiledStep(CompiledStep&&) noexcept = default;
CompiledStep& CompiledStep::operator=(CompiledStep&&) noexcept = default;

Tensor CompiledStep::run(std::span<const Tensor> args, const Body& body) {
  Recording& s = impl_->of(signature_of(args));
  switch (s.phase) {
    case Recording::Phase::Fresh: {
      Tensor result = body(args);
      TORCHLET_CHECK(result.defined(), "compile: Expected the step to return a defined tensor, ",
                     "but got an undefined Tensor()");
      s.device = result.device();
      s.phase = Recording::Phase::Warm;
      return result;
    }
    case Recording::Phase::Warm: break;
    case Recording::Phase::Recorded:
      if (s.guards_hold()) return s.replay(args);
      break;
  }
  Tensor result = s.record(args, body);
  ++impl_->recordings;
  return result;
}

int CompiledStep::recordings() const noexcept { return impl_->recordings; }

bool CompiledStep::fused() const noexcept {
  const Recording* r = impl_->latest();
  return r && r->fused;
}

std::size_t CompiledStep::recorded_kernels() const noexcept {
  const Recording* r = impl_->latest();
  return r && r->recorder ? r->recorder->size() : 0;
}

}  // namespace torchlet
