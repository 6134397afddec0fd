// TableStack (table_stack.h): the stacked parameters, their forward pass, one member's values
// and model, and dropping members with their optimizer state.
#include "train/table_stack.h"

#include <algorithm>

#include "torchlet/autograd.h"
#include "torchlet/error.h"
#include "torchlet/functional.h"
#include "torchlet/random.h"

namespace torchlet::detail {

TableStack::TableStack(const data::TableSchema& schema, const std::vector<int64_t>& widths,
                       int64_t members, uint64_t seed, const Device& device)
    : schema_(schema), widths_(widths), dense_(schema.dense_width()), device_(device) {
  TORCHLET_CHECK(members >= 1, "Expected an ensemble of at least 1 member, but got ", members);
  const std::size_t layers = widths.size() - 1;
  std::vector<std::vector<Tensor>> w(layers), b(layers), t;
  for (int64_t k = 0; k < members; ++k) {
    ids_.push_back(k);
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
  std::vector<Tensor> params;
  for (std::size_t l = 0; l < layers; ++l) params.push_back(stack(w[l], 0));
  for (std::size_t l = 0; l < layers; ++l) params.push_back(stack(b[l], 0));
  for (std::size_t j = 0; j < t.size(); ++j) {
    levels_.push_back(t[j].front().size(0));
    params.push_back(cat(t[j], 0));
  }
  set_parameters(std::move(params));
  mark_best(ids_);  // the initial values (ids_ are the positions 0..K-1 yet)
}

// The stacked values as the leaves the optimizer steps; the embeddings' row offsets of each
// position.
void TableStack::set_parameters(std::vector<Tensor> params) {
  params_.clear(), weights_.clear(), biases_.clear(), tables_.clear(), offsets_.clear();
  const std::size_t layers = widths_.size() - 1;
  for (std::size_t i = 0; i < params.size(); ++i) {
    Tensor p = params[i].contiguous().to(device_).detach();
    p.requires_grad_(true);
    params_.push_back(p);
    (i < layers ? weights_ : i < 2 * layers ? biases_ : tables_).push_back(p);
  }
  for (int64_t levels : levels_) {
    std::vector<float> offset;
    for (int64_t p = 0; p < members(); ++p) offset.push_back(static_cast<float>(p * levels));
    offsets_.push_back(tensor(offset, {members(), 1}).to(device_));
  }
}

Tensor TableStack::forward(const Tensor& x) const {
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

std::vector<Tensor> TableStack::member(int64_t position) const { return copies(params_, position); }

std::vector<Tensor> TableStack::copies(const std::vector<Tensor>& from, int64_t position) const {
  NoGradGuard no_grad;
  std::vector<Tensor> values;
  for (std::size_t i = 0; i < from.size(); ++i)
    values.push_back(slice(i, from[i], position).clone());
  return values;
}

void TableStack::mark_best(const std::vector<int64_t>& positions) {
  NoGradGuard no_grad;
  if (static_cast<int64_t>(positions.size()) == members()) {
    best_.clear();
    for (const Tensor& p : params_) best_.push_back(p.detach().clone());
    return;
  }
  for (std::size_t i = 0; i < params_.size(); ++i)
    for (int64_t p : positions) slice(i, best_[i], p).copy_(slice(i, params_[i], p));
}

std::vector<Tensor> TableStack::best(int64_t position) const { return copies(best_, position); }

std::shared_ptr<TableModel> TableStack::model(const std::vector<Tensor>& values) const {
  NoGradGuard no_grad;
  auto model = std::make_shared<TableModel>(schema_, widths_);
  model->to(device_);
  std::vector<Tensor> p = model->parameters();
  const std::size_t layers = weights_.size();
  for (std::size_t l = 0; l < layers; ++l) {
    p[2 * l].copy_(values[l].transpose(0, 1));
    p[2 * l + 1].copy_(values[layers + l].reshape({widths_[l + 1]}));
  }
  for (std::size_t j = 0; j < tables_.size(); ++j) p[2 * layers + j].copy_(values[2 * layers + j]);
  return model;
}

Tensor TableStack::slice(std::size_t i, const Tensor& t, int64_t position) const {
  const std::size_t first_table = 2 * weights_.size();
  if (i < first_table) return t.select(0, position);
  const int64_t levels = levels_[i - first_table];
  return t.narrow(0, position * levels, levels);
}

Tensor TableStack::rows(std::size_t i, const Tensor& t,
                        const std::vector<int64_t>& positions) const {
  const std::size_t first_table = 2 * weights_.size();
  const int64_t levels = i < first_table ? 1 : levels_[i - first_table];
  std::vector<int64_t> index;
  for (int64_t p : positions)
    for (int64_t r = 0; r < levels; ++r) index.push_back(p * levels + r);
  return index_select(t, 0, tensor(index, t.device()));
}

optim::StateDict TableStack::keep(const std::vector<int64_t>& positions,
                                  const optim::StateDict& state) {
  TORCHLET_CHECK(!positions.empty() && static_cast<int64_t>(positions.size()) < members() &&
                     std::is_sorted(positions.begin(), positions.end()) &&
                     positions.back() < members(),
                 "TableStack::keep: Expected ascending positions of fewer than the ", members(),
                 " members, but got ", positions.size());
  NoGradGuard no_grad;
  std::vector<Tensor> params;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    params.push_back(rows(i, params_[i], positions));
    best_[i] = rows(i, best_[i], positions);
  }
  optim::StateDict cut(state.size());
  for (std::size_t i = 0; i < state.size(); ++i)
    for (const auto& [name, value] : state[i])  // "step" is a scalar; the rest as the parameter
      cut[i][name] = value.shape() == params_[i].shape() ? rows(i, value, positions) : value;
  std::vector<int64_t> ids;
  for (int64_t p : positions) ids.push_back(ids_[static_cast<std::size_t>(p)]);
  ids_ = std::move(ids);
  set_parameters(std::move(params));
  return cut;
}

}  // namespace torchlet::detail
