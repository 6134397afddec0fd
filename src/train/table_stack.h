// The K members of a TableEnsemble stacked as one batched model, for train/table_fit.cpp:
// weights[l] [K, in, out] (the transposed nn::Linear weight), biases[l] [K, 1, out],
// tables[j] [K * levels_j, dim_j] (member k's rows from k * levels_j; every member's
// "(unknown)" index 0 reads row 0, zero and untrained). Members that are done can be dropped
// (keep), with their optimizer state, so the rest train at the cost of fewer members.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "torchlet/optim/optimizer.h"
#include "torchlet/train/table_model.h"

namespace torchlet::detail {

class TableStack {
 public:
  // Member k (k < members) starts from the weights a lone TableModel gets after
  // manual_seed(seed + k).
  TableStack(const data::TableSchema& schema, const std::vector<int64_t>& widths, int64_t members,
             uint64_t seed, const Device& device);

  const std::vector<Tensor>& parameters() const { return params_; }
  int64_t members() const { return static_cast<int64_t>(ids_.size()); }
  // The member number k of each position of the stack, ascending.
  const std::vector<int64_t>& ids() const { return ids_; }

  // x [K, B, schema.width()] (position p's rows in x[p]) -> [K, B, outputs].
  Tensor forward(const Tensor& x) const;
  // The current values (copies) of the member at `position`, in parameters() order.
  std::vector<Tensor> member(int64_t position) const;
  // Marks the current values of the members at `positions` as their best: one copy of each
  // parameter when that is every member, else of each one's part.
  void mark_best(const std::vector<int64_t>& positions);
  // The values mark_best last marked for the member at `position` (copies; its initial values
  // when none were marked).
  std::vector<Tensor> best(int64_t position) const;
  // A TableModel holding `values` (from member() or best()).
  std::shared_ptr<TableModel> model(const std::vector<Tensor>& values) const;

  // Keeps only the members at `positions` (ascending, fewer than members()): new parameters
  // holding their values (and their marked best). Returns `state` (an optimizer's state of the old
  // parameters) cut to them the same way, for an optimizer of the new ones to load.
  optim::StateDict keep(const std::vector<int64_t>& positions, const optim::StateDict& state);

 private:
  // The parts of the member at `position` of tensors shaped as params_ (copies).
  std::vector<Tensor> copies(const std::vector<Tensor>& from, int64_t position) const;
  // Parameter i's part (a view of t, shaped as parameter i) of the member at `position`.
  Tensor slice(std::size_t i, const Tensor& t, int64_t position) const;
  // Parameter i's layout cut to `positions` (ascending): t shaped as parameter i.
  Tensor rows(std::size_t i, const Tensor& t, const std::vector<int64_t>& positions) const;
  void set_parameters(std::vector<Tensor> params);

  const data::TableSchema& schema_;
  std::vector<int64_t> widths_, ids_, levels_;
  int64_t dense_;
  Device device_;
  std::vector<Tensor> params_, weights_, biases_, tables_, offsets_;
  std::vector<Tensor> best_;  // shaped as params_
};

}  // namespace torchlet::detail
