// `torchlet train` under mpirun or srun: the ranks of the launch (torchlet::distributed), each
// training on its shard of the data with the global --batch-size split across them, gradients
// averaged by DistributedDataParallel. Rank 0 alone prints and writes (the others' stdout goes
// to /dev/null, their --save and --plot are dropped). An error before training (a bad file on
// one rank) is agreed over the ranks: the lowest failing rank reports it, and every rank exits
// with its status. Without a launch, or in a build without MPI, it is one process as before.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "torchlet/nn/module.h"
#include "torchlet/train.h"

namespace torchlet::cli {

class DistributedCli {
 public:
  // Joins the launch when it has more than one rank (throws torchlet::Error in a build without
  // MPI then, rather than train the same model N times).
  DistributedCli();
  ~DistributedCli();
  DistributedCli(const DistributedCli&) = delete;
  DistributedCli& operator=(const DistributedCli&) = delete;

  bool active() const noexcept;  // more than one rank
  int rank() const noexcept;
  int size() const noexcept;
  bool leader() const noexcept { return rank() == 0; }

  // Runs a command; an exception it throws before ready() is agreed over the ranks (above).
  void run(const std::function<void()>& command);
  // Every rank has its data and settings: the last point where an error is agreed. Throws
  // ExitStatus (silently) when another rank failed.
  void ready();
  // Makes `options` train this rank's shard of `rows` rows: global_batch rows a step over all
  // ranks (0: full batch), shuffled per epoch from `seed` alike on every rank (shuffle), and
  // `model`'s gradients averaged before every step (rank 0's weights broadcast first). Calls
  // ready() first. The model must outlive the training.
  void shard(nn::Module& model, TrainOptions& options, int64_t rows, int64_t global_batch,
             uint64_t seed, bool shuffle);
  // The mean of `value` over the ranks (a metric), and of each of `values` (the same number on
  // every rank).
  double mean(double value);
  void average(std::vector<float>& values);
  // What the gradient all-reduces cost, averaged over the ranks (every rank calls it, after
  // training; all zeros for one process).
  struct CommSummary {
    int ranks = 1;
    int64_t steps = 0;    // synchronised steps of each rank
    double wait_s = 0.0;  // seconds a rank waited for its gradients' all-reduces (not hidden)
  };
  CommSummary comm_summary();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// For `torchlet info`: "2 ranks (Open MPI, this is rank 0, local rank 0), MPI: Open MPI
// v4.1.4", or "1 process (no mpirun/srun launch)", and whether MPI is built in.
struct RanksInfo {
  int rank = 0, world_size = 1, local_rank = 0;
  std::string launcher;    // "" without a launch
  bool mpi_built = false;  // this torchlet has torchlet::distributed
};
RanksInfo ranks_info();

// "ranks:     2, all-reduce wait 1.20 ms a step (8.1 of 16.7 s, 49% of training)" and, when
// the wait is a large share, a note that a larger --batch-size amortises it (nothing for one
// process).
void print_comm_summary(std::FILE* out, const DistributedCli::CommSummary& c, double train_s);

}  // namespace torchlet::cli
