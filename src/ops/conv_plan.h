// ConvPlan: conv2d's im2col + GEMM layout (col [patch, images * pixels], images in chunks that
// keep col under kColFloats), shared with conv_transpose2d, which runs the same steps in
// reverse. Internal header.
#pragma once

#include <algorithm>

#include "backends/backend.h"

namespace torchlet::ops {

constexpr int64_t kColFloats = int64_t{8} << 20;  // 32 MB of workspace at most

struct ConvPlan {
  backend::Window2d w;
  int64_t out_channels, pixels, patch, chunk;

  ConvPlan(const backend::Window2d& window, int64_t oc)
      : w(window),
        out_channels(oc),
        pixels(window.out_h * window.out_w),
        patch(window.channels * window.kernel_h * window.kernel_w),
        chunk(std::clamp<int64_t>(kColFloats / std::max<int64_t>(pixels * patch, 1), 1,
                                  std::max<int64_t>(window.batch, 1))) {}
  int64_t image_floats() const { return w.channels * w.height * w.width; }
  backend::Window2d part(int64_t images) const {
    backend::Window2d p = w;
    p.batch = images;
    return p;
  }
  // [out_channels, images * pixels] (the GEMM's layout) read as NCHW [images, out_channels,
  // pixels]; with_bias: b is the bias, broadcast over images and pixels.
  backend::Loop to_nchw(int64_t images, bool with_bias) const {
    const int64_t columns = images * pixels;
    return {Shape{images, out_channels, pixels}, Shape{pixels, columns, 1},
            with_bias ? Shape{0, 1, 0} : Shape{out_channels * pixels, pixels, 1}};
  }
  // NCHW [images, out_channels, pixels] copied into [out_channels, images * pixels].
  backend::Loop to_columns(int64_t images) const {
    return {Shape{out_channels, images, pixels}, Shape{pixels, out_channels * pixels, 1},
            Shape{images * pixels, pixels, 1}};
  }
};

}  // namespace torchlet::ops
