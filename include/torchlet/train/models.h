// The model builders of `torchlet train` and `torchlet bench`: the tabular MLP, and the two
// image classifiers (an MLP over the flattened pixels and a small CNN: two conv+ReLU+pool
// blocks, two Linear layers), built the way PyTorch's nn.Sequential would hold them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "torchlet/nn/layers.h"

namespace torchlet::nn {

// An MLP: Linear layers of the given widths (inputs, hidden..., classes) with ReLU between.
std::shared_ptr<Sequential> make_mlp(const std::vector<int64_t>& widths);

// The default hidden widths of the image MLP (784-256-128-10 on Fashion-MNIST).
inline const std::vector<int64_t> kImageMlpHidden{256, 128};

struct ImageModel {
  std::shared_ptr<Sequential> net;
  std::string description;  // "MLP 784-256-128-10" or "CNN conv 1-32-64, Linear 3136-128-10"
};

// model: "mlp" (Flatten, then Linear layers of widths channels*height*width, hidden...,
// classes with ReLU between) or "cnn" (Conv2d(channels, 32, 3, padding 1), ReLU, MaxPool2d(2),
// Conv2d(32, 64, 3, padding 1), ReLU, MaxPool2d(2), Flatten, Linear(64*(h/4)*(w/4), 128),
// ReLU, Linear(128, classes)). Throws torchlet::Error for another name, or images smaller
// than 4x4 for the CNN.
ImageModel make_image_model(const std::string& model, const std::vector<int64_t>& hidden,
                            int64_t channels, int64_t height, int64_t width, int64_t classes);

}  // namespace torchlet::nn
