// The model of a table (data::TableSchema): an MLP over the dense inputs (numbers, indicators,
// one-hot levels) concatenated with one learned nn::Embedding per embedded column, looked up
// by the level indices the schema writes as the last inputs. Row 0 of each embedding is the
// "(unknown)" level: zero and never trained (padding_idx), so a category never seen in
// training adds nothing, as the unknown one-hot slot does. The MLP's layers keep make_mlp's
// names ("0.weight", ...); the embeddings are "embedding<k>.weight", k in input order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "torchlet/data/dataset.h"
#include "torchlet/data/table.h"
#include "torchlet/nn/layers.h"

namespace torchlet {

class TableModel : public nn::Module {
 public:
  // widths: the MLP's (table_model_width(schema), hidden..., outputs).
  TableModel(const data::TableSchema& schema, const std::vector<int64_t>& widths);
  // input [N, schema.width()] float32, as schema.encode writes it (then scaled).
  Tensor forward(const Tensor& input) override;
  std::string name() const override { return "TableModel"; }

  std::vector<std::shared_ptr<nn::Embedding>> embeddings;

 private:
  std::shared_ptr<nn::Sequential> mlp_;
  int64_t dense_ = 0;
};

// K TableModels of one schema and widths (trained apart, from different seeds) whose
// predictions are averaged: a regression's outputs, a classification's probabilities (the
// output is the log of their mean, so its softmax is the mean of the members' softmaxes).
// Member k's weights are "member<k>.<its own names>".
class TableEnsemble : public nn::Module {
 public:
  TableEnsemble(const data::TableSchema& schema, std::vector<std::shared_ptr<TableModel>> members);
  // `count` fresh members (to load a checkpoint into).
  TableEnsemble(const data::TableSchema& schema, const std::vector<int64_t>& widths, int64_t count);
  Tensor forward(const Tensor& input) override;
  std::string name() const override { return "TableEnsemble"; }

  std::vector<std::shared_ptr<TableModel>> members;

 private:
  bool regression_ = false;
};

// The width of the MLP's input for `schema`: its dense inputs plus every embedding's size.
int64_t table_model_width(const data::TableSchema& schema);

// The scaler `kind` fitted to X [rows, schema.width()] for the numbers, booleans and missing
// indicators; the one-hot levels (0/1, as scikit-learn's OneHotEncoder leaves them) and the
// embedding indices stay as they are (scale 1, shift 0).
data::ScalerParams fit_table_scaler(const data::TableSchema& schema, const std::string& kind,
                                    const Tensor& X);

}  // namespace torchlet
