// The conformance rows of indexing, masked_fill, where and einsum: each against PyTorch's output
// and gradient (tests/fixtures/ops_golden.json, "indexing"; "float64"/"indexing" for the same
// rows in float64, every constant in x's dtype) and central finite differences; awkward shapes
// (empty, size 1, non-contiguous, broadcast) against plain loops; views sharing storage; the
// error messages users read.
#include <functional>
#include <map>

#include "conformance.h"
#include "ops_golden.h"
#include "testing.h"

namespace torchlet {
namespace {

using testing::all_close;
using testing::error_of;
using Fn = testing::GoldenRow;
using namespace torchlet::indexing;

Tensor ints(std::vector<int64_t> v, const Shape& shape) { return tensor(v, shape); }
Tensor ints(std::vector<int64_t> v) { return tensor(v); }

const std::map<std::string, Fn>& rows() {
  static const std::map<std::string, Fn> table = {
      {"index_select_dim0",
       [](const Tensor& x) {
         return index_select(x, 0, ints({2, 2, 0}));
       }},
      {"index_select_dim1",
       [](const Tensor& x) {
         return x.index_select(1, ints({3, 0, 3}));
       }},
      {"gather_dim1",
       [](const Tensor& x) {
         return gather(x, 1, ints({0, 0, 3, 1, 2, 2}, {3, 2}));
       }},
      {"gather_dim0",
       [](const Tensor& x) {
         return x.gather(0, ints({2, 1, 0, 0}, {1, 4}));
       }},
      {"scatter_value",
       [](const Tensor& x) {
         return x.scatter(1, ints({0, 2, 3}, {3, 1}), -1.0);
       }},
      {"scatter_src",
       [](const Tensor& x) {
         return zeros({3, 5}, x.dtype())
             .scatter(1, ints({4, 0, 1, 3, 1, 2, 3, 0, 0, 4, 2, 1}, {3, 4}), x);
       }},
      {"scatter_self_and_src",
       [](const Tensor& x) {
         return scatter(x, 0, ints({2, 0, 1, 2}, {1, 4}), x.slice(0, 0, 1) * 3);
       }},
      {"scatter_add",
       [](const Tensor& x) {
         return scatter_add(zeros({2, 4}, x.dtype()), 0,
                            ints({0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1}, {3, 4}), x);
       }},
      {"scatter_add_self",
       [](const Tensor& x) {
         return x.scatter_add(1, ints({0, 0, 1, 1, 3, 2}, {3, 2}),
                              x.slice(1, 0, 2) * x.slice(1, 2, 4));
       }},
      {"index_add",
       [](const Tensor& x) {
         return index_add(zeros({5, 4}, x.dtype()), 0, ints({4, 0, 4}), x);
       }},
      {"index_add_alpha",
       [](const Tensor& x) {
         return x.index_add(1, ints({1, 1, 0, 3}), x * x, 0.5);
       }},
      {"index_int_tensor",
       [](const Tensor& x) {
         return x.index({ints({2, 0, 2})});
       }},
      {"index_int_tensor_2d",
       [](const Tensor& x) {
         return x.index({Slice(), ints({1, 3, 0, 0}, {2, 2})});
       }},
      {"index_two_tensors",
       [](const Tensor& x) {
         return x.index({ints({0, 2, 2}), ints({3, 1, 3})});
       }},
      {"index_broadcast_tensors",
       [](const Tensor& x) {
         return x.index({ints({0, 2}, {2, 1}), ints({1, 3, 0})});
       }},
      {"index_mask", [](const Tensor& x) { return x.index({x > 0}); }},
      {"index_row_mask",
       [](const Tensor& x) {
         return x.index({ints({1, 0, 1}) == 1});
       }},
      {"index_tensor_and_step",
       [](const Tensor& x) {
         return x.index({ints({0, 2}), Slice(1, None, 2)});
       }},
      {"index_apart",
       [](const Tensor& x) {
         return x.reshape({3, 2, 2}).index({ints({0, 2}), Slice(), ints({1, 0})});
       }},
      {"index_slices",
       [](const Tensor& x) {
         return x.index({Slice(1), Slice(None, None, 2)});
       }},
      {"index_none_ellipsis",
       [](const Tensor& x) {
         return x.index({None, Ellipsis, -1});
       }},
      {"index_none_slice",
       [](const Tensor& x) {
         return x.index({Slice(), None, Slice(1, 3)});
       }},
      {"index_put",
       [](const Tensor& x) {
         return x.index_put({ints({0, 2}), ints({1, 3})}, tensor({5.0, 6.0}).to(x.dtype()));
       }},
      {"index_put_accumulate",
       [](const Tensor& x) {
         return x.index_put({ints({1, 1, 2})}, x.slice(0, 0, 1).expand({3, 4}) * 2, true);
       }},
      {"index_put_mask",
       [](const Tensor& x) { return x.index_put({x < 0}, zeros({}, x.dtype())); }},
      {"einsum_mm",
       [](const Tensor& x) {
         return einsum("ij,jk->ik", {x, x.t()});
       }},
      {"einsum_bmm",
       [](const Tensor& x) {
         return einsum("bij,bjk->bik", {x.reshape({3, 2, 2}), x.reshape({3, 2, 2})});
       }},
      {"einsum_outer",
       [](const Tensor& x) {
         return einsum("i,j->ij", {x[0], x[1]});
       }},
      {"einsum_transpose", [](const Tensor& x) { return einsum("ij->ji", {x}); }},
      {"einsum_diagonal", [](const Tensor& x) { return einsum("ii->i", {x.slice(1, 0, 3)}); }},
      {"einsum_batch_transpose",
       [](const Tensor& x) {
         return einsum("bij->bji", {x.reshape({3, 2, 2})});
       }},
      {"einsum_dot",
       [](const Tensor& x) {
         return einsum("ij,ij->", {x, x * x});
       }},
      {"einsum_rowwise_dot",
       [](const Tensor& x) {
         return einsum("bi,bi->b", {x, x.index({ints({2, 0, 1})})});
       }},
      {"einsum_implicit",
       [](const Tensor& x) {
         return einsum("ij,kj", {x, x.slice(0, 0, 2)});
       }},
      {"einsum_sum_columns", [](const Tensor& x) { return einsum("ij->j", {x}); }},
      {"masked_fill",
       [](const Tensor& x) {
         return x.masked_fill(ints({1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0}, {3, 4}) == 1, -0.5) * x;
       }},
      {"masked_fill_broadcast",
       [](const Tensor& x) {
         return masked_fill(x, ints({0, 1, 0, 1}) == 1, 2.0);
       }},
      {"where",
       [](const Tensor& x) {
         return where(ints({1, 0, 1}, {3, 1}) == 1, x, x * x - 1);
       }},
      {"where_scalar",
       [](const Tensor& x) {
         return where(ints({1, 0, 1, 0}) == 1, 0.25, x.slice(0, 1, 3) * 3);
       }},
      // index_put_ into a tensor made from x, with values made from x: both get gradients.
      {"index_put_inplace",
       [](const Tensor& x) {
         Tensor y = x * 2;
         y.index_put_({ints({0, 2}), ints({1, 3})}, x.index({1, Slice(None, 2)}) * 3);
         return y;
       }},
      {"index_put_inplace_accumulate",
       [](const Tensor& x) {
         Tensor y = x.clone();
         y.index_put_({ints({1, 1, 2})}, x.slice(0, 0, 1).expand({3, 4}) * x.slice(0, 2, 3), true);
         return y;
       }},
      {"index_put_inplace_mask",
       [](const Tensor& x) {
         Tensor y = x * x;
         y.index_put_({ints({1, 0, 1}) == 1}, x[1] * 2);
         return y;
       }},
  };
  return table;
}

CONFORMANCE_TEST(OpsIndexing, EveryRowMatchesPyTorchForwardAndBackward) {
  testing::expect_rows_match_pytorch("indexing", rows());
}

CONFORMANCE_TEST(OpsIndexing, EveryRowMatchesFiniteDifferences) {
  // The masks are made from x itself: a nudge may cross 0 and change what they select.
  testing::expect_rows_match_finite_differences("indexing", rows(),
                                                {"index_mask", "index_put_mask"});
}

// The same rows on float64 inputs: PyTorch's float64 numbers to 1e-12, differences to 1e-7.
CONFORMANCE_TEST(OpsIndexing, Float64RowsMatchPyTorch) {
  testing::expect_rows_match_pytorch<double>("indexing", rows());
}

CONFORMANCE_TEST(OpsIndexing, Float64RowsMatchFiniteDifferences) {
  testing::expect_rows_match_finite_differences<double>("indexing", rows(),
                                                        {"index_mask", "index_put_mask"});
}

// index_put_ in place (not recorded by autograd) in float64, with and without accumulate:
// PyTorch's float64 index_put rows' outputs.
CONFORMANCE_TEST(OpsIndexing, Float64IndexPutInPlaceMatchesPyTorch) {
  for (const nlohmann::json& e : testing::ops_golden()["float64"]["indexing"]) {
    const std::string name = e["name"];
    if (name != "index_put" && name != "index_put_accumulate") continue;
    SCOPED_TRACE(name);
    Tensor x = tensor(e["x"].get<std::vector<double>>(), {3, 4});
    if (name == "index_put")
      x.index_put_({ints({0, 2}), ints({1, 3})}, tensor({5.0, 6.0}));
    else
      x.index_put_({ints({1, 1, 2})}, x.slice(0, 0, 1).expand({3, 4}) * 2, true);
    EXPECT_EQ(x.dtype(), kFloat64);
    EXPECT_TRUE(
        all_close(x.to_vector<double>(), e["out"].get<std::vector<double>>(), 1e-12, 1e-12));
  }
}

// gather and scatter_add against plain loops on a non-contiguous input of awkward sizes.
CONFORMANCE_TEST(OpsIndexing, GatherAndScatterAddMatchLoopsOnAwkwardShapes) {
  manual_seed(7);
  const Tensor base = randn({5, 7});
  const Tensor x = base.t();  // [7, 5], strides (1, 7)
  ASSERT_FALSE(x.is_contiguous());
  const Tensor index = (rand({7, 3}) * 5).to(kInt64);
  const std::vector<float> xv = x.contiguous().to_vector<float>();
  const std::vector<int64_t> iv = index.to_vector<int64_t>();
  const std::vector<float> got = gather(x, 1, index).to_vector<float>();
  std::vector<float> sums(7 * 5, 0.0f);
  for (int i = 0; i < 7; ++i) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(got[i * 3 + j], xv[i * 5 + iv[i * 3 + j]]);
      sums[i * 5 + iv[i * 3 + j]] += xv[i * 5 + j];
    }
  }
  const Tensor src = x.slice(1, 0, 3);  // a non-contiguous src
  EXPECT_TRUE(
      all_close(scatter_add(zeros({7, 5}), 1, index, src).to_vector<float>(), sums, 1e-6, 1e-6));
}

