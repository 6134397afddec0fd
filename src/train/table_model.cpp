// TableModel: embeddings of the many-level columns beside the MLP; the scaler that leaves
// their indices alone.
#include "torchlet/train/table_model.h"

#include "torchlet/error.h"
#include "torchlet/functional.h"
#include "torchlet/train/models.h"

namespace torchlet {

TableModel::TableModel(const data::TableSchema& schema, const std::vector<int64_t>& widths)
    : mlp_(nn::make_mlp(widths)), dense_(schema.dense_width()) {
  TORCHLET_CHECK(!widths.empty() && widths.front() == table_model_width(schema),
                 "Expected an MLP of ", table_model_width(schema),
                 " inputs for the table, but got ", widths.empty() ? 0 : widths.front());
  for (std::size_t i = 0; i < mlp_->size(); ++i) register_module(std::to_string(i), (*mlp_)[i]);
  for (const data::TableColumn* column : schema.embedded()) {
    embeddings.push_back(std::make_shared<nn::Embedding>(
        static_cast<int64_t>(column->levels.size()), column->embedding_dim, 0));
    register_module("embedding" + std::to_string(embeddings.size() - 1), embeddings.back());
  }
}

Tensor TableModel::forward(const Tensor& input) {
  if (embeddings.empty()) return (*mlp_)(input);
  std::vector<Tensor> parts{input.narrow(1, 0, dense_)};
  for (std::size_t k = 0; k < embeddings.size(); ++k) {
    const Tensor index = input.narrow(1, dense_ + static_cast<int64_t>(k), 1).squeeze(1);
    parts.push_back((*embeddings[k])(index.to(kInt64)));
  }
  return (*mlp_)(cat(parts, 1));
}

namespace {

std::vector<std::shared_ptr<TableModel>> fresh_members(const data::TableSchema& schema,
                                                       const std::vector<int64_t>& widths,
                                                       int64_t count) {
  TORCHLET_CHECK(count >= 1, "Expected an ensemble of at least 1 member, but got ", count);
  std::vector<std::shared_ptr<TableModel>> members;
  for (int64_t k = 0; k < count; ++k)
    members.push_back(std::make_shared<TableModel>(schema, widths));
  return members;
}

}  // namespace

TableEnsemble::TableEnsemble(const data::TableSchema& schema,
                             std::vector<std::shared_ptr<TableModel>> members_)
    : members(std::move(members_)), regression_(schema.task == "regression") {
  TORCHLET_CHECK(!members.empty(), "Expected an ensemble of at least 1 member, but got 0");
  for (std::size_t k = 0; k < members.size(); ++k)
    register_module("member" + std::to_string(k), members[k]);
}

TableEnsemble::TableEnsemble(const data::TableSchema& schema, const std::vector<int64_t>& widths,
                             int64_t count)
    : TableEnsemble(schema, fresh_members(schema, widths, count)) {}

Tensor TableEnsemble::forward(const Tensor& input) {
  Tensor sum;
  for (const std::shared_ptr<TableModel>& member : members) {
    const Tensor output = (*member)(input);
    const Tensor term = regression_ ? output : output.softmax(1);
    sum = sum.defined() ? sum + term : term;
  }
  const Tensor mean = sum / static_cast<double>(members.size());
  return regression_ ? mean : mean.log();
}

int64_t table_model_width(const data::TableSchema& schema) {
  int64_t width = schema.dense_width();
  for (const data::TableColumn* column : schema.embedded()) width += column->embedding_dim;
  return width;
}

data::ScalerParams fit_table_scaler(const data::TableSchema& schema, const std::string& kind,
                                    const Tensor& X) {
  data::ScalerParams scaler = data::ScalerParams::fit(kind, X);
  // Which inputs stay as they are, in the order of schema.input_names(): one-hot levels and
  // the embedding indices (after all the others).
  std::vector<bool> keep;
  for (const data::TableColumn& column : schema.columns) {
    if (column.embedding_dim > 0) continue;
    if (column.kind == data::ColumnKind::Categorical)
      keep.insert(keep.end(), column.levels.size(), true);
    else
      keep.insert(keep.end(), column.indicator ? 2 : 1, false);
  }
  keep.resize(static_cast<std::size_t>(schema.width()), true);
  for (std::size_t c = 0; c < keep.size(); ++c) {
    if (!keep[c]) continue;
    if (!scaler.scale.empty()) scaler.scale[c] = 1.0;
    if (!scaler.min.empty()) scaler.min[c] = 0.0;
    if (!scaler.mean.empty()) scaler.mean[c] = 0.0;
  }
  return scaler;
}

}  // namespace torchlet
