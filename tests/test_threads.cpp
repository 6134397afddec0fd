// set_num_threads / get_num_threads: the setting round-trips, as torch.set_num_threads does,
// and a count below one is refused with the library's wording.
#include "testing.h"

namespace torchlet {
namespace {

using testing::error_of;

TEST(Threads, SetThenGetRoundTripsAndBadCountsAreRefused) {
  const int original = get_num_threads();
  EXPECT_GE(original, 1);
  for (int n : {1, 2, 1}) {
    set_num_threads(n);
    EXPECT_EQ(get_num_threads(), n);
  }
  for (int bad : {0, -1})
    EXPECT_EQ(error_of([&] { set_num_threads(bad); }),
              "set_num_threads: Expected a number of threads >= 1, but got " + std::to_string(bad));
  EXPECT_EQ(get_num_threads(), 1);  // a refused count changes nothing
  set_num_threads(original);
  EXPECT_EQ(get_num_threads(), original);
}

}  // namespace
}  // namespace torchlet
