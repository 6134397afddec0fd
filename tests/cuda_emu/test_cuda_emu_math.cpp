// The elementwise maths (unary, where) and the reductions added with the ops of issue 14
// (reduce_dim, cumsum_dim, int64 sums), emulated, against the CPU backend.
#include "cuda_emu/emu_testing.h"

namespace torchlet::emu::testing {
namespace {

using backend::BinaryOp;
using backend::ReduceOp;
using backend::UnaryOp;

TEST(CudaEmuMath, EveryUnaryOpMatchesTheCpu) {
  const int64_t n = 777;
  const std::vector<float> x = uniform(n, 21, 0.1f, 2.5f);
  const std::vector<int64_t> ix = integers(n, 22, -5, 5);
  for_each_order([&] {
    for (int k = 0; k < backend::kUnaryOps; ++k) {
      const auto op = static_cast<UnaryOp>(k);
      std::vector<float> out(n), ref(n);
      kernels::unary(op, DType::Float32, x.data(), out.data(), n, nullptr);
      cpu().unary(op, DType::Float32, x.data(), ref.data(), n);
      expect_close(out, ref, 1e-6, "unary " + std::to_string(k));
      if (!backend::unary_takes_int64(op)) continue;
      std::vector<int64_t> iout(n), iref(n);
      kernels::unary(op, DType::Int64, ix.data(), iout.data(), n, nullptr);
      cpu().unary(op, DType::Int64, ix.data(), iref.data(), n);
      EXPECT_EQ(iout, iref) << "int64 unary " << k;
    }
  });
}

// gelu's, gelu tanh's and silu's gradients (binary ops of x and dy): contiguous (the CPU's SLEEF
// lanes) and with dy broadcast along the rows (its scalar loop).
TEST(CudaEmuMath, ActivationGradientsMatchTheCpu) {
  const std::vector<float> x = uniform(7 * 33, 29, -6.0f, 6.0f), dy = uniform(7 * 33, 30);
  const backend::Loop flat{Shape{7 * 33}, Shape{1}, Shape{1}};
  const backend::Loop rows{Shape{7, 33}, Shape{33, 1}, Shape{1, 0}};
  for_each_order([&] {
    for (BinaryOp op : {BinaryOp::GeluBackward, BinaryOp::GeluTanhBackward, BinaryOp::SiluBackward})
      for (const backend::Loop* loop : {&flat, &rows}) {
        std::vector<float> out(x.size()), ref(x.size());
        kernels::binary(op, DType::Float32, x.data(), dy.data(), out.data(), *loop, nullptr);
        cpu().binary(op, DType::Float32, x.data(), dy.data(), ref.data(), *loop);
        expect_close(out, ref, 1e-5, "gradient op " + std::to_string(static_cast<int>(op)));
      }
  });
}

TEST(CudaEmuMath, WhereMatchesTheCpu) {
  const int64_t n = 300;
  const std::vector<float> a = uniform(n, 23), b = uniform(n, 24);
  const std::vector<int64_t> picks = integers(n, 25, 0, 2);
  std::vector<char> cond(picks.begin(), picks.end());
  const auto* c = reinterpret_cast<const bool*>(cond.data());
  for_each_order([&] {
    std::vector<float> out(n), ref(n);
    kernels::where(c, DType::Float32, a.data(), b.data(), out.data(), n, nullptr);
    cpu().where(c, DType::Float32, a.data(), b.data(), ref.data(), n);
    expect_close(out, ref, 0.0, "where");
  });
}

TEST(CudaEmuMath, ReductionsAlongTheMiddleAxisMatchTheCpu) {
  // [outer, r, inner] = [3, 37, 5] and the inner == 1 case [15, 37, 1].
  const std::vector<float> x = uniform(3 * 37 * 5, 26, 0.8f, 1.2f);
  const std::vector<int64_t> ix = integers(3 * 37 * 5, 27, -3, 4);
  for_each_order([&] {
    for (int64_t inner : {int64_t{5}, int64_t{1}}) {
      const int64_t outer = 15 / inner;
      for (ReduceOp op : {ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod}) {
        std::vector<float> out(15), ref(15);
        kernels::reduce_dim(op, DType::Float32, x.data(), out.data(), outer, 37, inner, nullptr);
        cpu().reduce_dim(op, DType::Float32, x.data(), ref.data(), outer, 37, inner);
        expect_close(out, ref, 0.0, "reduce_dim " + std::to_string(static_cast<int>(op)));
        std::vector<int64_t> iout(15), iref(15);
        kernels::reduce_dim(op, DType::Int64, ix.data(), iout.data(), outer, 37, inner, nullptr);
        cpu().reduce_dim(op, DType::Int64, ix.data(), iref.data(), outer, 37, inner);
        EXPECT_EQ(iout, iref);
      }
      std::vector<float> cs(x.size()), cs_ref(x.size());
      kernels::cumsum_dim(DType::Float32, x.data(), cs.data(), outer, 37, inner, nullptr);
      cpu().cumsum_dim(DType::Float32, x.data(), cs_ref.data(), outer, 37, inner);
      expect_close(cs, cs_ref, 0.0, "cumsum");
      std::vector<int64_t> sums(15), sums_ref(15);
      kernels::sum_dim_int64(ix.data(), sums.data(), outer, 37, inner, nullptr);
      cpu().sum_dim_int64(ix.data(), sums_ref.data(), outer, 37, inner);
      EXPECT_EQ(sums, sums_ref);
    }
  });
}

// float64 tensors take the same kernels instantiated for double (and sum_dim_float64).
TEST(CudaEmuMath, Float64KernelsMatchTheCpu) {
  const std::vector<float> xf = uniform(3 * 37 * 5, 28, 0.5f, 1.5f);
  std::vector<double> x(xf.begin(), xf.end()), y(x.rbegin(), x.rend());
  for (double& v : x) v += 1e-9;  // values float32 cannot hold
  const int64_t n = static_cast<int64_t>(x.size());
  const backend::Loop loop{Shape{n}, Shape{1}, Shape{1}};
  for_each_order([&] {
    for (int op = 0; op < backend::kUnaryOps; ++op) {
      std::vector<double> out(x.size()), ref(x.size());
      kernels::unary(static_cast<UnaryOp>(op), DType::Float64, x.data(), out.data(), n, nullptr);
      cpu().unary(static_cast<UnaryOp>(op), DType::Float64, x.data(), ref.data(), n);
      expect_close(out, ref, 1e-15, "unary " + std::to_string(op));
    }
    for (BinaryOp op : {BinaryOp::Add, BinaryOp::Div, BinaryOp::Pow, BinaryOp::Maximum}) {
      std::vector<double> out(x.size()), ref(x.size());
      kernels::binary(op, DType::Float64, x.data(), y.data(), out.data(), loop, nullptr);
      cpu().binary(op, DType::Float64, x.data(), y.data(), ref.data(), loop);
      expect_close(out, ref, 1e-15, "binary " + std::to_string(static_cast<int>(op)));
    }
    for (int64_t inner : {int64_t{5}, int64_t{1}}) {
      const int64_t outer = 15 / inner;
      for (ReduceOp op : {ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod}) {
        std::vector<double> out(15), ref(15);
        kernels::reduce_dim(op, DType::Float64, x.data(), out.data(), outer, 37, inner, nullptr);
        cpu().reduce_dim(op, DType::Float64, x.data(), ref.data(), outer, 37, inner);
        EXPECT_EQ(out, ref);
      }
      std::vector<double> cs(x.size()), cs_ref(x.size());
      kernels::cumsum_dim(DType::Float64, x.data(), cs.data(), outer, 37, inner, nullptr);
      cpu().cumsum_dim(DType::Float64, x.data(), cs_ref.data(), outer, 37, inner);
      EXPECT_EQ(cs, cs_ref);
      std::vector<double> sums(15), sums_ref(15);
      kernels::sum_dim_float64(x.data(), sums.data(), outer, 37, inner, 0.25, nullptr);
      cpu().sum_dim_float64(x.data(), sums_ref.data(), outer, 37, inner, 0.25);
      EXPECT_EQ(sums, sums_ref);  // both add each column in order
    }
  });
}

}  // namespace
}  // namespace torchlet::emu::testing
