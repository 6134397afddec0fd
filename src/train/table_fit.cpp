// The K members of a TableEnsemble as one batched model (see table_fit.h; the stack itself is
// table_stack.h): the epochs over the members' own batch orders, compiled, with the members that
// are done dropped; the per-member early stopping of the validation run and the refit's
// per-member epoch counts.
#include "torchlet/train/table_fit.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "torchlet/autograd.h"
#include "torchlet/compile.h"
#include "torchlet/error.h"
#include "torchlet/functional.h"
#include "torchlet/random.h"
#include "torchlet/train/shuffled_rows.h"
#include "train/table_stack.h"

namespace torchlet {
namespace {

using Clock = std::chrono::steady_clock;

using detail::TableStack;

// x [N, ...] as K members' copies [K, N, ...].
Tensor repeat_members(const Tensor& x, int64_t k) {
  std::vector<int64_t> one{1}, all{k};
  for (int64_t d : x.shape()) one.push_back(d), all.push_back(d);
  return x.reshape(one).expand(all).contiguous();
}

// The members' mean losses [K] (detached) and their sum (what is minimised).
struct Losses {
  Tensor total, each;
};

Losses member_losses(const TableFitOptions& o, const Tensor& output, const Tensor& target) {
  const Tensor each = table_member_losses(o.loss, output, target, o.class_weight);
  return {sum(each), each.detach()};
}

// The epochs of a batched run: `epochs` at most. Member k trains in epoch e while alive(k, e);
// the members that are not are dropped from the stack (with their optimizer state) before it,
// so the others go on at the cost of fewer members. After each epoch, after_epoch(epoch, the
// mean batch losses of model.ids()'s members) says whether to go on. Ends a NonFinite run at
// the first member loss that is not finite.
template <typename AfterEpoch, typename Alive>
TableRunEnd run_epochs(TableStack& model, const Tensor& X, const Tensor& y, int64_t epochs,
                       const TableFitOptions& o, Alive alive, AfterEpoch after_epoch) {
  const int64_t n = X.size(0);
  const int64_t batch = o.batch_size > 0 ? std::min(o.batch_size, n) : n;
  const auto make_optimizer = [&]() -> std::unique_ptr<optim::Optimizer> {
    if (o.optimizer) return o.optimizer(model.parameters());
    return std::make_unique<optim::Adam>(model.parameters());
  };
  std::unique_ptr<optim::Optimizer> optimizer = make_optimizer();
  const bool full = batch == n;
  Tensor X_all, y_all;  // the full batch: K copies
  const auto train_step = [&](const Tensor& xb, const Tensor& yb) {
    optimizer->zero_grad();
    const Losses l = member_losses(o, model.forward(xb), yb);
    l.total.backward();
    optimizer->step();
    return l.each;
  };
  const auto full_step = [&] { return train_step(X_all, y_all); };
  // Member p's rows of a batch: rows [K * size], position p's from p * size.
  const auto batch_step = [&](const Tensor& rows) {
    const int64_t K = model.members(), size = rows.size(0) / K;
    std::vector<int64_t> y_shape{K, size};
    for (int64_t d = 1; d < y.dim(); ++d) y_shape.push_back(y.size(d));
    return train_step(index_select(X, rows).reshape({K, size, X.size(1)}),
                      index_select(y, rows).reshape(y_shape));
  };
  // On the CPU the steps are compiled (torchlet::compile): after one eager call and one
  // recording per batch size (the batches and a smaller last one), each step replays its
  // kernels without the autograd and dispatch work that is most of a small table's step.
  // (CUDA steps stay eager: compile's CUDA graphs have not run on a GPU yet.) New parameters
  // (members dropped) need new recordings.
  const bool compiled = !X.device().is_cuda();
  std::optional<Compiled<decltype(full_step)>> full_compiled;
  std::optional<Compiled<decltype(batch_step)>> batch_compiled;
  const auto restart = [&] {
    full_compiled.emplace(full_step), batch_compiled.emplace(batch_step);
    if (full)
      X_all = repeat_members(X, model.members()), y_all = repeat_members(y, model.members());
  };
  restart();
  TableRunEnd end;
  const auto start = Clock::now();
  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    std::vector<int64_t> keep;
    for (int64_t p = 0; p < model.members(); ++p)
      if (alive(model.ids()[static_cast<std::size_t>(p)], epoch)) keep.push_back(p);
    if (keep.empty()) break;
    if (static_cast<int64_t>(keep.size()) < model.members()) {
      const optim::StateDict state = model.keep(keep, optimizer->state_dict());
      optimizer = make_optimizer();
      optimizer->load_state_dict(state);
      restart();
    }
    const int64_t K = model.members();
    Tensor sum;
    int64_t batches = 0;
    const auto add = [&](const Tensor& each) {
      sum = sum.defined() ? sum + each : each;
      ++batches;
    };
    if (full) {
      add(compiled ? (*full_compiled)() : full_step());
    } else {
      std::vector<Tensor> orders;
      for (int64_t k : model.ids())
        orders.push_back(shuffled_rows(n, o.seed + static_cast<uint64_t>(k), epoch, X.device()));
      const Tensor order = stack(orders, 0);
      for (int64_t first = 0; first < n; first += batch) {
        const int64_t size = std::min(batch, n - first);
        const Tensor rows = order.narrow(1, first, size).contiguous().reshape({K * size});
        add(compiled ? (*batch_compiled)(rows) : batch_step(rows));
      }
    }
    const std::vector<float> losses = (sum / static_cast<float>(batches)).to_vector<float>();
    end.epochs = epoch;
    const auto bad =
        std::find_if(losses.begin(), losses.end(), [](float l) { return !std::isfinite(l); });
    if (bad != losses.end()) {
      end.stop = StopReason::NonFinite, end.nonfinite_epoch = epoch, end.nonfinite_loss = *bad;
      break;
    }
    if (!after_epoch(epoch, losses)) {
      end.stop = StopReason::EarlyStopping;
      break;
    }
    if (o.should_stop && o.should_stop()) {
      end.stop = StopReason::StopFlag;
      break;
    }
  }
  end.train_s = std::chrono::duration<double>(Clock::now() - start).count();
  return end;
}

std::shared_ptr<TableEnsemble> ensemble_of(const data::TableSchema& schema, const TableStack& stack,
                                           const std::vector<std::vector<Tensor>>& values) {
  std::vector<std::shared_ptr<TableModel>> members;
  for (const std::vector<Tensor>& v : values) members.push_back(stack.model(v));
  return std::make_shared<TableEnsemble>(schema, std::move(members));
}

}  // namespace

