// The CPU GEMM (register-tiled small kernel and the BLAS path) against a plain triple loop,
// over shapes on both sides of the dispatch boundary, every transpose, alpha, beta and
// leading dimensions wider than the matrix, on one thread and on three (large products are
// then cut into blocks of rows or of columns).
#include <sstream>

#include "backends/backend.h"
#include "testing.h"

namespace torchlet {
namespace {

// C = alpha * op(A) op(B) + beta * C, the plain way, in double.
void gemm_reference(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                    int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p)
        s += double(ta ? a[p * lda + i] : a[i * lda + p]) * (tb ? b[j * ldb + p] : b[p * ldb + j]);
      c[i * ldc + j] = float(alpha * s + (beta == 0.0f ? 0.0 : double(beta) * c[i * ldc + j]));
    }
}

struct GemmCase {
  int64_t m, n, k;
};

class GemmTest : public ::testing::TestWithParam<GemmCase> {};

INSTANTIATE_TEST_SUITE_P(
    Shapes, GemmTest,
    ::testing::Values(GemmCase{1, 1, 1}, GemmCase{120, 10, 4}, GemmCase{120, 3, 10},
                      GemmCase{120, 10, 3}, GemmCase{3, 10, 120}, GemmCase{10, 4, 120},
                      GemmCase{7, 129, 33}, GemmCase{129, 7, 1}, GemmCase{17, 5, 0},
                      GemmCase{65, 70, 67}, GemmCase{256, 130, 100}, GemmCase{40, 515, 200}),
    [](const auto& info) {
      // A stream, not string operator+ chains: GCC 12 warns (-Wrestrict,
      // a false positive) on "m" + std::to_string(...) at -O2.
      std::ostringstream name;
      name << 'm' << info.param.m << 'n' << info.param.n << 'k' << info.param.k;
      return name.str();
    });

TEST_P(GemmTest, MatchesThePlainLoop) {
  const auto [m, n, k] = GetParam();
  backend::Backend& cpu = backend::get(kCPU);
  const int saved_threads = get_num_threads();
  for (int threads : {1, 3})
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (auto [alpha, beta] :
             {std::pair{1.0f, 0.0f}, std::pair{0.5f, 1.0f}, std::pair{-2.0f, 0.25f}}) {
          const int64_t lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 1, ldc = n + 2;
          const auto a = testing::random_values((ta ? k : m) * lda, 1);
          const auto b = testing::random_values((tb ? n : k) * ldb, 2);
          auto c = testing::random_values(m * ldc, 3);
          auto want = c;
          set_num_threads(threads);
          cpu.gemm(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
          gemm_reference(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, want.data(),
                         ldc);
          const double tol = 1e-5 * std::max<int64_t>(k, 1);  // rounding grows with k
          EXPECT_TRUE(testing::all_close(c, want, tol, 1e-5))
              << "m " << m << " n " << n << " k " << k << " trans_a " << ta << " trans_b " << tb
              << " alpha " << alpha << " beta " << beta << " threads " << threads;
        }
  set_num_threads(saved_threads);
}

}  // namespace
}  // namespace torchlet
