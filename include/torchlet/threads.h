// How many threads torchlet's CPU kernels may use, as torch.set_num_threads does. Large
// kernels (GEMMs, convolutions' im2col, pooling, elementwise passes over big tensors, the
// optimizer's update) split their work over that many threads; small ones run on the caller's
// thread, where a hand-off would cost more than the work.
#pragma once

namespace torchlet {

// Sets the number of threads for CPU work (n >= 1; throws torchlet::Error otherwise). Applies
// to the whole process; call it before training, not during.
void set_num_threads(int n);
// The number of threads CPU work may use: one per core by default (OpenBLAS's count), or what
// OPENBLAS_NUM_THREADS / OMP_NUM_THREADS say.
int get_num_threads();

}  // namespace torchlet
