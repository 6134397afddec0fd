// The distributed tests' main: one ProcessGroup for the whole run (MPI starts once a process),
// then every test on every rank (each prints its own report); the exit status is the worst over the
// ranks, so a failure on one rank fails the run on all of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "distributed_testing.h"

namespace torchlet::distributed::testing {

std::unique_ptr<ProcessGroup> the_group;  // main's, for the tests' whole run

ProcessGroup& group() { return *the_group; }

}  // namespace torchlet::distributed::testing

int main(int argc, char** argv) {
  namespace dist = torchlet::distributed;
  ::testing::InitGoogleTest(&argc, argv);
  auto& holder = dist::testing::the_group;
  holder = std::make_unique<dist::ProcessGroup>(dist::ProcessGroupOptions{.timeout_s = 60.0});
  dist::ProcessGroup& group = *holder;
  const int status = RUN_ALL_TESTS();
  const std::vector<int64_t> all = group.all_gather(static_cast<int64_t>(status));
  const int64_t worst = *std::max_element(all.begin(), all.end());
  holder.reset();
  return static_cast<int>(worst);
}