// The same in float64 on a non-contiguous input of more than 65,535 rows (a CUDA grid's second
// dimension), with index_select and index_add along the columns.
CONFORMANCE_TEST(OpsIndexing, Float64IndexOpsMatchLoopsOnManyRows) {
  constexpr int64_t n = 70001;
  manual_seed(8);
  const Tensor x = randn({3, n}).to(kFloat64).t();  // [n, 3], strides (1, n)
  ASSERT_FALSE(x.is_contiguous());
  const Tensor index = (rand({n, 2}) * 3).to(kInt64), columns = ints({2, 0, 2});
  const std::vector<double> xv = x.contiguous().to_vector<double>();
  const std::vector<int64_t> iv = index.to_vector<int64_t>();
  std::vector<double> gathered(n * 2), scattered(n * 3, 0.0), selected(n * 3), added(n * 3, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < 2; ++j) {
      gathered[i * 2 + j] = xv[i * 3 + iv[i * 2 + j]];
      scattered[i * 3 + iv[i * 2 + j]] += xv[i * 3 + j];
    }
    for (int64_t j = 0; j < 3; ++j) {
      selected[i * 3 + j] = xv[i * 3 + (j == 1 ? 0 : 2)];
      added[i * 3 + (j == 1 ? 0 : 2)] += xv[i * 3 + j];
    }
  }
  const Tensor zero = zeros({n, 3}, kFloat64);
  const std::vector<Tensor> got = {gather(x, 1, index),
                                   scatter_add(zero, 1, index, x.slice(1, 0, 2)),
                                   index_select(x, 1, columns), index_add(zero, 1, columns, x)};
  const std::vector<std::vector<double>> want = {gathered, scattered, selected, added};
  for (std::size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k].dtype(), kFloat64) << k;
    EXPECT_TRUE(all_close(got[k].to_vector<double>(), want[k], 1e-14, 1e-14)) << k;
  }
}

