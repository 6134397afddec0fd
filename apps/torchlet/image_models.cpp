// make_image_model: the image MLP and CNN.
#include "image_models.h"

#include <fmt/format.h>

namespace torchlet::cli {

ImageModel make_image_model(const std::string& model, const std::vector<int64_t>& hidden,
                            int64_t channels, int64_t height, int64_t width, int64_t classes) {
  auto net = std::make_shared<nn::Sequential>();
  if (model == "mlp") {
    std::vector<int64_t> widths{channels * height * width};
    widths.insert(widths.end(), hidden.begin(), hidden.end());
    widths.push_back(classes);
    net->add<nn::Flatten>();
    for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
      if (i > 0) net->add<nn::ReLU>();
      net->add<nn::Linear>(widths[i], widths[i + 1]);
    }
    return {net, fmt::format("MLP {}", fmt::join(widths, "-"))};
  }
  TORCHLET_CHECK(model == "cnn", "--model: Expected mlp or cnn, but got '", model, "'");
  TORCHLET_CHECK(height >= 4 && width >= 4,
                 "--model cnn: Expected images of at least 4x4 pixels "
                 "(two 2x2 poolings), but got ",
                 height, "x", width);
  constexpr int64_t kConv1 = 32, kConv2 = 64, kHidden = 128;
  const int64_t flat = kConv2 * (height / 4) * (width / 4);
  net->add<nn::Conv2d>(channels, kConv1, 3, 1, 1);
  net->add<nn::ReLU>();
  net->add<nn::MaxPool2d>(2);
  net->add<nn::Conv2d>(kConv1, kConv2, 3, 1, 1);
  net->add<nn::ReLU>();
  net->add<nn::MaxPool2d>(2);
  net->add<nn::Flatten>();
  net->add<nn::Linear>(flat, kHidden);
  net->add<nn::ReLU>();
  net->add<nn::Linear>(kHidden, classes);
  return {net, fmt::format("CNN conv {}-{}-{} 3x3 + 2x2 max-pool, Linear {}-{}-{}", channels,
                           kConv1, kConv2, flat, kHidden, classes)};
}

}  // namespace torchlet::cli
