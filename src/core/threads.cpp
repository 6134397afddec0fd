// set_num_threads / get_num_threads: the thread count of the CPU backend, which is OpenBLAS's
// pool (the one that runs large GEMMs). OpenBLAS keeps the setting, so torchlet holds no state.
#include "torchlet/threads.h"

#include <cblas.h>

#include "torchlet/error.h"

namespace torchlet {

void set_num_threads(int n) {
  TORCHLET_CHECK(n >= 1, "set_num_threads: Expected a number of threads >= 1, but got ", n);
  openblas_set_num_threads(n);
}

int get_num_threads() { return openblas_get_num_threads(); }

}  // namespace torchlet
