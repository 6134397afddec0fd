// The failure cases of a distributed run, one a mode, for ctest under `mpirun -np 2`:
//   stall     rank 1 never joins the all-reduce: rank 0 throws at its timeout (2 s), both end
//   kill      rank 1 dies by SIGKILL: rank 0 (or mpirun) ends the run, never hangs
//   bad-data  rank 1's data is bad: every rank stops after one message, with the same status
// Exit status 3 for a distributed error, 2 for bad input, as the CLI's.
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <string>

#include "torchlet/distributed.h"
#include "torchlet/error.h"
#include "torchlet/tensor.h"

using namespace torchlet;

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  distributed::ProcessGroup group({.timeout_s = 2.0});
  try {
    if (mode == "bad-data") {
      bool ok = true;
      try {  // what each rank found in its shard
        const Tensor shard = group.rank() == 1 ? tensor(std::vector<float>{1.0f, NAN}) : ones({2});
        TORCHLET_CHECK(shard.isfinite().all().item() != 0.0f, "shard of rank ", group.rank(),
                       ": Expected finite values, but got a NaN");
      } catch (const Error& e) {
        std::fprintf(stderr, "failure_driver: error: %s\n", e.what());
        ok = false;
      }
      if (group.first_failure(ok) >= 0) return 2;
      return 0;
    }
    if (mode == "kill" && group.rank() == 1) std::raise(SIGKILL);
    if (mode == "stall" && group.rank() == 1) {
      sleep(6);  // past rank 0's timeout; rank 0 has ended the run by then
      return 0;
    }
    Tensor t = ones({4});
    group.all_reduce(t);
    std::printf("rank %d: all_reduce done\n", group.rank());
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "failure_driver: rank %d: error: %s\n", group.rank(), e.what());
    return 3;
  }
}
