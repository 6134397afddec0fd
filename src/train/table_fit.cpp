// The K members of a TableEnsemble as one batched model (see table_fit.h): the stacked
// parameters, their forward pass, the epochs over the members' own batch orders, the
// per-member early stopping of the validation run and the refit's per-member epoch counts.
#include "torchlet/train/table_fit.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "torchlet/autograd.h"
#include "torchlet/error.h"
#include "torchlet/functional.h"
#include "torchlet/random.h"
#include "torchlet/train/shuffled_rows.h"

namespace torchlet {
namespace {

using Clock = std::chrono::steady_clock;

// K TableModels of one schema and widths, stacked: weights[l] [K, in, out] (the transposed
// nn::Linear weight), biases[l] [K, 1, out], tables[j] [K * levels_j, dim_j] (member k's rows
// from k * levels_j; every member's "(unknown)" index 0 reads row 0, zero and untrained).
class Stack {
 public:
  Stack(const data::TableSchema& schema, const std::vector<int64_t>& widths, int64_t members,
        uint64_t seed, const Device& device)
      : schema_(schema), widths_(widths), k_(members), dense_(schema.dense_width()) {
    TORCHLET_CHECK(members >= 1, "Expected an ensemble of at least 1 member, but got ", members);
    const std::size_t layers = widths.size() - 1;
    std::vector<std::vector<Tensor>> w(layers), b(layers), t;
    for (int64_t k = 0; k < members; ++k) {
      manual_seed(seed + static_cast<uint64_t>(k));  // as a lone member of that seed
      const TableModel lone(schema, widths);
      const std::vector<Tensor> p = lone.parameters();
      for (std::size_t l = 0; l < layers; ++l) {
        w[l].push_back(p[2 * l].transpose(0, 1));
        b[l].push_back(p[2 * l + 1].reshape({1, widths[l + 1]}));
      }
      t.resize(p.size() - 2 * layers);
      for (std::size_t j = 0; j < t.size(); ++j) t[j].push_back(p[2 * layers + j]);
    }
    const auto param = [&](const std::vector<Tensor>& parts, int64_t dim) {
      Tensor stacked =
          (dim == 0 ? cat(parts, 0) : stack(parts, 0)).contiguous().to(device).detach();
      stacked.requires_grad_(true);
      params_.push_back(stacked);
      return stacked;
    };
    for (std::size_t l = 0; l < layers; ++l) weights_.push_back(param(w[l], 1));
    for (std::size_t l = 0; l < layers; ++l) biases_.push_back(param(b[l], 1));
    for (std::size_t j = 0; j < t.size(); ++j) {
      levels_.push_back(t[j].front().size(0));
      tables_.push_back(param(t[j], 0));
      std::vector<float> offset;
      for (int64_t k = 0; k < members; ++k) offset.push_back(static_cast<float>(k * levels_[j]));
      offsets_.push_back(tensor(offset, {members, 1}).to(device));
    }
  }

  const std::vector<Tensor>& parameters() const { return params_; }
  int64_t members() const { return k_; }

  // x [K, B, schema.width()] (member k's rows in x[k]) -> [K, B, outputs].
  Tensor forward(const Tensor& x) const {
    Tensor h = x.narrow(2, 0, dense_);
    if (!tables_.empty()) {
      std::vector<Tensor> parts{h};
      for (std::size_t j = 0; j < tables_.size(); ++j) {
        const Tensor index = x.narrow(2, dense_ + static_cast<int64_t>(j), 1).squeeze(2);
        const Tensor row = index + index.clamp(0, 1) * offsets_[j];
        parts.push_back(embedding(row.to(kInt64), tables_[j], 0));
      }
      h = cat(parts, 2);
    }
    for (std::size_t l = 0; l < weights_.size(); ++l) {
      h = bmm(h, weights_[l]) + biases_[l];
      if (l + 1 < weights_.size()) h = relu(h);
    }
    return h;
  }

  // Member k's current values (copies), in parameters() order.
  std::vector<Tensor> member(int64_t k) const {
    NoGradGuard no_grad;
    std::vector<Tensor> values;
    for (std::size_t i = 0; i < params_.size(); ++i) values.push_back(slice(i, k).clone());
    return values;
  }

