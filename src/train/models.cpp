// make_mlp and make_image_model: the tabular MLP, the image MLP and CNN.
#include "torchlet/train/models.h"

#include <string>

#include "torchlet/error.h"
#include "torchlet/nn/activations.h"

namespace torchlet::nn {

namespace {

void add_linear_relu(Sequential& net, const std::vector<int64_t>& widths) {
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
    if (i > 0) net.add<ReLU>();
    net.add<Linear>(widths[i], widths[i + 1]);
  }
}

std::string joined(const std::vector<int64_t>& widths) {
  std::string s;
  for (int64_t w : widths) {
    if (!s.empty()) s += '-';
    s += std::to_string(w);
  }
  return s;
}

}  // namespace

std::shared_ptr<Sequential> make_mlp(const std::vector<int64_t>& widths) {
  auto model = std::make_shared<Sequential>();
  add_linear_relu(*model, widths);
  return model;
}

ImageModel make_image_model(const std::string& model, const std::vector<int64_t>& hidden,
                            int64_t channels, int64_t height, int64_t width, int64_t classes) {
  auto net = std::make_shared<Sequential>();
  if (model == "mlp") {
    std::vector<int64_t> widths{channels * height * width};
    widths.insert(widths.end(), hidden.begin(), hidden.end());
    widths.push_back(classes);
    net->add<Flatten>();
    add_linear_relu(*net, widths);
    return {net, "MLP " + joined(widths)};
  }
  TORCHLET_CHECK(model == "cnn", "make_image_model: Expected mlp or cnn, but got '", model, "'");
  TORCHLET_CHECK(height >= 4 && width >= 4,
                 "make_image_model: Expected for the CNN images of at least 4x4 pixels (two 2x2 "
                 "poolings), but got ",
                 height, "x", width);
  constexpr int64_t kConv1 = 32, kConv2 = 64, kHidden = 128;
  const int64_t flat = kConv2 * (height / 4) * (width / 4);
  net->add<Conv2d>(channels, kConv1, 3, 1, 1);
  net->add<ReLU>();
  net->add<MaxPool2d>(2);
  net->add<Conv2d>(kConv1, kConv2, 3, 1, 1);
  net->add<ReLU>();
  net->add<MaxPool2d>(2);
  net->add<Flatten>();
  net->add<Linear>(flat, kHidden);
  net->add<ReLU>();
  net->add<Linear>(kHidden, classes);
  return {net, "CNN conv " + joined({channels, kConv1, kConv2}) + " 3x3 + 2x2 max-pool, Linear " +
                   joined({flat, kHidden, classes})};
}

}  // namespace torchlet::nn
