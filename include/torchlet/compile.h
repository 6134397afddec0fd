// torchlet::compile: a training step run once eagerly, recorded on its second call, and
// replayed after that without autograd bookkeeping, dispatch or allocation, as torch.compile
// (or a CUDA graph) is used from PyTorch.
//
//   auto step = torchlet::compile([&] {
//     optimizer.zero_grad();
//     torchlet::Tensor loss = criterion(model(X_train), y_train);
//     loss.backward();
//     optimizer.step();
//     return loss;
//   });
//   for (int epoch = 0; epoch < 20000; ++epoch) torchlet::Tensor loss = step();
//
// What a replay repeats is the recorded call's device work: every kernel, on the same memory.
// Parameters, gradients and optimizer state (momentum buffers, Adam's moments and step counts)
// are updated in place, so they advance on every replay; Dropout draws a new seed per replay
// from torchlet's generator, exactly as the eager calls would. The step may take tensors as
// arguments, step(X, y): each call copies them into the recording's own inputs. Arguments of
// new shapes, dtypes or devices get a recording of their own (after one eager call on them);
// the last four such signatures keep theirs, so a loop of mini-batches with a smaller last one
// replays both. A changed optimizer lr makes the recording of that signature record again.
// With several signatures, a parameter's .grad is what the one recorded last computes. On the CPU
// the recording is a list of kernel calls; on CUDA a CUDA graph (cuda::Graph). Where the
// recording is exactly a small MLP's step (Linear layers with ReLU between them, mean
// cross-entropy, backward, SGD over those parameters) and the backend has fused MLP kernels,
// the CPU replays it as one fused call, equal to the eager step to float rounding. The CUDA
// path compiles but has not run on a GPU yet; there a training-mode Dropout is refused (a
// captured seed would freeze) and no fused pattern is looked for.
//
// Rules, as for CUDA graphs: the step must be the same work on every call. Tensors it reads
// without taking them as arguments (captured by the lambda, e.g. X_train) must stay alive and
// keep their memory while the compiled step is used; their values may change in place. A host
// read inside the step (item(), to_vector(), printing) or a random tensor made in it (rand,
// randn) cannot be recorded: the call that records throws torchlet::Error naming the op.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>

#include "torchlet/tensor.h"

namespace torchlet {

// The engine behind compile(), independent of the callable's type.
class CompiledStep {
 public:
  using Body = std::function<Tensor(std::span<const Tensor>)>;

  CompiledStep();
  ~CompiledStep();
  CompiledStep(CompiledStep&&) noexcept;
  CompiledStep& operator=(CompiledStep&&) noexcept;

  // One step on `inputs`: body(inputs) eagerly on the first call of their signature,
  // body(its own copies) while recording on the next, a replay of that recording after that.
  // Returns the step's result: a new tensor each call, without grad_fn once recorded, not
  // synchronised on a GPU.
  Tensor run(std::span<const Tensor> inputs, const Body& body);

  // How many times it has recorded, and how many kernels a CPU replay of the signature used
  // last runs (0 before its recording and on CUDA, where the recording is a graph).
  int recordings() const noexcept;
  std::size_t recorded_kernels() const noexcept;
  // True when the signature used last replays a small MLP's step as one fused kernel.
  bool fused() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// What compile(fn) returns: call it as fn, with the same Tensor arguments.
template <typename F>
class Compiled {
 public:
  explicit Compiled(F fn) : fn_(std::move(fn)) {}

  template <typename... Args>
  Tensor operator()(const Args&... args) {
    static_assert((std::is_same_v<Args, Tensor> && ...),
                  "torchlet::compile: a compiled step takes Tensor arguments");
    const std::array<Tensor, sizeof...(Args)> inputs{args...};
    return step_.run(inputs, [this](std::span<const Tensor> in) {
      return [&]<std::size_t... I>(std::index_sequence<I...>) { return Tensor(fn_(in[I]...)); }
      (std::index_sequence_for<Args...>{});
    });
  }

  int recordings() const noexcept { return step_.recordings(); }
  std::size_t recorded_kernels() const noexcept { return step_.recorded_kernels(); }
  bool fused() const noexcept { return step_.fused(); }

 private:
  F fn_;
  CompiledStep step_;
};

// `fn` runs one training step and returns a Tensor (its loss); see the top of this file.
template <typename F>
Compiled<F> compile(F fn) {
  return Compiled<F>(std::move(fn));
}

}  // namespace torchlet
