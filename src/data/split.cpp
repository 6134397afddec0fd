// train_test_split as scikit-learn does it (ShuffleSplit's sizes, rows from NumPy's
// RandomState(seed).permutation(n), reproduced draw for draw) and the row gather of X and y.
// std::mt19937 is NumPy's MT19937 with the same init_genrand seeding, so only the bounded
// integers and the shuffle order need NumPy's legacy rules.
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "torchlet/data/dataset.h"
#include "torchlet/error.h"

namespace torchlet::data {
namespace {

// NumPy's legacy random_interval: a uniform integer in [0, max] by masked rejection sampling,
// drawing 32 bits while max fits in them and 64 bits (high word first) beyond.
uint64_t random_interval(std::mt19937& gen, uint64_t max) {
  uint64_t mask = max;
  for (int shift = 1; shift <= 32; shift <<= 1) mask |= mask >> shift;
  uint64_t value = 0;
  do {
    if (max <= 0xffffffffULL) {
      value = gen() & mask;
    } else {
      const uint64_t high = gen();
      value = ((high << 32) | gen()) & mask;
    }
  } while (value > max);
  return value;
}

// RandomState(seed).permutation(n): arange(n) shuffled by Fisher-Yates from the last element.
std::vector<int64_t> numpy_permutation(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  for (int64_t i = n - 1; i > 0; --i) {
    std::swap(perm[i], perm[random_interval(gen, static_cast<uint64_t>(i))]);
  }
  return perm;
}

// The rows `rows` of `source` (whose row-major values are `values`), on source's device.
template <typename T>
Tensor gather_rows(const Tensor& source, const std::vector<T>& values,
                   const std::vector<int64_t>& rows) {
  const int64_t row_size = source.dim() == 2 ? source.size(1) : 1;
  std::vector<T> out;
  out.reserve(rows.size() * static_cast<size_t>(row_size));
  for (int64_t row : rows) {
    const auto first = values.begin() + row * row_size;
    out.insert(out.end(), first, first + row_size);
  }
  Shape shape = source.shape();
  shape[0] = static_cast<int64_t>(rows.size());
  return tensor(out, shape, source.device());
}

}  // namespace

std::pair<std::vector<int64_t>, std::vector<int64_t>> train_test_indices(int64_t n,
                                                                         double test_size,
                                                                         uint64_t random_state) {
  TORCHLET_CHECK(n > 0, "Expected at least one row to split, but got n = ", n);
  TORCHLET_CHECK(test_size > 0.0 && test_size < 1.0, "Expected test_size in (0, 1), but got ",
                 test_size);
  TORCHLET_CHECK(random_state <= 0xffffffffULL,
                 "Expected random_state < 2^32 (NumPy's RandomState seed range), but got ",
                 random_state);
  // scikit-learn's _validate_shuffle_split with train_size=None: the train part is the rest,
  // which is not always floor((1 - test_size) * n) (ceil(0.07 * 100) is 8, leaving 92).
  const auto n_test = static_cast<int64_t>(std::ceil(test_size * static_cast<double>(n)));
  const int64_t n_train = n - n_test;
  TORCHLET_CHECK(n_train > 0, "Expected test_size to leave a non-empty train set, but got ",
                 "test_size = ", test_size, " with n = ", n, ", so ", n_test, " test rows and ",
                 n_train, " train rows");
  const std::vector<int64_t> perm = numpy_permutation(n, static_cast<uint32_t>(random_state));
  return {std::vector<int64_t>(perm.begin() + n_test, perm.end()),
          std::vector<int64_t>(perm.begin(), perm.begin() + n_test)};
}

Split train_test_split(const Tensor& X, const Tensor& y, double test_size, uint64_t random_state) {
  TORCHLET_CHECK(X.dim() == 2, "Expected X to be 2-D [rows, features], but got shape ", X.shape());
  TORCHLET_CHECK(y.dim() == 1, "Expected y to be 1-D [rows], but got shape ", y.shape());
  TORCHLET_CHECK(X.size(0) == y.size(0), "Expected y to have as many rows as X (", X.size(0),
                 "), but got ", y.size(0));
  TORCHLET_CHECK(X.dtype() == kFloat32, "Expected X of dtype float32, but got ", X.dtype());
  TORCHLET_CHECK(y.dtype() == kInt64, "Expected y of dtype int64, but got ", y.dtype());
  const auto [train, test] = train_test_indices(X.size(0), test_size, random_state);
  const std::vector<float> x_values = X.to(kCPU).to_vector<float>();
  const std::vector<int64_t> y_values = y.to(kCPU).to_vector<int64_t>();
  return Split{gather_rows(X, x_values, train), gather_rows(X, x_values, test),
               gather_rows(y, y_values, train), gather_rows(y, y_values, test)};
}

}  // namespace torchlet::data