  // A TableModel holding `values` (from member()).
  std::shared_ptr<TableModel> model(const std::vector<Tensor>& values) const {
    NoGradGuard no_grad;
    auto model = std::make_shared<TableModel>(schema_, widths_);
    model->to(params_.front().device());
    std::vector<Tensor> p = model->parameters();
    const std::size_t layers = weights_.size();
    for (std::size_t l = 0; l < layers; ++l) {
      p[2 * l].copy_(values[l].transpose(0, 1));
      p[2 * l + 1].copy_(values[layers + l].reshape({widths_[l + 1]}));
    }
    for (std::size_t j = 0; j < tables_.size(); ++j)
      p[2 * layers + j].copy_(values[2 * layers + j]);
    return model;
  }

 private:
  Tensor slice(std::size_t i, int64_t k) const {
    const std::size_t first_table = 2 * weights_.size();
    if (i < first_table) return params_[i].select(0, k);
    const int64_t levels = levels_[i - first_table];
    return params_[i].narrow(0, k * levels, levels);
  }

  const data::TableSchema& schema_;
  std::vector<int64_t> widths_;
  int64_t k_, dense_;
  std::vector<Tensor> params_, weights_, biases_, tables_, offsets_;
  std::vector<int64_t> levels_;
};

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

// The epochs of a batched run: `epochs` at most; after each, after_epoch(epoch, the members'
// mean batch losses) says whether to go on. Ends a NonFinite run at the first member loss
// that `watched(k, epoch)` and is not finite.
template <typename AfterEpoch, typename Watched>
TableRunEnd run_epochs(Stack& model, const Tensor& X, const Tensor& y, int64_t epochs,
                       const TableFitOptions& o, Watched watched, AfterEpoch after_epoch) {
  const int64_t K = model.members(), n = X.size(0);
  const int64_t batch = o.batch_size > 0 ? std::min(o.batch_size, n) : n;
  std::unique_ptr<optim::Optimizer> optimizer =
      o.optimizer ? o.optimizer(model.parameters())
                  : std::make_unique<optim::Adam>(model.parameters());
  const bool full = batch == n;
  const Tensor X_all = full ? repeat_members(X, K) : Tensor();
  const Tensor y_all = full ? repeat_members(y, K) : Tensor();
  std::vector<int64_t> y_batch{K, -1};
  for (int64_t d = 1; d < y.dim(); ++d) y_batch.push_back(y.size(d));
  TableRunEnd end;
  const auto start = Clock::now();
  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    Tensor sum;
    int64_t batches = 0;
    const auto step = [&](const Tensor& xb, const Tensor& yb) {
      optimizer->zero_grad();
      const Losses l = member_losses(o, model.forward(xb), yb);
      l.total.backward();
      optimizer->step();
      sum = sum.defined() ? sum + l.each : l.each;
      ++batches;
    };
    if (full) {
      step(X_all, y_all);
    } else {
      std::vector<Tensor> orders;
      for (int64_t k = 0; k < K; ++k)
        orders.push_back(shuffled_rows(n, o.seed + static_cast<uint64_t>(k), epoch, X.device()));
      const Tensor order = stack(orders, 0);
      for (int64_t first = 0; first < n; first += batch) {
        const int64_t size = std::min(batch, n - first);
        const Tensor rows = order.narrow(1, first, size).contiguous().reshape({K * size});
        step(index_select(X, rows).reshape({K, size, X.size(1)}),
             index_select(y, rows).reshape(y_batch));
      }
    }
    const std::vector<float> losses = (sum / static_cast<float>(batches)).to_vector<float>();
    end.epochs = epoch;
    for (int64_t k = 0; k < K; ++k) {
      const float l = losses[static_cast<std::size_t>(k)];
      if (watched(k, epoch) && !std::isfinite(l)) {
        end.stop = StopReason::NonFinite, end.nonfinite_epoch = epoch, end.nonfinite_loss = l;
        break;
      }
    }
    if (end.stop == StopReason::NonFinite) break;
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

std::shared_ptr<TableEnsemble> ensemble_of(const data::TableSchema& schema, const Stack& stack,
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
  const Tensor flat = target.reshape({rows});
  const Tensor each =
      cross_entropy(output.reshape({rows, output.size(2)}), flat, weight, -100, "none")
          .reshape({K, -1});
  if (!weight.defined()) return mean(each, {1});
  return sum(each, {1}) / sum(index_select(weight, flat).reshape({K, -1}), {1});
}

TableValidation validate_table_members(const data::TableSchema& schema,
                                       const std::vector<int64_t>& widths, const Tensor& X_fit,
                                       const Tensor& y_fit, const Tensor& X_val,
                                       const Tensor& y_val, const TableFitOptions& options) {
  TORCHLET_CHECK(options.patience >= 0, "Expected patience >= 0, but got ", options.patience);
  Stack stack(schema, widths, options.members, options.seed, X_fit.device());
  const int64_t K = options.members;
  TableValidation v;
  v.members.resize(static_cast<std::size_t>(K));
  std::vector<std::vector<Tensor>> best;
  std::vector<int64_t> bad(static_cast<std::size_t>(K), 0);
  for (int64_t k = 0; k < K; ++k) best.push_back(stack.member(k));
  const Tensor xv = repeat_members(X_val, K), yv = repeat_members(y_val, K);
  const auto active = [&](int64_t k, int64_t) {
    return !v.members[static_cast<std::size_t>(k)].early_stopped;
  };
  const auto after_epoch = [&](int64_t epoch, const std::vector<float>& losses) {
    std::vector<float> val;
    {
      NoGradGuard no_grad;
      val = member_losses(options, stack.forward(xv), yv).each.to_vector<float>();
    }
    bool any = false;
    for (std::size_t k = 0; k < v.members.size(); ++k) {
      TableMemberRun& m = v.members[k];
      if (m.early_stopped) continue;
      m.losses.push_back(losses[k]), m.val_losses.push_back(val[k]);
      m.epochs_done = epoch;
      if (m.best_epoch == 0 || val[k] < m.best_val_loss) {
        m.best_val_loss = val[k], m.best_epoch = epoch, bad[k] = 0;
        best[k] = stack.member(static_cast<int64_t>(k));
      } else if (++bad[k] >= options.patience && options.patience > 0) {
        m.early_stopped = true;
      }
      any = any || !m.early_stopped;
    }
    return any;
  };
  v.end = run_epochs(stack, X_fit, y_fit, options.epochs, options, active, after_epoch);
  v.ensemble = ensemble_of(schema, stack, best);
  return v;
}

TableRefit refit_table_members(const data::TableSchema& schema, const std::vector<int64_t>& widths,
                               const Tensor& X, const Tensor& y, const std::vector<int64_t>& epochs,
                               const TableFitOptions& options) {
  const auto K = static_cast<int64_t>(epochs.size());
  Stack stack(schema, widths, K, options.seed, X.device());
  std::vector<std::vector<Tensor>> taken(epochs.size());
  for (int64_t k = 0; k < K; ++k)
    if (epochs[static_cast<std::size_t>(k)] == 0)
      taken[static_cast<std::size_t>(k)] = stack.member(k);
  const int64_t last = K > 0 ? *std::max_element(epochs.begin(), epochs.end()) : 0;
  const auto within = [&](int64_t k, int64_t epoch) {
    return epoch <= epochs[static_cast<std::size_t>(k)];
  };
  const auto after_epoch = [&](int64_t epoch, const std::vector<float>&) {
    for (int64_t k = 0; k < K; ++k)
      if (epochs[static_cast<std::size_t>(k)] == epoch)
        taken[static_cast<std::size_t>(k)] = stack.member(k);
    return true;
  };
  TableRefit r;
  r.end = run_epochs(stack, X, y, last, options, within, after_epoch);
  for (int64_t k = 0; k < K; ++k)  // stopped early (a signal, a NaN): the weights reached
    if (taken[static_cast<std::size_t>(k)].empty())
      taken[static_cast<std::size_t>(k)] = stack.member(k);
  r.ensemble = ensemble_of(schema, stack, taken);
  return r;
}

}  // namespace torchlet
