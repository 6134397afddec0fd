// torchlet::train: the fit loop. One step is fused (nn::FusedMlp), compiled (torchlet::compile)
// or eager, optionally captured as a CUDA graph; full-batch plain-SGD fused steps are replayed
// in chunks of up to 100 epochs inside one backend call.
#include "torchlet/train.h"

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "backends/counter_rng.h"
#include "torchlet/autograd.h"
#include "torchlet/compile.h"
#include "torchlet/cuda.h"
#include "torchlet/error.h"
#include "torchlet/functional.h"
#include "torchlet/nn/fused.h"
#include "torchlet/nn/layers.h"
#include "torchlet/train/shuffled_rows.h"

namespace torchlet {

EpochInfo::EpochInfo(int64_t epoch, Tensor loss, Tensor val_loss)
    : epoch_(epoch), loss_(std::move(loss)), val_loss_(std::move(val_loss)) {}

float EpochInfo::value() const {
  if (!value_) value_ = loss_.item();
  return *value_;
}

std::string graph_refusal(const Device& device, int64_t batches,
                          const optim::Optimizer& optimizer) {
  if (!device.is_cuda()) return "CUDA graphs need a CUDA device (--device cuda)";
  if (batches != 1) return "CUDA graphs are used for full-batch training only (no --batch-size)";
  if (!dynamic_cast<const optim::SGD*>(&optimizer))
    return "Adam keeps its step count on the host, so a replayed step would repeat it (use "
           "--optimizer sgd)";
  return "";
}

// A random order of 0..n-1 (see train.h). It depends on the seed and the epoch only, so a
// resumed run shuffles its epochs exactly as an uninterrupted one does, without saving a
// generator's state: the draws are a counter-based stream (backends/counter_rng.h) keyed by
// both, which costs nothing to seed (the K members of a table's ensemble each shuffle every
// epoch; an mt19937_64 from a seed_seq cost more than a small table's shuffle), and the bounded
// draws are ours, so every platform gets the same order.
Tensor shuffled_rows(int64_t n, uint64_t seed, int64_t epoch, const Device& device) {
  const uint64_t key = backend::counter_bits(seed, static_cast<uint64_t>(epoch));
  uint64_t draws = 0;
  std::vector<int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  for (int64_t i = n - 1; i > 0; --i) {  // Fisher-Yates: swap i with a j in [0, i]
    const auto bound = static_cast<uint64_t>(i) + 1;
    const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;  // rejecting above it: exactly uniform
    uint64_t x = backend::counter_bits(key, draws++);
    while (x >= limit) x = backend::counter_bits(key, draws++);
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(x % bound)]);
  }
  return tensor(order, device);
}

namespace {

using Clock = std::chrono::steady_clock;

// The fused step is one backend call: on a GPU always worth it (one launch, or the cuBLASLt
// path for large layers); on the CPU its kernels are written for narrow layers and have no
// cache blocking, so wide ones are left to the eager path, whose GEMMs are OpenBLAS's
// (784-512-512-10 at batch 256: eager about 4x faster, measured on 2026-11-29).
bool fused_pays(const nn::Sequential& model, const Device& device) {
  if (!nn::FusedMlp::supports(model)) return false;
  if (device.is_cuda()) return true;
  for (const Tensor& p : model.parameters())
    if (p.dim() == 2 && std::max(p.size(0), p.size(1)) > 64) return false;
  return true;
}

// Where the batches come from: tensors (the whole set, or shuffled rows of it) or a loader.
struct Source {
  const Tensor* inputs = nullptr;
  const Tensor* targets = nullptr;
  data::DataLoader* loader = nullptr;
  int64_t rows = 0, batch = 0, batches = 0;
  Device device = kCPU;
};

// The loop, shared by both overloads.
class Trainer {
 public:
  Trainer(nn::Module& model, optim::Optimizer& optimizer, const Source& source,
          const TrainOptions& options)
      : model_(model), optimizer_(optimizer), src_(source), o_(options) {
    TORCHLET_CHECK(o_.epochs >= 0, "train: Expected epochs >= 0, but got ", o_.epochs);
    TORCHLET_CHECK(o_.epochs_before >= 0, "train: Expected epochs_before >= 0, but got ",
                   o_.epochs_before);
    for (int64_t every : {o_.record_every, o_.record_every_batches, o_.print_every,
                          o_.checkpoint_every, o_.patience})
      TORCHLET_CHECK(every >= 0, "train: Expected record, print, checkpoint and patience counts ",
                     ">= 0, but got ", every);
    TORCHLET_CHECK(o_.min_delta >= 0, "train: Expected min_delta >= 0, but got ", o_.min_delta);
    TORCHLET_CHECK(o_.validate_every >= 1, "train: Expected validate_every >= 1, but got ",
                   o_.validate_every);
    TORCHLET_CHECK(!o_.patience || o_.val_input.defined(),
                   "train: Expected val_input for early stopping (patience ", o_.patience,
                   "), but got none");
    choose_execution();
  }

