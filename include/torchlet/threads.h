// How many threads torchlet's CPU kernels may use, as torch.set_num_threads does. Today that
// is OpenBLAS's pool, which runs the large GEMMs; the small kernels always run on the caller's
// thread (a fork/join costs more than their work).
#pragma once

namespace torchlet {

// Sets the number of threads for CPU work (n >= 1; throws torchlet::Error otherwise). Applies
// to the whole process, as OpenBLAS's setting does; call it before training, not during.
void set_num_threads(int n);
// The number of threads CPU work may use: OpenBLAS's default is one per core, or what
// OPENBLAS_NUM_THREADS / OMP_NUM_THREADS say.
int get_num_threads();

}  // namespace torchlet