Tensor table_member_losses(const std::string& loss, const Tensor& output, const Tensor& target,
                           const Tensor& weight) {
  TORCHLET_CHECK(output.dim() == 3, "Expected the members' outputs [K, B, outputs], but got ",
                 output.shape());
  const int64_t K = output.size(0), rows = output.size(0) * output.size(1);
  if (loss == "mse") return mean(mse_loss(output, target, "none"), {1, 2});
  if (loss == "huber") return mean(huber_loss(output, target, "none"), {1, 2});
  TORCHLET_CHECK(loss == "cross_entropy", "Expected loss cross_entropy, mse or huber, but got '",
                 loss, "'");
  // -log softmax at each row's class, gathered: no check of the targets on the host (they
  // are a schema's class indices), so that a compiled step can replay it.
  const Tensor each = -gather(log_softmax(output, 2), 2, target.unsqueeze(2)).squeeze(2);
  if (!weight.defined()) return mean(each, {1});
  const Tensor w = index_select(weight, target.reshape({rows})).reshape({K, -1});
  return sum(each * w, {1}) / sum(w, {1});
}

TableValidation validate_table_members(const data::TableSchema& schema,
                                       const std::vector<int64_t>& widths, const Tensor& X_fit,
                                       const Tensor& y_fit, const Tensor& X_val,
                                       const Tensor& y_val, const TableFitOptions& options) {
  TORCHLET_CHECK(options.patience >= 0, "Expected patience >= 0, but got ", options.patience);
  TORCHLET_CHECK(options.min_delta >= 0, "Expected min_delta >= 0, but got ", options.min_delta);
  TableStack stack(schema, widths, options.members, options.seed, X_fit.device());
  const int64_t K = options.members;
  TableValidation v;
  v.members.resize(static_cast<std::size_t>(K));
  std::vector<std::vector<Tensor>> best(static_cast<std::size_t>(K));
  std::vector<int64_t> bad(static_cast<std::size_t>(K), 0);
  Tensor xv, yv;  // the validation rows, one copy per member in the stack
  const auto val_losses = [&] {
    NoGradGuard no_grad;
    return member_losses(options, stack.forward(xv), yv).each;
  };
  std::optional<Compiled<decltype(val_losses)>> val_compiled;  // on the CPU, as run_epochs'
  const auto alive = [&](int64_t k, int64_t) {
    return !v.members[static_cast<std::size_t>(k)].early_stopped;
  };
  const auto after_epoch = [&](int64_t epoch, const std::vector<float>& losses) {
    if (!xv.defined() || xv.size(0) != stack.members()) {  // members dropped: new parameters
      xv = repeat_members(X_val, stack.members()), yv = repeat_members(y_val, stack.members());
      val_compiled.emplace(val_losses);
    }
    const std::vector<float> val =
        (X_val.device().is_cuda() ? val_losses() : (*val_compiled)()).to_vector<float>();
    bool any = false;
    std::vector<int64_t> better;
    for (std::size_t p = 0; p < val.size(); ++p) {  // each member still in the stack
      const auto k = static_cast<std::size_t>(stack.ids()[p]);
      TableMemberRun& m = v.members[k];
      m.losses.push_back(losses[p]), m.val_losses.push_back(val[p]);
      m.epochs_done = epoch;
      if (m.best_epoch == 0 || val[p] < m.best_val_loss - options.min_delta) {
        m.best_val_loss = val[p], m.best_epoch = epoch, bad[k] = 0;
        better.push_back(static_cast<int64_t>(p));
      } else if (++bad[k] >= options.patience && options.patience > 0) {
        m.early_stopped = true;  // its best leaves with it, before the next epoch drops it
        best[k] = stack.best(static_cast<int64_t>(p));
      }
      any = any || !m.early_stopped;
    }
    if (!better.empty()) stack.mark_best(better);
    return any;
  };
  v.end = run_epochs(stack, X_fit, y_fit, options.epochs, options, alive, after_epoch);
  for (std::size_t p = 0; p < stack.ids().size(); ++p) {  // the members still in the stack
    const auto k = static_cast<std::size_t>(stack.ids()[p]);
    if (best[k].empty()) best[k] = stack.best(static_cast<int64_t>(p));
  }
  v.ensemble = ensemble_of(schema, stack, best);
  return v;
}

