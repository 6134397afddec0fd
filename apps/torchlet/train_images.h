// `torchlet train --data fashion-mnist` (or --data DIR with MNIST-style IDX files): an MLP or a
// small CNN trained on images in mini-batches, with a progress bar per epoch (images/s), a
// test-accuracy line per epoch, a loss plot and the final test report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "torchlet/device.h"

namespace torchlet::cli {

class DistributedCli;

struct ImageTrainArgs {
  std::string data;  // "fashion-mnist" or a folder
  std::string model = "cnn";
  std::vector<int64_t> hidden;  // MLP widths; empty: kImageMlpHidden
  Device device = kCPU;
  int64_t epochs = 0;  // 0: the model's default (MLP 10, CNN 5)
  double lr = 1e-3;
  std::string optimizer = "adam";
  double momentum = 0.0;
  int64_t batch_size = 64;
  uint64_t seed = 0;          // initial weights and the batch order
  int64_t record_every = 50;  // batches per point of the loss plot
  int64_t train_limit = -1;   // use only the first N images (-1: all)
  int64_t test_limit = -1;
  std::string plot = "loss.svg";
  bool no_plot = false;
  bool json = false;
  DistributedCli* dist = nullptr;  // the ranks under mpirun (null: one process)
};

// The default epochs for `model` on images.
int64_t default_image_epochs(const std::string& model);

void run_train_images(const ImageTrainArgs& a);

}  // namespace torchlet::cli
