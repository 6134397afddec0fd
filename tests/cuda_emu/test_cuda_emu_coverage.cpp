// Every __global__ function of src/backends/cuda/*.cu (listed at build time by rewrite_cu.py)
// must be launched by one of the calls below, each the subject of a comparison in the other
// test_cuda_emu_*.cpp files: a new kernel fails here until it is added and tested.
#include <set>

#include "cuda_emu/emu_testing.h"

namespace torchlet::emu::testing {
namespace {

const std::set<std::string> kEveryKernel = {
#include "kernel_names.inc"
};

TEST(CudaEmuCoverage, EveryKernelOfTheCuFilesIsLaunchedByTheseTests) {
  set_order(Order::Forward);
  clear_launched();
  std::vector<float> f(64, 1.0f), g(64, 1.0f), h(64, 1.0f);
  std::vector<int64_t> i(64, 0);
  ErrorWord error;
  const backend::Loop loop{Shape{8}, Shape{1}, Shape{1}};
  kernels::fill(f.data(), DType::Float32, 8, 1.0, nullptr);
  kernels::cast(f.data(), DType::Float32, i.data(), DType::Int64, 8, nullptr);
  kernels::strided_copy(f.data(), g.data(), DType::Float32, loop, nullptr);
  kernels::binary(backend::BinaryOp::Add, DType::Float32, f.data(), g.data(), h.data(), loop,
                  nullptr);
  kernels::binary(backend::BinaryOp::Eq, DType::Float32, f.data(), g.data(), h.data(), loop,
                  nullptr);
  kernels::binary_scalar(backend::BinaryOp::Mul, DType::Float32, f.data(), 2.0, false, g.data(), 8,
                         nullptr);
  kernels::unary(backend::UnaryOp::Exp, DType::Float32, f.data(), g.data(), 8, nullptr);
  std::vector<char> c(64, 1);
  kernels::where(reinterpret_cast<const bool*>(c.data()), DType::Float32, f.data(), g.data(),
                 h.data(), 8, nullptr);
  kernels::sum_dim_int64(i.data(), i.data() + 32, 2, 4, 1, nullptr);
  kernels::reduce_dim(backend::ReduceOp::Max, DType::Float32, f.data(), g.data(), 2, 4, 1, nullptr);
  kernels::cumsum_dim(DType::Float32, f.data(), g.data(), 2, 4, 1, nullptr);
  kernels::gather_rows(f.data(), 8, i.data(), g.data(), 8, 4, error.flag(), nullptr);
  const backend::IndexLoop index_loop{Shape{8}, Shape{1}, Shape{1}, Shape{1}, 0, 8};
  kernels::gather_dim(DType::Float32, f.data(), i.data(), g.data(), index_loop, error.flag(),
                      nullptr);
  kernels::scatter_dim(true, DType::Float32, f.data(), i.data(), g.data(), index_loop, error.flag(),
                       nullptr);
  kernels::relu_forward(f.data(), g.data(), 8, nullptr);
  kernels::relu_backward(f.data(), g.data(), h.data(), 8, nullptr);
  kernels::sum_dim(f.data(), g.data(), 2, 4, 1, 1.0f, nullptr);
  kernels::sum_dim(f.data(), g.data(), 2, 2, 2, 1.0f, nullptr);
  kernels::argmax_dim(f.data(), DType::Float32, i.data(), 2, 4, 1, nullptr);
  kernels::argmax_dim(f.data(), DType::Float32, i.data(), 2, 2, 2, nullptr);
  kernels::softmax_forward(f.data(), g.data(), 2, 4, 1, false, nullptr);
  kernels::softmax_backward(g.data(), f.data(), h.data(), 2, 4, 1, false, nullptr);
  kernels::softmax_forward(f.data(), g.data(), 2, 2, 2, false, nullptr);
  kernels::softmax_backward(g.data(), f.data(), h.data(), 2, 2, 2, false, nullptr);
  kernels::cross_entropy_forward(f.data(), i.data(), g.data(), h.data(), 2, 4, error.flag(),
                                 nullptr);
  kernels::cross_entropy_backward(h.data(), i.data(), f.data(), g.data(), 2, 4, nullptr);
  const backend::Window2d w{1, 1, 4, 4, 2, 2, 2, 2, 0, 0, 2, 2};
  kernels::im2col(f.data(), g.data(), w, nullptr);
  kernels::col2im(g.data(), h.data(), w, nullptr);
  kernels::max_pool2d_forward(f.data(), g.data(), i.data(), w, nullptr);
  kernels::max_pool2d_backward(g.data(), i.data(), h.data(), w, nullptr);
  kernels::dropout_forward(f.data(), g.data(), h.data(), 8, 0.5f, 1, nullptr);
  kernels::Updates updates{};
  int64_t step = 0;
  updates.u[updates.count++] = {f.data(), g.data(), h.data(), h.data() + 8, &step, 8};
  kernels::sgd_step(updates, {0.1f, 0.0f, 0.0f, false}, nullptr);
  kernels::adam_step(updates, {0.1f, 0.9f, 0.999f, 1e-8f, 0.0f}, nullptr);
  updates.u[0].state3 = h.data() + 16;
  kernels::rmsprop_step(updates, {0.1f, 0.99f, 1e-8f, 0.0f, 0.9f, true, false}, nullptr);
  kernels::adagrad_step(updates, {0.1f, 0.0f, 0.0f, 1e-10f, false}, nullptr);
  kernels::Mlp m{};
  m.layers = 1;
  m.widths[0] = 2, m.widths[1] = 2;
  m.weight[0] = f.data(), m.bias[0] = f.data() + 4;
  m.weight_grad[0] = g.data(), m.bias_grad[0] = g.data() + 4;
  m.x = h.data(), m.target = i.data(), m.n = 2, m.x_rows = 2, m.steps = 1;
  m.loss = h.data() + 8, m.error = error.flag();
  kernels::mlp_step(m, kernels::mlp_shared_bytes(m.widths, 1, 2), false, nullptr);

  const std::set<std::string> ran(launched().begin(), launched().end());
  for (const std::string& k : kEveryKernel) EXPECT_TRUE(ran.count(k)) << k << " never ran";
  for (const std::string& k : ran) EXPECT_TRUE(kEveryKernel.count(k)) << k << " is not listed";
}

}  // namespace
}  // namespace torchlet::emu::testing