  TrainResult run();

 private:
  void choose_execution();
  Tensor loss_of(const Tensor& output, const Tensor& target) const {
    return o_.loss ? o_.loss(output, target) : cross_entropy(output, target);
  }
  Tensor step(const Tensor& input, const Tensor& target, const Tensor& rows);
  Tensor batched_epoch(int64_t epoch, bool& stopped);
  int64_t chunk_end(int64_t first) const;
  bool due(int64_t epoch, int64_t every) const { return every > 0 && epoch % every == 0; }
  Tensor validate();
  bool after_epoch(int64_t epoch, const Tensor& loss);

  nn::Module& model_;
  optim::Optimizer& optimizer_;
  Source src_;
  const TrainOptions& o_;
  std::optional<nn::FusedMlp> fused_;
  std::optional<CompiledStep> compiled_;
  bool replay_ = false, use_graph_ = false;
  std::optional<cuda::Graph> graph_;
  Tensor graph_loss_;  // written by every replay
  Tensor recorded_, windows_;
  std::vector<Tensor> best_;  // restore_best: the parameters at the best validation loss
  int64_t windows_done_ = 0, bad_validations_ = 0;
  TrainResult result_;
};

void Trainer::choose_execution() {
  auto* seq = dynamic_cast<nn::Sequential*>(&model_);
  const bool fusable = seq && !o_.loss && nn::FusedMlp::supports(*seq);
  TORCHLET_CHECK(o_.execution != Execution::Fused || fusable,
                 "train: Expected for Execution::Fused an nn::Sequential of Linear layers (each "
                 "with a bias) with ReLU between and the default loss, but got ",
                 seq ? (o_.loss ? "another loss" : "another Sequential") : model_.name());
  if (o_.execution == Execution::Fused ||
      (o_.execution == Execution::Auto && seq && !o_.loss && fused_pays(*seq, src_.device)))
    fused_.emplace(*seq);
  TORCHLET_CHECK(
      !o_.before_step || (o_.execution != Execution::Compiled && o_.graph != CudaGraph::On),
      "train: Expected eager or fused steps with before_step (a compiled step or a CUDA "
      "graph replays without calling it), but got ",
      o_.execution == Execution::Compiled ? "Execution::Compiled" : "CudaGraph::On");
  if (o_.execution == Execution::Compiled) compiled_.emplace();
  auto* sgd = dynamic_cast<optim::SGD*>(&optimizer_);
  const bool hooked = o_.before_step || o_.sampler;
  replay_ = fused_ && !src_.loader && !hooked && src_.batches == 1 && sgd &&
            sgd->momentum() == 0.0 && sgd->weight_decay() == 0.0;
  const std::string refusal = src_.loader ? "CUDA graphs are used for full-batch tensors only"
                                          : graph_refusal(src_.device, src_.batches, optimizer_);
  TORCHLET_CHECK(o_.graph != CudaGraph::On || refusal.empty(),
                 "train: Expected a run a CUDA graph can replay, but ", refusal);
  use_graph_ = refusal.empty() && !compiled_ && !hooked &&
               (o_.graph == CudaGraph::On || (o_.graph == CudaGraph::Auto && !replay_));
}

// One optimisation step on the given batch (for tensors: `rows` of them, or all when undefined).
Tensor Trainer::step(const Tensor& input, const Tensor& target, const Tensor& rows) {
  if (compiled_) {
    const std::array<Tensor, 2> batch{rows.defined() ? index_select(input, rows) : input,
                                      rows.defined() ? index_select(target, rows) : target};
    return compiled_
        ->run(batch,
              [this](std::span<const Tensor> in) {
                optimizer_.zero_grad();
                Tensor loss = loss_of(model_(in[0]), in[1]);
                loss.backward();
                optimizer_.step();
                return loss;
              })
        .detach();
  }
  optimizer_.zero_grad();
  Tensor loss;
  if (fused_) {
    loss = fused_->loss_and_grads(input, target, rows);
  } else {
    loss = loss_of(model_(rows.defined() ? index_select(input, rows) : input),
                   rows.defined() ? index_select(target, rows) : target);
    loss.backward();
  }
  if (o_.before_step) o_.before_step();
  optimizer_.step();
  return loss.detach();
}

// The last epoch (whole-run number) of the replayed chunk that starts at epoch `first`: at most
// 100 epochs, ending where the loss must be recorded, shown, validated or checkpointed.
int64_t Trainer::chunk_end(int64_t first) const {
  int64_t last = std::min(o_.epochs_before + o_.epochs, first + 99);
  const int64_t validate = o_.val_input.defined() ? o_.validate_every : 0;
  for (int64_t every : {o_.record_every, o_.print_every, o_.checkpoint_every, validate})
    if (every > 0) last = std::min(last, (first + every - 1) / every * every);
  return last;
}

// One epoch of several batches: their mean loss, or undefined when it was stopped part way.
Tensor Trainer::batched_epoch(int64_t epoch, bool& stopped) {
  Tensor sum = o_.epoch_mean ? zeros({}, src_.device) : Tensor(), window = sum, last;
  int64_t window_batches = 0, b = 0;
  auto one = [&](const Tensor& loss) {
    if (o_.epoch_mean) sum = sum + loss;
    last = loss;
    ++b;
    if (o_.record_every_batches > 0) {
      window = window + loss;
      if (++window_batches == o_.record_every_batches || b == src_.batches) {
        NoGradGuard no_grad;
        windows_.narrow(0, windows_done_++, 1)
            .copy_((window / static_cast<float>(window_batches)).reshape({1}));
        result_.window_at.push_back(static_cast<double>(epoch - 1) +
                                    static_cast<double>(b) / static_cast<double>(src_.batches));
        window = zeros({}, src_.device);
        window_batches = 0;
      }
    }
    if (o_.on_batch && !o_.on_batch(epoch, b - 1, loss)) {
      result_.stop = StopReason::Callback;
      return false;
    }
    if (o_.stop_within_epoch && o_.should_stop && o_.should_stop()) {
      result_.stop = StopReason::StopFlag;
      return false;
    }
    return true;
  };
  if (src_.loader) {
    for (const data::Batch& batch : *src_.loader)
      if (!one(step(batch.input, batch.target, Tensor()))) break;
  } else {
    const Tensor order = o_.sampler ? tensor(o_.sampler(epoch), src_.device)
                                    : shuffled_rows(src_.rows, o_.seed, epoch, src_.device);
    for (int64_t first = 0; first < src_.rows; first += src_.batch) {
      const Tensor rows = order.slice(0, first, std::min(src_.rows, first + src_.batch));
      if (!one(step(*src_.inputs, *src_.targets, rows))) break;
    }
  }
  stopped = b < src_.batches;
  if (stopped) return Tensor();
  return o_.epoch_mean ? sum / static_cast<float>(src_.batches) : last;
}

Tensor Trainer::validate() {
  NoGradGuard no_grad;
  const bool training = model_.is_training();
  model_.eval();
  Tensor loss = loss_of(model_(o_.val_input), o_.val_target);
  model_.train(training);
  return loss;
}

// Records, validates, calls back and checks after epoch `epoch`; false stops training.
bool Trainer::after_epoch(int64_t epoch, const Tensor& loss) {
  const int64_t before = o_.epochs_before;
  result_.epochs_done = epoch - before;
  if (due(epoch, o_.record_every)) {
    const int64_t k = epoch / o_.record_every - before / o_.record_every - 1;
    NoGradGuard no_grad;
    recorded_.narrow(0, k, 1).copy_(loss.reshape({1}));
    result_.loss_epochs.push_back(epoch);
  }
  const bool check = o_.stop_on_nonfinite;
  auto finite = [&](const EpochInfo& info) {
    if (!check || !info.read()) return true;
    if (std::isfinite(info.value())) {
      result_.last_finite_epoch = epoch;
      return true;
    }
    result_.stop = StopReason::NonFinite;
    result_.nonfinite_epoch = epoch;
    result_.nonfinite_loss = info.value();
    return false;
  };
  const Tensor val =
      o_.val_input.defined() && due(epoch, o_.validate_every) ? validate() : Tensor();
  const EpochInfo info(epoch, loss, val);
  if (check && src_.device.is_cpu()) info.value();  // free on the CPU
  if (!finite(info)) return false;
  const bool go_on = !o_.on_epoch || o_.on_epoch(info);
  if (!finite(info)) return false;
  if (due(epoch, o_.checkpoint_every) && o_.checkpoint) o_.checkpoint(epoch);
  if (!go_on) {
    result_.stop = StopReason::Callback;
    return false;
  }
  if (val.defined()) {  // read: the best so far is kept, and early stopping needs it
    const float v = val.item();
    if (result_.best_epoch == 0 || v < result_.best_val_loss - o_.min_delta) {
      result_.best_val_loss = v, result_.best_epoch = epoch, bad_validations_ = 0;
      if (o_.restore_best) {
        NoGradGuard no_grad;
        best_.clear();
        for (const Tensor& p : model_.parameters()) best_.push_back(p.detach().clone());
      }
    } else if (++bad_validations_ >= o_.patience && o_.patience > 0) {
      result_.stop = StopReason::EarlyStopping;
      return false;
    }
  }
  if (o_.should_stop && o_.should_stop()) {
    result_.stop = StopReason::StopFlag;
    return false;
  }
  return true;
}

TrainResult Trainer::run() {
  const int64_t before = o_.epochs_before, last_epoch = before + o_.epochs;
  // Recorded epochs are the multiples of record_every in (before, last_epoch].
  const int64_t records =
      o_.record_every > 0 ? last_epoch / o_.record_every - before / o_.record_every : 0;
  // Read once at the end whenever losses are recorded (one synchronisation, however many).
  if (o_.record_every > 0) recorded_ = empty({std::max<int64_t>(records, 1)}, src_.device);
  result_.last_finite_epoch = before;
  TORCHLET_CHECK(o_.epoch_mean || o_.record_every_batches == 0,
                 "train: Expected epoch_mean with record_every_batches (windows of ",
                 o_.record_every_batches, " batches), but got epoch_mean false");
  if (o_.record_every_batches > 0)
    windows_ = empty(
        {o_.epochs * ((src_.batches + o_.record_every_batches - 1) / o_.record_every_batches)},
        src_.device);
  auto* sgd = dynamic_cast<optim::SGD*>(&optimizer_);
  Tensor epoch_loss;
  const auto start = Clock::now();
  for (int64_t epoch = before + 1; epoch <= last_epoch; ++epoch) {
    Tensor loss;
    if (replay_) {
      const int64_t last = chunk_end(epoch);
      Tensor losses = fused_->train_sgd(*src_.inputs, *src_.targets, *sgd, last - epoch + 1);
      epoch = last;
      loss = losses.slice(0, -1, losses.size(0)).reshape({});
    } else if (use_graph_) {
      if (!graph_) {  // the first epoch runs eagerly (gradients and state exist), then capture
        loss = step(*src_.inputs, *src_.targets, Tensor());
        graph_.emplace();
        graph_->capture_begin(src_.device);
        graph_loss_ = step(*src_.inputs, *src_.targets, Tensor());
        graph_->capture_end();
      } else {
        graph_->replay();
        loss = graph_loss_;
      }
      if (o_.on_batch && !o_.on_batch(epoch, 0, loss)) result_.stop = StopReason::Callback;
    } else if (!src_.loader && !o_.sampler && src_.batches == 1 && o_.record_every_batches == 0) {
      loss = step(*src_.inputs, *src_.targets, Tensor());
      if (o_.on_batch && !o_.on_batch(epoch, 0, loss)) result_.stop = StopReason::Callback;
    } else {
      bool stopped = false;
      loss = batched_epoch(epoch, stopped);
      if (stopped) break;  // the epoch in progress does not count
    }
    epoch_loss = loss;
    if (!after_epoch(epoch, loss) || result_.stop != StopReason::Completed) break;
  }
  // Reading the results waits for the device, so the time includes all queued work.
  result_.final_loss = epoch_loss.defined() ? epoch_loss.item() : NAN;
  if (recorded_.defined()) {
    const auto all = recorded_.to_vector<float>();
    result_.losses.assign(all.begin(),
                          all.begin() + static_cast<std::ptrdiff_t>(result_.loss_epochs.size()));
  }
  if (windows_done_ > 0) {
    const auto w = windows_.to_vector<float>();
    result_.window_losses.assign(w.begin(), w.begin() + windows_done_);
  }
  if (!best_.empty() && result_.best_epoch != before + result_.epochs_done) {
    NoGradGuard no_grad;
    std::vector<Tensor> params = model_.parameters();
    for (std::size_t i = 0; i < params.size(); ++i) params[i].copy_(best_[i]);
    result_.restored = true;
  }
  result_.train_s = std::chrono::duration<double>(Clock::now() - start).count();
  if (o_.stop_on_nonfinite && epoch_loss.defined() && !std::isfinite(result_.final_loss) &&
      result_.stop != StopReason::NonFinite) {
    result_.stop = StopReason::NonFinite;
    result_.nonfinite_epoch = before + result_.epochs_done;
    result_.nonfinite_loss = result_.final_loss;
  }
  result_.graph = graph_.has_value();
  result_.fused = fused_.has_value();
  result_.compiled = compiled_.has_value();
  return std::move(result_);
}

}  // namespace

