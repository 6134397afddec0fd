// MlpStep on CUDA. When the model and the batch fit in one block's shared memory (the
// course's 4-10-3 model on 120 rows needs about 21 KiB), the whole step, and with SGD many
// steps, is ONE kernel launch (mlp.cu). Otherwise the same step is composed of cuBLAS GEMMs
// and the backend's kernels (mlp_composed.cpp).
#include <climits>

#include "backends/cuda/check.h"
#include "backends/cuda/cuda_backend.h"
#include "torchlet/error.h"

namespace torchlet::backend::cuda {

void CudaBackend::mlp_step(const MlpStep& s) { mlp_run(s, nullptr, 1, s.loss); }

void CudaBackend::mlp_sgd_steps(const MlpStep& s, const MlpSgd& sgd, int64_t steps, float* losses) {
  mlp_run(s, &sgd, steps, losses);
}

void CudaBackend::mlp_run(const MlpStep& s, const MlpSgd* sgd, int64_t steps, float* losses) {
  if (steps == 0) return;
  activate();
  bool fits = s.layers <= kernels::kMlpMaxLayers && s.n > 0 && s.n <= INT_MAX && steps <= INT_MAX;
  kernels::Mlp m{};
  for (int l = 0; fits && l <= s.layers; ++l) {
    fits = s.widths[l] <= 4096;
    m.widths[l] = static_cast<int>(s.widths[l]);
  }
  std::size_t shared = 0;
  if (fits) {
    shared = kernels::mlp_shared_bytes(m.widths, s.layers, static_cast<int>(s.n));
    fits = shared <= shared_limit_;
  }
  if (!fits) return mlp_composed(s, sgd, steps, losses);
  m.layers = s.layers;
  for (int l = 0; l < s.layers; ++l) {
    m.weight[l] = s.weight[l];
    m.bias[l] = s.bias[l];
    m.weight_grad[l] = s.weight_grad[l];
    m.bias_grad[l] = s.bias_grad[l];
  }
  m.x = s.x;
  m.target = s.target;
  m.rows = s.rows;
  m.n = static_cast<int>(s.n);
  m.loss = losses;
  m.steps = static_cast<int>(steps);
  m.update = sgd != nullptr;
  m.lr = sgd ? sgd->lr : 0.0f;
  m.weight_decay = sgd ? sgd->weight_decay : 0.0f;
  m.error = target_error();
  m.x_rows = s.x_rows;
  const bool raise_limit = shared > mlp_shared_opted_in_;
  kernels::mlp_step(m, shared, raise_limit, stream_);
  check_launch("FusedMlp");
  if (raise_limit) mlp_shared_opted_in_ = shared;
}

}  // namespace torchlet::backend::cuda
