// The options of `torchlet train` as parsed (train_options.cpp) and the run they start
// (train_command.cpp).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "distributed_cli.h"
#include "train_table.h"

namespace torchlet::cli {

struct TrainArgs {
  std::string device = "auto";
  int64_t epochs = 20000;
  double lr = 0.01;
  std::string optimizer = "sgd";
  double momentum = 0.0;
  std::string hidden_text = "10";  // --hidden as given, read by parse_widths into hidden
  std::vector<int64_t> hidden{10};
  int64_t batch_size = 0;
  int64_t record_every = 200;
  int64_t print_every = 2000;
  uint64_t seed = 0;
  double test_size = 0.2;
  uint64_t split_seed = 42;
  std::string scale = "minmax";
  std::string data = "iris";
  std::string label;
  std::string plot = "loss.svg";
  std::string save;    // checkpoint to write; empty: none
  std::string resume;  // checkpoint to continue from; empty: a fresh model
  bool no_plot = false;
  bool json = false;
  bool eager = false;
  bool graph_on = false;       // --graph: replay a captured CUDA graph, or fail
  bool graph_off = false;      // --no-graph; neither: where it is safe (FitOptions::Graph::Auto)
  int threads = 0;             // CPU threads, when threads_given
  bool threads_given = false;  // otherwise OpenBLAS's default: one per core
  std::string model = "mlp";   // images: mlp or cnn (tabular data: mlp only)
  int64_t train_limit = -1;    // images: use only the first N (-1: all)
  int64_t test_limit = -1;
  std::set<std::string> given;  // the options on the command line, e.g. "--epochs"
  TableCliOptions table;        // tables only (train_table.h)
};

// Trains as the arguments say, on this process's rank of `dist`; throws on bad input.
void run_train(const TrainArgs& args, DistributedCli& dist);

}  // namespace torchlet::cli
