// The conformance rows of the reductions and shape ops: each against PyTorch's output and
// gradient (tests/fixtures/ops_golden.json, "reductions") and central finite differences; and
// what views promise: shared storage, PyTorch's view error, split/chunk pieces, int64 results.
#include <fstream>
#include <functional>
#include <map>

#include "conformance.h"
#include "ops_golden.h"
#include "testing.h"

namespace torchlet {
namespace {

using testing::all_close;
using Fn = testing::GoldenRow;

const std::map<std::string, Fn>& rows() {
  static const std::map<std::string, Fn> table = {
      {"sum_dims",
       [](const Tensor& x) {
         return x.sum({0, 1}, true);
       }},
      {"mean_dim1", [](const Tensor& x) { return x.mean(std::vector<int64_t>{1}); }},
      {"max_dim1", [](const Tensor& x) { return std::get<0>(x.max(1)); }},
      {"min_dim0_keepdim", [](const Tensor& x) { return std::get<0>(min(x, 0, true)); }},
      {"amax_all",
       [](const Tensor& x) {
         return amax(x, {0, 1});
       }},
      {"prod_dim1", [](const Tensor& x) { return x.prod(1); }},
      {"prod_with_zeros",
       [](const Tensor& x) {
         return prod(x * tensor({1.0f, 0.0f, 1.0f, 1.0f}), 1);
       }},
      {"var_dim1", [](const Tensor& x) { return var(x, {1}); }},
      {"var_all_population", [](const Tensor& x) { return var(x, {}, 0.0); }},
      {"std_dim0", [](const Tensor& x) { return torchlet::std(x, {0}); }},
      {"norm_all", [](const Tensor& x) { return norm(x); }},
      {"norm_1_dim1", [](const Tensor& x) { return norm(x, 1.0, {1}); }},
      {"logsumexp_dim1", [](const Tensor& x) { return logsumexp(x, {1}); }},
      {"cumsum_dim1", [](const Tensor& x) { return x.cumsum(1); }},
      {"permute",
       [](const Tensor& x) {
         return x.reshape({3, 2, 2}).permute({2, 0, 1});
       }},
      {"transpose_unsqueeze", [](const Tensor& x) { return x.transpose(0, 1).unsqueeze(1); }},
      {"cat_dim1",
       [](const Tensor& x) {
         return cat({x, x * 2, x.slice(1, 0, 1)}, 1);
       }},
      {"stack_dim0",
       [](const Tensor& x) {
         return stack({x, -x}, 0);
       }},
      {"repeat",
       [](const Tensor& x) {
         return x.repeat({2, 1, 3});
       }},
      {"expand",
       [](const Tensor& x) {
         return x.slice(0, 0, 1).expand({5, 4}) * arange(5).to(kFloat32).unsqueeze(1);
       }},
      {"select", [](const Tensor& x) { return x[1] * x.select(1, -1).sum(); }},
  };
  return table;
}

CONFORMANCE_TEST(OpsShapes, EveryRowMatchesPyTorchForwardAndBackward) {
  testing::expect_rows_match_pytorch("reductions", rows());
}

CONFORMANCE_TEST(OpsShapes, EveryRowMatchesFiniteDifferences) {
  // Kinks: the maximum's gradient jumps where two elements are equal.
  testing::expect_rows_match_finite_differences("reductions", rows(),
                                                {"max_dim1", "min_dim0_keepdim", "amax_all"});
}

// The same rows on float64 inputs: PyTorch's float64 numbers to 1e-12, differences to 1e-7.
CONFORMANCE_TEST(OpsShapes, EveryRowMatchesPyTorchInFloat64) {
  testing::expect_rows_match_pytorch<double>("reductions", rows());
}

CONFORMANCE_TEST(OpsShapes, EveryRowMatchesFiniteDifferencesInFloat64) {
  testing::expect_rows_match_finite_differences<double>(
      "reductions", rows(), {"max_dim1", "min_dim0_keepdim", "amax_all"});
}

CONFORMANCE_TEST(OpsShapes, ViewsShareStorageAndViewRefusesWhatReshapeCopies) {
  Tensor x = arange(12).to(kFloat32).reshape({3, 4});
  Tensor p = x.permute({1, 0});
  EXPECT_FALSE(p.is_contiguous());
  x.select(0, 1).fill_(-1.0);  // writes through the view into x
  EXPECT_EQ(p.select(1, 1).to_vector<float>(), (std::vector<float>{-1, -1, -1, -1}));
  EXPECT_EQ(testing::error_of([&] { p.view({12}); }),
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  EXPECT_EQ(p.reshape({12}).shape(), Shape({12}));         // a copy
  EXPECT_EQ(p.view({2, 2, 3}).shape(), Shape({2, 2, 3}));  // the 4 splits without a copy
  EXPECT_EQ(x.unsqueeze(0).squeeze().shape(), Shape({3, 4}));
  EXPECT_EQ(x.unflatten(1, {2, -1}).shape(), Shape({3, 2, 2}));
  EXPECT_EQ(testing::error_of([&] { x.select(0, 3); }),
            "select: Expected an index in [-3, 3) for dimension 0 of size 3, but got 3");
  EXPECT_EQ(testing::error_of([&] {
              x.expand({3, 5});
            }),
            "expand: Expected the expanded size 5 to match the existing size 4 at non-singleton "
            "dimension 1, target sizes [3, 5], tensor sizes [3, 4]");
}

CONFORMANCE_TEST(OpsShapes, SplitChunkAndCatOfManyTensors) {
  const Tensor x = arange(10);
  const auto pieces = x.split(4);
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[2].to_vector<int64_t>(), (std::vector<int64_t>{8, 9}));
  EXPECT_EQ(x.chunk(3).size(), 3u);
  EXPECT_EQ(x.chunk(3)[0].numel(), 4);
  // Seven inputs: more than one autograd node takes, joined in groups; gradients still flow.
  Tensor a = ones({2, 1});
  a.set_requires_grad(true);
  std::vector<Tensor> parts;
  for (int i = 0; i < 7; ++i) parts.push_back(a * static_cast<double>(i + 1));
  Tensor joined = cat(parts, 1);
  EXPECT_EQ(joined.shape(), Shape({2, 7}));
  joined.sum().backward();
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{28, 28}));
  EXPECT_EQ(cat({tensor({1, 2}), tensor({0.5f})}).dtype(), kFloat32);  // dtypes promote
  EXPECT_EQ(testing::error_of([] {
              cat({zeros({2, 3}), zeros({3, 3})}, 1);
            }),
            "cat: Sizes of tensors must match except in dimension 1. Expected size 2 but got size "
            "3 for tensor number 1 in the list.");
}

CONFORMANCE_TEST(OpsShapes, IntegerReductionsAndIndices) {
  const Tensor x = tensor({3, -1, 4, 1, -5, 9}, {2, 3});
  auto [values, indices] = x.max(1);
  EXPECT_EQ(values.to_vector<int64_t>(), (std::vector<int64_t>{4, 9}));
  EXPECT_EQ(indices.to_vector<int64_t>(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(x.argmin(1).to_vector<int64_t>(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(x.prod(1).to_vector<int64_t>(), (std::vector<int64_t>{-12, -45}));
  EXPECT_EQ(x.cumsum(1).to_vector<int64_t>(), (std::vector<int64_t>{3, 2, 6, 1, -4, 5}));
  EXPECT_EQ(x.max().item<int64_t>(), 9);
  EXPECT_TRUE((x > 0).any().item<bool>());
  EXPECT_FALSE((x > 0).all().item<bool>());
  EXPECT_EQ(all(x != 0, 1).to_vector<bool>(), (std::vector<bool>{true, true}));
}

}  // namespace
}  // namespace torchlet
