// The end of a table run (train_table.cpp): the learning curve (training and validation loss)
// as an SVG, then the test report: the class report for classification; RMSE, MAE and R² with
// an SVG of predicted against true values for regression; their JSON fields.
#pragma once

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "torchlet/data/table.h"
#include "torchlet/tensor.h"

namespace torchlet::cli {

struct TableRun {
  std::string data;
  std::string plot;              // the learning curve's SVG; empty: none
  std::string predictions_plot;  // regression: predicted against true (SVG); empty: none
  bool json = false;
  std::vector<int64_t> loss_epochs{};
  std::vector<float> losses{}, val_losses{};  // per epoch
};

// `predicted`: the model's outputs for the test rows (CPU), `truth` their targets (class
// indices or values in the target's units). Adds test_acc and the class report, or test_rmse,
// test_mae and test_r2, and the plots' paths to `j`.
void report_table_run(std::FILE* out, const TableRun& run, const data::TableSchema& schema,
                      const Tensor& predicted, const std::vector<double>& truth, nlohmann::json& j);

}  // namespace torchlet::cli
