// The float64 layer rows of the conformance table: linear (with and without bias, 2-D and 3-D
// input), embedding with padding_idx, conv2d/conv1d/conv_transpose2d and the pools against
// PyTorch's float64 numbers (tests/fixtures/ops_golden.json "float64"/"layers" and "images")
// and central differences, and float64 dropout (the float32 mask's elements, PyTorch's scale in
// double, the mask as gradient).
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "conformance.h"
#include "ops_golden.h"
#include "testing.h"

namespace torchlet {
namespace {

using nlohmann::json;
using testing::all_close;

struct LayerRow {
  std::vector<std::pair<std::string, Shape>> inputs;  // fixture key and shape, in call order
  std::function<Tensor(const std::vector<Tensor>&)> f;
};

const std::map<std::string, LayerRow>& rows() {
  static const std::map<std::string, LayerRow> table = {
      {"linear",
       {{{"x", {5, 3}}, {"weight", {4, 3}}, {"bias", {4}}},
        [](const auto& v) { return linear(v[0], v[1], v[2]); }}},
      {"linear_3d_no_bias",
       {{{"x", {2, 3, 3}}, {"weight", {2, 3}}}, [](const auto& v) { return linear(v[0], v[1]); }}},
      {"embedding_padding",
       {{{"weight", {4, 3}}},
        [](const auto& v) {
          return embedding(tensor({0, 2, 3, 2}, {2, 2}), v[0], 2);
        }}},
      {"conv2d",
       {{{"x", {2, 3, 5, 6}}, {"weight", {4, 3, 3, 2}}, {"bias", {4}}},
        [](const auto& v) { return conv2d(v[0], v[1], v[2], 2, 1); }}},
      {"conv2d_no_bias",
       {{{"x", {1, 2, 4, 4}}, {"weight", {3, 2, 2, 3}}},
        [](const auto& v) { return conv2d(v[0], v[1]); }}},
      {"conv1d",
       {{{"x", {2, 3, 7}}, {"weight", {2, 3, 3}}, {"bias", {2}}},
        [](const auto& v) { return conv1d(v[0], v[1], v[2], 2, 1); }}},
      {"conv_transpose2d",
       {{{"x", {2, 3, 3, 4}}, {"weight", {3, 2, 3, 3}}, {"bias", {2}}},
        [](const auto& v) { return conv_transpose2d(v[0], v[1], v[2], 2, 1, 1); }}},
      {"max_pool2d",
       {{{"x", {2, 3, 5, 6}}}, [](const auto& v) { return max_pool2d(v[0], 3, 2, 1); }}},
      {"max_pool1d", {{{"x", {2, 3, 7}}}, [](const auto& v) { return max_pool1d(v[0], 2); }}},
      {"avg_pool2d",
       {{{"x", {2, 3, 4, 5}}}, [](const auto& v) { return avg_pool2d(v[0], 2, 1, 1); }}},
      {"adaptive_avg_pool2d",
       {{{"x", {2, 3, 5, 7}}},
        [](const auto& v) { return adaptive_avg_pool2d(v[0], Size2(2, 3)); }}},
  };
  return table;
}

// Every row of the float64 `section` (of `count` rows): output and every input's gradient
// against PyTorch's, and the gradients against central differences.
void expect_section_matches(const char* section, std::size_t count) {
  const auto values = [](const json& j) { return j.get<std::vector<double>>(); };
  const json& entries = testing::ops_golden()["float64"][section];
  ASSERT_EQ(entries.size(), count);
  for (const json& e : entries) {
    const std::string name = e["name"];
    SCOPED_TRACE(name);
    const LayerRow& row = rows().at(name);
    std::vector<Tensor> inputs;
    for (const auto& [key, shape] : row.inputs) {
      inputs.push_back(tensor(values(e[key]), shape));
      inputs.back().set_requires_grad(true);
    }
    const Tensor out = row.f(inputs);
    EXPECT_EQ(out.dtype(), kFloat64);
    EXPECT_EQ(out.shape(), Shape(e["shape"].get<std::vector<int64_t>>()));
    EXPECT_TRUE(all_close(out.to_vector<double>(), values(e["out"]), 1e-12, 1e-12));
    (out * tensor(values(e["w"]), out.shape())).sum().backward();
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      EXPECT_EQ(inputs[k].grad().dtype(), kFloat64);
      EXPECT_TRUE(all_close(inputs[k].grad().to_vector<double>(),
                            values(e["grad_" + row.inputs[k].first]), 1e-12, 1e-12))
          << row.inputs[k].first;
    }
    // padding_idx's row gets no gradient by definition, though the output reads it.
    if (name == "embedding_padding") continue;
    std::vector<Tensor> fresh;
    for (const auto& [key, shape] : row.inputs) fresh.push_back(tensor(values(e[key]), shape));
    testing::expect_gradients_match<double>(row.f, fresh, name, 1e-6, 1e-7);
  }
}

CONFORMANCE_TEST(Float64, LayersMatchPyTorchAndCentralDifferences) {
  expect_section_matches("layers", 3);
}

CONFORMANCE_TEST(Float64, ConvolutionsAndPoolsMatchPyTorchAndCentralDifferences) {
  expect_section_matches("images", 8);
}

CONFORMANCE_TEST(Float64, DropoutKeepsTheFloat32MasksElementsScaledInDouble) {
  const double p = 0.3;
  Tensor x = (testing::random_tensor({50, 40}, 6) + 1.5).to(kFloat64);  // no element is zero
  x.set_requires_grad(true);
  manual_seed(7);
  const Tensor y = dropout(x, p, true);
  EXPECT_EQ(y.dtype(), kFloat64);
  manual_seed(7);
  const std::vector<float> kept = dropout(x.detach().to(kFloat32), p, true).to_vector<float>();
  const std::vector<double> xv = x.to_vector<double>(), yv = y.to_vector<double>();
  for (std::size_t i = 0; i < xv.size(); ++i)
    EXPECT_EQ(yv[i], kept[i] == 0.0f ? 0.0 : xv[i] * (1.0 / (1.0 - p))) << "element " << i;
  const Tensor w = testing::random_tensor(y.shape(), 8).to(kFloat64);
  (y * w).sum().backward();
  const std::vector<double> g = x.grad().to_vector<double>(), wv = w.to_vector<double>();
  for (std::size_t i = 0; i < g.size(); ++i)
    EXPECT_EQ(g[i], kept[i] == 0.0f ? 0.0 : wv[i] * (1.0 / (1.0 - p))) << "element " << i;
  EXPECT_TRUE(dropout(x, p, false).is_same(x));
}

}  // namespace
}  // namespace torchlet