CONFORMANCE_TEST(OpsIndexing, EmptySizeOneAndZeroDimInputs) {
  const Tensor x = arange(12).to(kFloat32).reshape({3, 4});
  const Tensor none = tensor(std::vector<int64_t>{}, Shape{0});
  EXPECT_EQ(index_select(x, 1, none).shape(), Shape({3, 0}));
  EXPECT_EQ(index_add(x, 0, none, zeros({0, 4})).to_vector<float>(), x.to_vector<float>());
  EXPECT_EQ(gather(x, 0, tensor(std::vector<int64_t>{}, Shape{0, 4})).shape(), Shape({0, 4}));
  EXPECT_EQ(x.index({none}).shape(), Shape({0, 4}));
  EXPECT_EQ(x.index({x > 100}).shape(), Shape({0}));
  EXPECT_EQ(x.index({Slice(5, None)}).shape(), Shape({0, 4}));
  EXPECT_EQ(x.index({ints({2}), ints({3})}).to_vector<float>(), (std::vector<float>{11}));
  const Tensor s = tensor({2.5f}).reshape({});
  EXPECT_EQ(gather(s, 0, tensor(std::vector<int64_t>{0}).reshape({})).item(), 2.5f);
  EXPECT_EQ(scatter(s, 0, tensor(std::vector<int64_t>{0}).reshape({}), 4.0).item(), 4.0f);
  EXPECT_EQ(s.index({None}).shape(), Shape({1}));
}

