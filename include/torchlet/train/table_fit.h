// The training of a TableEnsemble: its K members trained as ONE batched model (each Linear's
// weights stacked [K, in, out] and multiplied by bmm, each embedding one table of K * levels
// rows), so that K members cost about one step each batch instead of K. Member k starts from
// the weights a lone TableModel gets after manual_seed(seed + k) and draws its mini-batches in
// the order torchlet::train would give that lone run (shuffled_rows(n, seed + k, epoch)); the
// loss is the sum of the members' mean losses, and the parameters are disjoint, so each member
// follows the lone run's steps (to float rounding) with an optimizer whose state is per
// element (SGD, Adam). A member that is done (its patience ran out, or its refit epochs) leaves
// the batched model with its optimizer state, so the others go on at the cost of fewer. On
// the CPU the steps and the validation pass are compiled (torchlet::compile).
//
//   TableFitOptions o{.members = 5, .seed = 0};
//   TableValidation v = validate_table_members(schema, widths, X_fit, y_fit, X_val, y_val, o);
//   std::vector<int64_t> epochs;
//   for (const TableMemberRun& m : v.members) epochs.push_back(m.best_epoch);
//   TableRefit r = refit_table_members(schema_all, widths_all, X_all, y_all, epochs, o);
//   // r.ensemble: a TableEnsemble (member<k>. names) to predict with or nn::save.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "torchlet/optim/optimizer.h"
#include "torchlet/train.h"
#include "torchlet/train/table_model.h"

namespace torchlet {

struct TableFitOptions {
  int64_t members = 5;      // K
  int64_t epochs = 300;     // the bound of the validation run
  int64_t batch_size = 64;  // 0 (or at least the rows): full batch
  int64_t patience = 20;    // epochs without a better validation loss before a member stops
  double min_delta = 0.0;   // better: below the member's best by more than this (TrainOptions)
  uint64_t seed = 0;        // member k: seed + k (its initial weights and its batch order)
  std::string loss = "cross_entropy";  // or "mse", "huber" (see table_member_losses)
  Tensor class_weight;                 // cross_entropy's weight [classes], or undefined
  // The optimizer of the stacked parameters; unset: Adam with lr 1e-3.
  std::function<std::unique_ptr<optim::Optimizer>(const std::vector<Tensor>& params)> optimizer;
  std::function<bool()> should_stop;  // checked after each epoch (StopReason::StopFlag)
};

// The K members' mean losses [K] of output [K, B, outputs] against target [K, B] (class
// indices) or [K, B, outputs], each as the lone member's loss would be: "cross_entropy" (with
// weight [classes] when defined: each member's weighted mean), "mse" or "huber".
Tensor table_member_losses(const std::string& loss, const Tensor& output, const Tensor& target,
                           const Tensor& weight = Tensor());

// One member's run.
struct TableMemberRun {
  std::vector<float> losses;      // validation run: the mean batch loss of each epoch
  std::vector<float> val_losses;  // and the validation loss after it
  int64_t epochs_done = 0;        // until its patience ran out (or the run ended)
  int64_t best_epoch = 0;
  float best_val_loss = 0.0f;
  bool early_stopped = false;
};

// How a batched run ended: Completed, EarlyStopping (every member), StopFlag or NonFinite
// (some member's loss, at nonfinite_epoch).
struct TableRunEnd {
  StopReason stop = StopReason::Completed;
  int64_t epochs = 0;  // epochs the batched model ran
  int64_t nonfinite_epoch = 0;
  float nonfinite_loss = 0.0f;
  double train_s = 0.0;
};

struct TableValidation {
  std::vector<TableMemberRun> members;
  TableRunEnd end;
  // The members at their best epochs (their initial weights where none was validated).
  std::shared_ptr<TableEnsemble> ensemble;
};

struct TableRefit {
  TableRunEnd end;
  std::shared_ptr<TableEnsemble> ensemble;  // member k after epochs[k] epochs
};

// The validation runs: the members trained on (X_fit, y_fit), validated on (X_val, y_val)
// after every epoch, each stopped (its best weights kept) when its patience runs out; the
// batched model runs until every member's has, or options.epochs. widths: as TableModel's.
TableValidation validate_table_members(const data::TableSchema& schema,
                                       const std::vector<int64_t>& widths, const Tensor& X_fit,
                                       const Tensor& y_fit, const Tensor& X_val,
                                       const Tensor& y_val, const TableFitOptions& options);

// The refit: fresh members (the same seeds) trained on (X, y) for max(epochs) epochs, member k
// taken after its own epochs[k] (epochs.size() members; options.members and patience unused).
TableRefit refit_table_members(const data::TableSchema& schema, const std::vector<int64_t>& widths,
                               const Tensor& X, const Tensor& y, const std::vector<int64_t>& epochs,
                               const TableFitOptions& options);

}  // namespace torchlet
