// The layers of issue 14 item 6 against PyTorch (tests/fixtures/layers_golden.json, written by
// make_layers_golden.py): conv1d, conv_transpose2d, avg_pool2d, adaptive_avg_pool2d, max_pool1d,
// group_norm and embedding with padding_idx, forward and backward; their gradients against
// central differences; the modules (repr, Dropout2d's channels); the same on a GPU against the
// CPU; and their error messages.
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "conformance.h"
#include "testing.h"

namespace torchlet {
namespace {

using nlohmann::json;
using testing::all_close;

const json& golden() {
  static const json data = [] {
    std::ifstream in(TORCHLET_FIXTURES_DIR "/layers_golden.json");
    return json::parse(in);
  }();
  return data;
}

Size2 size2(const json& j) { return Size2(j[0].get<int64_t>(), j[1].get<int64_t>()); }

// The case's function of its float inputs (the indices, for embedding, fixed).
std::function<Tensor(const std::vector<Tensor>&)> function_of(const json& e, const Device& device) {
  const std::string name = e["name"];
  const json& o = e["options"];
  if (name.starts_with("conv1d"))
    return [o](const std::vector<Tensor>& in) {
      return conv1d(in[0], in[1], in.size() > 2 ? in[2] : Tensor(), o["stride"], o["padding"]);
    };
  if (name.starts_with("conv_transpose2d"))
    return [o](const std::vector<Tensor>& in) {
      return conv_transpose2d(in[0], in[1], in.size() > 2 ? in[2] : Tensor(), size2(o["stride"]),
                              size2(o["padding"]), size2(o["output_padding"]));
    };
  if (name == "avg_pool2d")
    return [o](const std::vector<Tensor>& in) {
      return avg_pool2d(in[0], size2(o["kernel"]), size2(o["stride"]), size2(o["padding"]));
    };
  if (name == "adaptive_avg_pool2d")
    return [o](const std::vector<Tensor>& in) {
      return adaptive_avg_pool2d(in[0], size2(o["output_size"]));
    };
  if (name == "max_pool1d")
    return [o](const std::vector<Tensor>& in) {
      return max_pool1d(in[0], o["kernel"], o["stride"], o["padding"]);
    };
  if (name == "group_norm")
    return
        [o](const std::vector<Tensor>& in) { return group_norm(in[0], o["groups"], in[1], in[2]); };
  const Tensor indices = tensor(e["indices"]["values"].get<std::vector<int64_t>>(),
                                Shape(e["indices"]["shape"].get<std::vector<int64_t>>()), device);
  return [o, indices](const std::vector<Tensor>& in) {
    return embedding(indices, in[0], o["padding_idx"].get<int64_t>());
  };
}

std::vector<Tensor> inputs_of(const json& e, const Device& device = kCPU) {
  std::vector<Tensor> inputs;
  for (const json& t : e["inputs"])
    inputs.push_back(tensor(t["values"].get<std::vector<float>>(),
                            Shape(t["shape"].get<std::vector<int64_t>>()), device)
                         .set_requires_grad(true));
  return inputs;
}

CONFORMANCE_TEST(LayersGolden, ForwardAndBackwardMatchPyTorch) {
  ASSERT_EQ(golden()["cases"].size(), 9u);
  for (const json& e : golden()["cases"]) {
    SCOPED_TRACE(e["name"].get<std::string>());
    std::vector<Tensor> inputs = inputs_of(e);
    Tensor out = function_of(e, kCPU)(inputs);
    EXPECT_EQ(out.shape(), Shape(e["out_shape"].get<std::vector<int64_t>>()));
    EXPECT_TRUE(all_close(out.to_vector<float>(), e["out"].get<std::vector<float>>(), 1e-5, 1e-4));
    (out * tensor(e["w"].get<std::vector<float>>(), out.shape())).sum().backward();
    for (std::size_t i = 0; i < inputs.size(); ++i)
      EXPECT_TRUE(all_close(inputs[i].grad().to_vector<float>(),
                            e["grads"][i].get<std::vector<float>>(), 1e-5, 1e-4))
          << "gradient of input " << i;
  }
}

NON_TABLE_TEST(LayersGolden, EmbeddingPaddingRowGetsNoGradient) {
  const json& e = golden()["cases"][8];
  ASSERT_EQ(e["name"], "embedding");
  std::vector<Tensor> inputs = inputs_of(e);
  (function_of(e, kCPU)(inputs) * 3.0f).sum().backward();
  const std::vector<float> grad = inputs[0].grad().to_vector<float>();
  // Index 2 (the padding index) appears three times, yet its row stays zero; row 0 once.
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(grad[2 * 4 + j], 0.0f);
    EXPECT_EQ(grad[0 * 4 + j], 3.0f);
  }
}

NON_TABLE_TEST(LayersGolden, GradientsMatchFiniteDifferences) {
  for (const json& e : golden()["cases"]) {
    const std::string name = e["name"];
    // max_pool1d's kinks (near ties) and embedding's padding row (zero by definition, not by
    // calculus) are checked against PyTorch above instead.
    if (name == "max_pool1d" || name == "embedding") continue;
    std::vector<Tensor> inputs;
    for (const Tensor& t : inputs_of(e)) inputs.push_back(t.detach());
    testing::expect_gradients_match(function_of(e, kCPU), inputs, name);
  }
}

NON_TABLE_TEST(LayersGolden, ErrorsNameWhatWasExpected) {
  const Tensor x4 = zeros({1, 2, 3, 4}), w3 = zeros({2, 2, 3});
  EXPECT_EQ(testing::error_of([&] { conv1d(x4, w3); }),
            "conv1d: Expected 3-D input [batch, channels, length], but got input of shape "
            "[1, 2, 3, 4]");
  EXPECT_EQ(testing::error_of([&] {
              max_pool1d(zeros({2, 3}), 2);
            }),
            "max_pool1d: Expected 3-D input [batch, channels, length], but got input of shape "
            "[2, 3]");
  EXPECT_EQ(testing::error_of([&] {
              group_norm(zeros({2, 6, 3}), 4);
            }),
            "group_norm: Expected num_groups >= 1 dividing the 6 channels, but got num_groups 4");
  EXPECT_EQ(testing::error_of([&] {
              conv_transpose2d(x4, zeros({3, 2, 3, 3}));
            }),
            "conv_transpose2d: Expected input with 3 channels (weight is [3, 2, 3, 3]), but got "
            "input of shape [1, 2, 3, 4]");
  EXPECT_EQ(testing::error_of([&] {
              conv_transpose2d(x4, zeros({2, 2, 1, 1}), Tensor(), 2, 0, 2);
            }),
            "conv_transpose2d: Expected 0 <= output_padding < stride (2, 2), but got "
            "output_padding (2, 2)");
  EXPECT_EQ(testing::error_of([&] { avg_pool2d(x4, 2, 1, 2); }),
            "avg_pool2d: Expected padding at most half of kernel_size (2, 2), but got padding "
            "(2, 2)");
  EXPECT_EQ(testing::error_of([&] {
              embedding(tensor({0, 1}), zeros({3, 2}), 3);
            }),
            "embedding: Expected padding_idx in [-3, 3), but got 3");
}

NON_TABLE_TEST(LayerModules, PrintAsPyTorchsRepr) {
  // PyTorch 1.13's reprs of the same layers (Dropout2d's without inplace, as Dropout's).
  const std::vector<std::pair<std::shared_ptr<nn::Module>, std::string>> cases = {
      {std::make_shared<nn::Conv1d>(4, 8, 3, 2, 1),
       "Conv1d(4, 8, kernel_size=(3,), stride=(2,), padding=(1,))"},
      {std::make_shared<nn::ConvTranspose2d>(3, 16, 3, 2, 0, 1, false),
       "ConvTranspose2d(3, 16, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1), "
       "bias=False)"},
      {std::make_shared<nn::GroupNorm>(2, 6), "GroupNorm(2, 6, eps=1e-05, affine=True)"},
      {std::make_shared<nn::Embedding>(10, 3, 0), "Embedding(10, 3, padding_idx=0)"},
      {std::make_shared<nn::MaxPool1d>(3, 2),
       "MaxPool1d(kernel_size=3, stride=2, padding=0, dilation=1, ceil_mode=False)"},
      {std::make_shared<nn::AvgPool2d>(2, 2, 1),
       "AvgPool2d(kernel_size=(2, 2), stride=(2, 2), padding=(1, 1))"},
      {std::make_shared<nn::AdaptiveAvgPool2d>(1), "AdaptiveAvgPool2d(output_size=(1, 1))"},
      {std::make_shared<nn::Dropout2d>(0.25), "Dropout2d(p=0.25)"},
  };
  for (const auto& [module, want] : cases) {
    std::ostringstream out;
    out << *module;
    EXPECT_EQ(out.str(), want);
  }
}

NON_TABLE_TEST(LayerModules, RunTheirFunctions) {
  manual_seed(2);
  nn::ConvTranspose2d deconv(2, 3, 3, 2, 1, 1);
  const Tensor x = testing::random_tensor({2, 2, 4, 5}, 3);
  EXPECT_EQ(deconv(x).to_vector<float>(),
            conv_transpose2d(x, deconv.weight, deconv.bias, 2, 1, 1).to_vector<float>());
  EXPECT_EQ(deconv(x).shape(), Shape({2, 3, 8, 10}));
  nn::Conv1d conv(2, 4, 3, 1, 1);
  const Tensor seq = testing::random_tensor({2, 2, 9}, 4);
  EXPECT_EQ(conv(seq).to_vector<float>(),
            conv1d(seq, conv.weight, conv.bias, 1, 1).to_vector<float>());
  nn::Embedding table(5, 2, 1);
  const Tensor idx = tensor({1, 4, 1});
  EXPECT_EQ(table(idx).shape(), Shape({3, 2}));
  EXPECT_EQ(table(idx)[0].to_vector<float>(), (std::vector<float>{0, 0}));
  EXPECT_EQ(table(idx)[1].to_vector<float>(), table.weight[4].to_vector<float>());
  nn::GroupNorm norm(2, 4);
  EXPECT_EQ(norm(x.reshape({2, 4, 2, 5})).to_vector<float>(),
            group_norm(x.reshape({2, 4, 2, 5}), 2, norm.weight, norm.bias).to_vector<float>());
  EXPECT_EQ(nn::AvgPool2d(2)(x).shape(), Shape({2, 2, 2, 2}));
  EXPECT_EQ(nn::AdaptiveAvgPool2d({3, 1})(x).shape(), Shape({2, 2, 3, 1}));
  EXPECT_EQ(nn::MaxPool1d(2)(seq).shape(), Shape({2, 2, 4}));
}

NON_TABLE_TEST(LayerModules, Dropout2dDropsWholeChannels) {
  manual_seed(9);
  nn::Dropout2d drop(0.5);
  Tensor x = ones({16, 32, 3, 3}).set_requires_grad(true);
  const Tensor y = drop(x);
  const std::vector<float> v = y.to_vector<float>();
  int dropped = 0;
  for (int plane = 0; plane < 16 * 32; ++plane) {
    const float first = v[plane * 9];
    ASSERT_TRUE(first == 0.0f || first == 2.0f) << first;
    for (int i = 1; i < 9; ++i) ASSERT_EQ(v[plane * 9 + i], first) << "plane " << plane;
    dropped += first == 0.0f;
  }
  EXPECT_NEAR(dropped / 512.0, 0.5, 5 * std::sqrt(0.25 / 512));
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), v);  // d y / d x is the mask
  drop.eval();
  EXPECT_TRUE(drop(x).is_same(x));
  EXPECT_EQ(testing::error_of([] { dropout2d(ones({4}), 0.5); }),
            "dropout2d: Expected an input of at least 2 dimensions [N, C, ...], but got shape [4]");
}

NON_TABLE_TEST(CudaLayersGolden, MatchTheCpu) {
  SKIP_WITHOUT_GPU();
  for (const json& e : golden()["cases"]) {
    const std::string name = e["name"];
    const auto cpu = testing::output_and_grads(function_of(e, kCPU), inputs_of(e), name);
    const auto gpu =
        testing::output_and_grads(function_of(e, testing::kGpu), inputs_of(e, testing::kGpu), name);
    EXPECT_TRUE(all_close(gpu.out, cpu.out, 1e-5, 1e-4)) << name;
    for (std::size_t i = 0; i < cpu.grads.size(); ++i)
      EXPECT_TRUE(all_close(gpu.grads[i], cpu.grads[i], 1e-5, 1e-4)) << name << " input " << i;
  }
}

}  // namespace
}  // namespace torchlet