CONFORMANCE_TEST(OpsIndexing, BasicIndexingIsAViewAndAdvancedIndexingACopy) {
  Tensor x = arange(12).to(kFloat32).reshape({3, 4});
  Tensor v = x.index({Slice(), Slice(1, None, 2)});  // columns 1 and 3, a view
  v.fill_(-1.0);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, -1, 2, -1, 4, -1, 6, -1, 8, -1, 10, -1}));
  Tensor c = x.index({ints({0})});
  c.fill_(7.0);
  EXPECT_EQ(x.index({0, 0}).item(), 0.0f);  // the copy did not write back
  EXPECT_EQ(x.index({"...", None}).shape(), Shape({3, 4, 1}));
  EXPECT_EQ(x.index({-1, Slice(-2)}).to_vector<float>(), (std::vector<float>{10, -1}));
}

CONFORMANCE_TEST(OpsIndexing, IndexPutInPlaceWithTensorsScalarsAndAccumulate) {
  Tensor x = zeros({3, 4});
  x.index_put_({ints({0, 2}), ints({1, 1})}, 5.0);
  x.index_put_({1}, tensor({1.0f, 2.0f, 3.0f, 4.0f}));
  x.index_put_({ints({2, 2}), 3}, tensor({1.0f}), true);  // repeated: both add
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, 5, 0, 0, 1, 2, 3, 4, 0, 5, 0, 2}));
  Tensor t = x.t();  // writes through a non-contiguous view
  t.index_put_({t > 4.0}, -1.0);
  EXPECT_EQ(x.index({Slice(), 1}).to_vector<float>(), (std::vector<float>{-1, 2, -1}));
  Tensor k = arange(5);
  k.index_put_({ints({4, 0})}, 9);
  EXPECT_EQ(k.to_vector<int64_t>(), (std::vector<int64_t>{9, 1, 2, 3, 9}));
  // A parameter is written under NoGradGuard, as PyTorch asks.
  Tensor w = zeros({3}).requires_grad_();
  EXPECT_EQ(error_of([&] { w.index_put_({0}, 1.0); }),
            "index_put_: Expected a tensor that does not require grad, but got a leaf that "
            "requires grad; change parameters under NoGradGuard");
  {
    NoGradGuard no_grad;
    w.index_put_({0}, 1.0);
  }
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{1, 0, 0}));
  EXPECT_TRUE(w.is_leaf());
}

