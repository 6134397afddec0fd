// `torchlet bench mlp`: training throughput of a larger MLP per device.
#pragma once

#include <cstdint>
#include <vector>

#include "bench_common.h"

namespace torchlet::cli::bench {

struct MlpArgs {
  CommonArgs common;
  std::vector<int64_t> layers{784, 512, 512, 10};
  int64_t batch = 256;
  int64_t samples = 60000;
  int64_t epochs = 1;
  int64_t warmup = 5;  // untimed steps first
  double lr = 0.01;
};

void run_bench_mlp(const MlpArgs& a);

}  // namespace torchlet::cli::bench