TrainResult train(nn::Module& model, optim::Optimizer& optimizer, const Tensor& inputs,
                  const Tensor& targets, const TrainOptions& options) {
  TORCHLET_CHECK(inputs.defined() && targets.defined() && inputs.dim() >= 1 && targets.dim() >= 1 &&
                     inputs.size(0) == targets.size(0) && inputs.size(0) >= 1,
                 "train: Expected inputs and targets with the same number of rows (>= 1), but "
                 "got shapes ",
                 inputs.defined() ? inputs.shape() : Shape(), " and ",
                 targets.defined() ? targets.shape() : Shape());
  TORCHLET_CHECK(options.batch_size >= 0, "train: Expected batch_size >= 0, but got ",
                 options.batch_size);
  Source src;
  src.inputs = &inputs, src.targets = &targets;
  src.rows = options.sampler
                 ? static_cast<int64_t>(options.sampler(options.epochs_before + 1).size())
                 : inputs.size(0);
  TORCHLET_CHECK(src.rows >= 1, "train: Expected a sampler giving at least one row, but got none");
  src.batch = options.batch_size > 0 ? std::min(options.batch_size, src.rows) : src.rows;
  src.batches = (src.rows + src.batch - 1) / src.batch;
  src.device = inputs.device();
  return Trainer(model, optimizer, src, options).run();
}

TrainResult train(nn::Module& model, optim::Optimizer& optimizer, data::DataLoader& loader,
                  const TrainOptions& options) {
  TORCHLET_CHECK(loader.size() >= 1, "train: Expected a loader with at least one batch, but got ",
                 "none (", loader.dataset_size(), " samples, drop_last)");
  Source src;
  src.loader = &loader;
  src.rows = loader.dataset_size();
  src.batch = loader.options().batch_size;
  src.batches = loader.size();
  src.device = loader.inputs().device();
  return Trainer(model, optimizer, src, options).run();
}

}  // namespace torchlet