CONFORMANCE_TEST(OpsIndexing, ScatterWithAScalarAndIntegerTensors) {
  const Tensor x = arange(6).reshape({2, 3});
  EXPECT_EQ(x.scatter(1, ints({2, 0}, {2, 1}), 0).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1, 0, 0, 4, 5}));
  EXPECT_EQ(x.scatter_add(0, ints({1, 1, 1}, {1, 3}), x.slice(0, 0, 1)).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1, 2, 3, 5, 7}));
  EXPECT_EQ(x.index_select(1, ints({2})).to_vector<int64_t>(), (std::vector<int64_t>{2, 5}));
}

CONFORMANCE_TEST(OpsIndexing, ErrorsSayWhatWasExpected) {
  const Tensor x = zeros({3, 4});
  EXPECT_EQ(error_of([&] {
              gather(x, 1, ints({0, 7, 1}, {3, 1}));
            }),
            "gather: Expected index in [0, 4), but got 7");
  EXPECT_EQ(error_of([&] {
              scatter_add(x, 0, ints({3}, {1, 1}), ones({1, 1}));
            }),
            "scatter_add: Expected index in [0, 3), but got 3");
  EXPECT_EQ(error_of([&] { index_select(x, 1, ints({4})); }),
            "index_select: Expected index in [0, 4), but got 4");
  EXPECT_EQ(error_of([&] { index_select(x, 0, ints({-1})); }),
            "index_select: Expected index in [0, 3), but got -1");
  EXPECT_EQ(error_of([&] {
              index_add(x, 1, ints({0, 9}), ones({3, 2}));
            }),
            "index_add: Expected index in [0, 4), but got 9");
  EXPECT_EQ(error_of([&] {
              x.index({ints({1, 7})});
            }),
            "index: Expected index in [-3, 3) for dimension 0 of size 3, but got 7");
  EXPECT_EQ(error_of([&] {
              x.index({0, 4});
            }),
            "index: Expected index in [-4, 4) for dimension 1 of size 4, but got 4");
  EXPECT_EQ(error_of([&] {
              x.index({0, 0, 0});
            }),
            "index: Expected at most 2 indices (the tensor's dimensions), but got 3");
  EXPECT_EQ(error_of([&] { gather(x, 0, ints({0})); }),
            "gather: Expected an index with 2 dimensions (the input's), but got shape [1]");
  EXPECT_EQ(error_of([&] {
              index_add(x, 0, ints({0}), ones({2, 4}));
            }),
            "index_add: Expected a source of shape [1, 4] (self's, with the index's length in "
            "dimension 0), but got [2, 4]");
  EXPECT_EQ(error_of([&] {
              einsum("ij,jk,kl->il", {x, x, x});
            }),
            "einsum: Expected an equation of one or two operands, but got \"ij,jk,kl->il\"");
  EXPECT_EQ(error_of([&] {
              einsum("ij,jk->ik", {x, x});
            }),
            "einsum: Expected subscript 'j' to have one size in both operands, but got 4 and 3");
  EXPECT_EQ(error_of([&] { einsum("...ij->ji", {x}); }),
            "einsum: Expected subscripts of letters (no ellipsis), but got \"...ij->ji\"");
  EXPECT_EQ(error_of([&] { einsum("ij->k", {x}); }),
            "einsum: Expected every output subscript in an operand, but 'k' is in none of "
            "\"ij->k\"");
  try {
    gather(x, 1, ints({0, 7, 1}, {3, 1}));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Index);
  }
  // Too many indices, two ellipses and float indices are index errors too (Python's IndexError).
  for (const auto& bad : {std::vector<indexing::TensorIndex>{0, 0, 0},
                          {indexing::Ellipsis, indexing::Ellipsis},
                          {ones({2})}}) {
    try {
      x.index(bad);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Index);
    }
  }
}

}  // namespace
}  // namespace torchlet
