// The fused MLP step (mlp.cu: forward, loss, backward and SGD of a small MLP in one block, in
// shared memory) in the emulator against the CPU backend's mlp_step and mlp_sgd_steps: the
// course's 4-10-3 model on 120 rows, a deeper model on a gathered batch, a model whose shared
// memory needs the opt-in above 48 KiB, and a bad row index.
#include "cuda_emu/emu_testing.h"

namespace torchlet::emu::testing {
namespace {

struct Model {
  std::vector<int64_t> widths;
  std::vector<std::vector<float>> weight, bias, weight_grad, bias_grad;
  Model(std::vector<int64_t> w, uint64_t seed) : widths(std::move(w)) {
    for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
      const auto in = static_cast<std::size_t>(widths[l]),
                 out = static_cast<std::size_t>(widths[l + 1]);
      weight.push_back(uniform(in * out, seed++, -0.5f, 0.5f));
      bias.push_back(uniform(out, seed++, -0.5f, 0.5f));
      weight_grad.emplace_back(in * out, 0.0f);
      bias_grad.emplace_back(out, 0.0f);
    }
  }
  int layers() const { return static_cast<int>(widths.size()) - 1; }
};

struct Batch {
  std::vector<float> x;
  std::vector<int64_t> target;
  std::vector<int64_t> rows;  // empty: every row
  int64_t x_rows;
  int64_t n() const { return rows.empty() ? x_rows : static_cast<int64_t>(rows.size()); }
};

Batch batch(const Model& m, int64_t x_rows, int64_t n_rows, uint64_t seed) {
  Batch b{uniform(static_cast<std::size_t>(x_rows * m.widths[0]), seed),
          integers(static_cast<std::size_t>(x_rows), seed + 1, 0, m.widths.back()),
          {},
          x_rows};
  if (n_rows > 0) b.rows = integers(static_cast<std::size_t>(n_rows), seed + 2, 0, x_rows);
  return b;
}

// `steps` steps (with SGD when steps > 1, as mlp_sgd_steps) in the emulator; the losses.
std::vector<float> run_emulated(Model& m, const Batch& b, int steps) {
  kernels::Mlp k{};
  k.layers = m.layers();
  for (int l = 0; l <= k.layers; ++l) k.widths[l] = static_cast<int>(m.widths[l]);
  for (int l = 0; l < k.layers; ++l) {
    k.weight[l] = m.weight[l].data();
    k.bias[l] = m.bias[l].data();
    k.weight_grad[l] = m.weight_grad[l].data();
    k.bias_grad[l] = m.bias_grad[l].data();
  }
  std::vector<float> losses(static_cast<std::size_t>(steps));
  ErrorWord error;
  k.x = b.x.data();
  k.target = b.target.data();
  k.rows = b.rows.empty() ? nullptr : b.rows.data();
  k.n = static_cast<int>(b.n());
  k.loss = losses.data();
  k.steps = steps;
  k.update = steps > 1;
  k.lr = 0.1f;
  k.weight_decay = 0.01f;
  k.error = error.flag();
  k.x_rows = b.x_rows;
  const std::size_t bytes = kernels::mlp_shared_bytes(k.widths, k.layers, k.n);
  kernels::mlp_step(k, bytes, bytes > kSharedDefault, nullptr);
  EXPECT_EQ(error.word, kernels::kNoError);
  return losses;
}

std::vector<float> run_cpu(Model& m, const Batch& b, int steps) {
  std::vector<float*> w, bias, gw, gb;
  for (int l = 0; l < m.layers(); ++l) {
    w.push_back(m.weight[l].data());
    bias.push_back(m.bias[l].data());
    gw.push_back(m.weight_grad[l].data());
    gb.push_back(m.bias_grad[l].data());
  }
  std::vector<float> losses(static_cast<std::size_t>(steps));
  const backend::MlpStep s{m.layers(), m.widths.data(),
                           w.data(),   bias.data(),
                           gw.data(),  gb.data(),
                           b.x.data(), b.target.data(),
                           b.x_rows,   b.rows.empty() ? nullptr : b.rows.data(),
                           b.n(),      losses.data()};
  if (steps > 1)
    cpu().fused_mlp()->mlp_sgd_steps(s, {0.1f, 0.01f}, steps, losses.data());
  else
    cpu().fused_mlp()->mlp_step(s);
  return losses;
}

void expect_same_step(const std::vector<int64_t>& widths, int64_t x_rows, int64_t n_rows,
                      int steps) {
  const Model initial(widths, 70);
  const Batch b = batch(initial, x_rows, n_rows, 80);
  for_each_order([&] {
    Model emu = initial, ref = initial;
    const std::vector<float> loss = run_emulated(emu, b, steps);
    const std::vector<float> loss_ref = run_cpu(ref, b, steps);
    expect_close(loss, loss_ref, 1e-5, "loss");
    for (int l = 0; l < emu.layers(); ++l) {
      const std::string layer = " of layer " + std::to_string(l);
      expect_close(emu.weight_grad[l], ref.weight_grad[l], 1e-5, "weight gradient" + layer);
      expect_close(emu.bias_grad[l], ref.bias_grad[l], 1e-5, "bias gradient" + layer);
      expect_close(emu.weight[l], ref.weight[l], 1e-5, "weight" + layer);
      expect_close(emu.bias[l], ref.bias[l], 1e-5, "bias" + layer);
    }
  });
}

TEST(CudaEmuMlp, TheCoursesStepOnEveryRow) { expect_same_step({4, 10, 3}, 120, 0, 1); }

TEST(CudaEmuMlp, ADeeperModelOnAGatheredBatch) { expect_same_step({5, 16, 8, 4}, 50, 37, 1); }

TEST(CudaEmuMlp, SgdStepsInOneLaunch) { expect_same_step({4, 10, 3}, 120, 0, 5); }

TEST(CudaEmuMlp, SharedMemoryAbove48KiBOptsIn) {
  int widths[] = {4, 64, 3};
  ASSERT_GT(kernels::mlp_shared_bytes(widths, 2, 120), kSharedDefault);
  clear_attributes();
  expect_same_step({4, 64, 3}, 120, 0, 2);
}

TEST(CudaEmuMlp, ABadRowIndexIsReported) {
  Model m({4, 6, 3}, 90);
  Batch b = batch(m, 20, 10, 91);
  b.rows[3] = 20;
  kernels::Mlp k{};
  k.layers = 2;
  k.widths[0] = 4, k.widths[1] = 6, k.widths[2] = 3;
  for (int l = 0; l < 2; ++l) {
    k.weight[l] = m.weight[l].data();
    k.bias[l] = m.bias[l].data();
    k.weight_grad[l] = m.weight_grad[l].data();
    k.bias_grad[l] = m.bias_grad[l].data();
  }
  float loss = 0.0f;
  ErrorWord error;
  k.x = b.x.data();
  k.target = b.target.data();
  k.rows = b.rows.data();
  k.n = 10;
  k.loss = &loss;
  k.steps = 1;
  k.error = error.flag();
  k.x_rows = 20;
  for_each_order([&] {
    error.word = kernels::kNoError;
    kernels::mlp_step(k, kernels::mlp_shared_bytes(k.widths, 2, 10), false, nullptr);
    // The row, or the target -1 it stands for: whichever thread reports first.
    EXPECT_TRUE(error.word == 20 || error.word == -1) << error.word;
    EXPECT_TRUE(std::isnan(loss)) << loss;
  });
}

}  // namespace
}  // namespace torchlet::emu::testing
