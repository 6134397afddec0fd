// Shared by the distributed tests: the run's process group (made in main.cpp).
#pragma once

#include <memory>

#include "torchlet/distributed.h"

namespace torchlet::distributed::testing {

ProcessGroup& group();
extern std::unique_ptr<ProcessGroup> the_group;  // made and ended by main()

}  // namespace torchlet::distributed::testing
