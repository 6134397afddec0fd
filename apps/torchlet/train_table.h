// `torchlet train --data table.csv` for real tables (data::read_table): text categories,
// missing cells, regression targets, a validation split with early stopping and the best
// epoch's weights restored. The numeric-only CSV path stays in train_command.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "torchlet/data/table.h"

namespace torchlet::cli {

// The options only tables take, registered on `train` by add_table_options.
struct TableCliOptions {
  std::string task = "auto";
  std::string categorical, numeric, drop, na_values;
  int64_t embedding_threshold = data::TableSchema::kEmbeddingThreshold;
  double val_size = 0.15;
  int64_t patience = 20;
  double min_delta = 2e-3;
  std::string class_weight = "none";
  std::string loss = "mse";
  std::string predictions_plot = "predictions.svg";
  bool strict = false;
  bool no_refit = false;  // keep the validation run's best epoch instead of the refit
  int64_t ensemble = 5;   // members trained from seeds seed, seed+1, ...; predictions averaged
};

void add_table_options(CLI::App* cmd, TableCliOptions& options);
// Whether one of the table-only options is on the command line (`given`: option names).
bool table_option_given(const std::set<std::string>& given);

// What the table path takes from `train`'s arguments; the defaults are the table defaults,
// which an option given replaces (train_command.cpp copies those).
struct TableTrainArgs {
  std::string data, label, device = "auto";
  int64_t epochs = 300;  // an upper bound: early stopping ends most runs
  // Adam's usual 1e-3 times 3: with early stopping the members stop sooner, and on the six
  // tables of bench/compare_sklearn.py it scores at least scikit-learn's MLP for every seed
  // 0-5 (measured 2026-12-02; docs/benchmarks.md).
  double lr = 3e-3, momentum = 0.0;
  std::string optimizer = "adam";
  std::vector<int64_t> hidden{100};
  int64_t batch_size = 64;
  uint64_t seed = 0, split_seed = 42;
  double test_size = 0.2;
  std::string scale = "standard";
  std::string plot = "loss.svg", save;
  bool no_plot = false, json = false;
  TableCliOptions table;
};

void run_train_table(const TableTrainArgs& a);

}  // namespace torchlet::cli
