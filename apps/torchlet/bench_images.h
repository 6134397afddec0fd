// `torchlet bench images`: training throughput (images/s) of the image MLP and CNN per device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench_common.h"

namespace torchlet::cli::bench {

struct ImagesArgs {
  CommonArgs common;
  std::vector<std::string> models{"mlp", "cnn"};
  std::vector<int64_t> batches{32, 128, 512};
  int64_t steps = 1000;       // timed steps per cell at most
  double cell_seconds = 3.0;  // stop timing a cell after this long (at least 3 steps)
  int64_t warmup = 3;         // untimed steps first
  double lr = 1e-3;           // Adam, as `torchlet train` uses for images
};

void run_bench_images(const ImagesArgs& a);

}  // namespace torchlet::cli::bench
