// LibTorch's option builder for Conv2d: Conv2d(Conv2dOptions(1, 10, /*kernel_size=*/5)
// .stride(2).padding(1)), with its defaults (stride 1, padding 0, a bias).
#pragma once

#include <cstdint>

#include "torchlet/arg.h"
#include "torchlet/functional.h"  // Size2

namespace torchlet::nn {

struct Conv2dOptions {
  Conv2dOptions(int64_t in_channels, int64_t out_channels, Size2 kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  TORCHLET_ARG(int64_t, in_channels)
  TORCHLET_ARG(int64_t, out_channels)
  TORCHLET_ARG(Size2, kernel_size)
  TORCHLET_ARG(Size2, stride)
  TORCHLET_ARG(Size2, padding)
  TORCHLET_ARG(bool, bias)

 private:
  int64_t in_channels_, out_channels_;
  Size2 kernel_size_, stride_ = 1, padding_ = 0;
  bool bias_ = true;
};

}  // namespace torchlet::nn
