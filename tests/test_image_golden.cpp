// torchlet's image layers against PyTorch's numbers: conv2d and max_pool2d outputs and
// gradients, and a small CNN's logits, loss and parameter gradients, from
// tests/fixtures/image_golden.json (made by make_image_golden.py there).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "conformance.h"
#include "testing.h"
#include "torchlet/torchlet.h"

using namespace torchlet;
using nlohmann::json;

namespace {

const json& golden() {
  static const json data = [] {
    std::ifstream in(TORCHLET_FIXTURES_DIR "/image_golden.json");
    return json::parse(in);
  }();
  return data;
}

Tensor from_json(const json& values, const json& shape, bool requires_grad = false) {
  Tensor t = tensor(values.get<std::vector<float>>(), Shape(shape.get<std::vector<int64_t>>()));
  if (requires_grad) t.set_requires_grad(true);
  return t;
}

std::vector<float> floats(const json& values) { return values.get<std::vector<float>>(); }

Size2 size2(const json& pair) { return Size2(pair[0].get<int64_t>(), pair[1].get<int64_t>()); }

}  // namespace

CONFORMANCE_TEST(ImageGolden, Conv2dMatchesPyTorch) {
  for (const json& c : golden().at("conv2d")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    Tensor x = from_json(c.at("input"), c.at("input_shape"), true);
    Tensor w = from_json(c.at("weight"), c.at("weight_shape"), true);
    Tensor b;
    if (c.contains("bias")) b = from_json(c.at("bias"), json::array({c.at("bias").size()}), true);
    Tensor y = conv2d(x, w, b, size2(c.at("stride")), size2(c.at("padding")));
    EXPECT_EQ(y.shape(), Shape(c.at("output_shape").get<std::vector<int64_t>>()));
    EXPECT_TRUE(
        torchlet::testing::all_close(y.to_vector<float>(), floats(c.at("output")), 1e-4, 1e-4));
    (y * from_json(c.at("output_weights"), c.at("output_shape"))).sum().backward();
    EXPECT_TRUE(torchlet::testing::all_close(x.grad().to_vector<float>(),
                                             floats(c.at("input_grad")), 1e-4, 1e-4));
    EXPECT_TRUE(torchlet::testing::all_close(w.grad().to_vector<float>(),
                                             floats(c.at("weight_grad")), 1e-4, 1e-4));
    if (b.defined()) {
      EXPECT_TRUE(torchlet::testing::all_close(b.grad().to_vector<float>(),
                                               floats(c.at("bias_grad")), 1e-4, 1e-4));
    }
  }
}

CONFORMANCE_TEST(ImageGolden, MaxPool2dMatchesPyTorch) {
  for (const json& c : golden().at("max_pool2d")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    Tensor x = from_json(c.at("input"), c.at("input_shape"), true);
    Tensor y = max_pool2d(x, size2(c.at("kernel")), size2(c.at("stride")), size2(c.at("padding")));
    EXPECT_EQ(y.shape(), Shape(c.at("output_shape").get<std::vector<int64_t>>()));
    EXPECT_EQ(y.to_vector<float>(), floats(c.at("output")));
    (y * from_json(c.at("output_weights"), c.at("output_shape"))).sum().backward();
    EXPECT_TRUE(torchlet::testing::all_close(x.grad().to_vector<float>(),
                                             floats(c.at("input_grad")), 1e-6, 1e-6));
  }
}

CONFORMANCE_TEST(ImageGolden, SmallCnnMatchesPyTorch) {
  const json& c = golden().at("cnn");
  nn::Sequential model;
  model.add<nn::Conv2d>(1, 4, 3, 1, 1);
  model.add<nn::ReLU>();
  model.add<nn::MaxPool2d>(2);
  model.add<nn::Conv2d>(4, 6, 3, 1, 1);
  model.add<nn::ReLU>();
  model.add<nn::MaxPool2d>(2);
  model.add<nn::Flatten>();
  model.add<nn::Linear>(6 * 2 * 2, 5);
  model.add<nn::ReLU>();
  model.add<nn::Linear>(5, 3);
  for (auto& [name, param] : model.named_parameters()) {
    const json& p = c.at("parameters").at(name);
    ASSERT_EQ(param.shape(), Shape(p.at("shape").get<std::vector<int64_t>>())) << name;
    NoGradGuard no_grad;
    param.copy_(from_json(p.at("values"), p.at("shape")));
  }
  Tensor x = from_json(c.at("input"), c.at("input_shape"));
  Tensor target = tensor(c.at("target").get<std::vector<int64_t>>());
  Tensor logits = model(x);
  EXPECT_TRUE(
      torchlet::testing::all_close(logits.to_vector<float>(), floats(c.at("logits")), 1e-5, 1e-4));
  Tensor loss = cross_entropy(logits, target);
  EXPECT_NEAR(loss.item(), c.at("loss").get<double>(), 1e-5);
  loss.backward();
  for (auto& [name, param] : model.named_parameters())
    EXPECT_TRUE(torchlet::testing::all_close(param.grad().to_vector<float>(),
                                             floats(c.at("grads").at(name)), 1e-5, 1e-4))
        << name;
}
