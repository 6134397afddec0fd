// `torchlet bench crossover`: time per epoch of an MLP on synthetic data of Iris's shape (4
// features, 3 classes) over a grid of width, depth and rows, on each device; where a GPU starts
// to beat the CPU, and how much of each epoch is arithmetic. bench_crossover.cpp measures,
// bench_crossover_report.cpp reports.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_common.h"

namespace torchlet::cli::bench {

struct CrossoverArgs {
  CommonArgs common;
  int64_t epochs = 50;             // timed epochs per cell at most
  double cell_seconds = 0.3;       // ... and a cell stops timing once this much has passed
  double max_epoch_seconds = 2.0;  // cells estimated slower than this are skipped
  int64_t max_mib = 2048;          // cells estimated to need more memory are skipped
  double lr = 0.01;
  std::vector<int64_t> widths{10, 64, 256, 1024, 4096};
  std::vector<int64_t> rows{120, 1000, 10000, 100000};
  std::vector<int64_t> depths{1, 2};
};

struct Cell {
  int64_t depth = 1, width = 0, rows = 0;
  bool measured = false;
  std::string skipped;  // why not measured
  int64_t epochs = 0;   // timed
  double epoch_s = 0.0;
  double flops = 0.0;         // GEMM FLOPs per epoch (forward and backward)
  double arithmetic_s = 0.0;  // flops at the device's measured GEMM rate
  double mib = 0.0;           // estimated memory the cell needs
  profile::Counters counts;   // of the timed epochs
};

struct DeviceCrossover {
  Device device;
  std::string name;
  double gemm_gflops = 0.0;
  int64_t gemm_size = 0;
  std::vector<Cell> cells;
};

// Where a device beats the CPU, for one depth and width.
struct Crossover {
  Device device;
  int64_t depth = 1, width = 0;
  int64_t wins_from_rows = 0;  // 0: not at any size both measured
  double speedup = 0.0;        // CPU time / device time there
  int64_t compared = 0;        // row counts both measured
};

// FLOPs of one full-batch training epoch of MLP `widths` on `rows` rows: the forward GEMMs,
// the weight gradients, and the input gradients of every layer but the first.
double training_flops(const std::vector<int64_t>& widths, int64_t rows);

std::vector<Crossover> find_crossovers(const std::vector<DeviceCrossover>& all);
std::string crossover_text(const CrossoverArgs& a, const std::vector<DeviceCrossover>& all,
                           const std::vector<Crossover>& crossovers);
nlohmann::json crossover_json(const CrossoverArgs& a, const std::vector<DeviceCrossover>& all,
                              const std::vector<Crossover>& crossovers);
void write_crossover_files(const CrossoverArgs& a, const std::vector<DeviceCrossover>& all,
                           const std::vector<Crossover>& crossovers, const nlohmann::json& j,
                           const std::string& text);

void run_bench_crossover(const CrossoverArgs& a);

}  // namespace torchlet::cli::bench