TableRefit refit_table_members(const data::TableSchema& schema, const std::vector<int64_t>& widths,
                               const Tensor& X, const Tensor& y, const std::vector<int64_t>& epochs,
                               const TableFitOptions& options) {
  const auto K = static_cast<int64_t>(epochs.size());
  TableStack stack(schema, widths, K, options.seed, X.device());
  std::vector<std::vector<Tensor>> taken(epochs.size());
  for (int64_t k = 0; k < K; ++k)
    if (epochs[static_cast<std::size_t>(k)] == 0)
      taken[static_cast<std::size_t>(k)] = stack.member(k);
  const int64_t last = K > 0 ? *std::max_element(epochs.begin(), epochs.end()) : 0;
  const auto within = [&](int64_t k, int64_t epoch) {
    return epoch <= epochs[static_cast<std::size_t>(k)];
  };
  const auto after_epoch = [&](int64_t epoch, const std::vector<float>&) {
    for (std::size_t p = 0; p < stack.ids().size(); ++p) {
      const auto k = static_cast<std::size_t>(stack.ids()[p]);
      if (epochs[k] == epoch) taken[k] = stack.member(static_cast<int64_t>(p));
    }
    return true;
  };
  TableRefit r;
  r.end = run_epochs(stack, X, y, last, options, within, after_epoch);
  for (std::size_t p = 0; p < stack.ids().size(); ++p) {      // stopped early (a signal, a NaN):
    const auto k = static_cast<std::size_t>(stack.ids()[p]);  // the weights reached
    if (taken[k].empty()) taken[k] = stack.member(static_cast<int64_t>(p));
  }
  r.ensemble = ensemble_of(schema, stack, taken);
  return r;
}

}  // namespace torchlet
