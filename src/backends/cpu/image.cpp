// CPU kernels for images (NCHW): im2col and its adjoint col2im, which turn a convolution into
// one GEMM; max pooling forward and backward; dropout's mask. Plain loops, also the reference
// the CUDA kernels are tested against.
#include <algorithm>
#include <cstring>
#include <limits>

#include "backends/counter_rng.h"
#include "backends/cpu/cpu_backend.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cpu {

namespace {

// The output columns [begin, end) of a row whose input column ox * stride + offset lies in
// [0, width): the rest of the row reads padding.
struct Span {
  int64_t begin, end;
};
inline Span valid_outputs(int64_t offset, int64_t stride, int64_t out_w, int64_t width) {
  const int64_t begin = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  const int64_t end = width - offset <= 0 ? 0 : (width - offset + stride - 1) / stride;
  return {std::min(begin, out_w), std::clamp(end, std::min(begin, out_w), out_w)};
}

// Calls row(line, image_row, span, x_offset) for every output row of images [b0, b1) and every
// kernel offset: line points at out_w entries of col (row (c, ky, kx), columns (b, oy, 0..out_w)),
// image_row at input row iy of (b, c), or null when that row is padding.
template <typename Col, typename Img, typename Body>
void for_each_line(Col* col, Img* image, const Window2d& w, int64_t b0, int64_t b1, Body&& row) {
  const int64_t plane = w.height * w.width, pixels = w.out_h * w.out_w;
  int64_t col_row = 0;
  for (int64_t c = 0; c < w.channels; ++c)
    for (int64_t ky = 0; ky < w.kernel_h; ++ky)
      for (int64_t kx = 0; kx < w.kernel_w; ++kx, ++col_row) {
        const int64_t x_offset = kx - w.pad_w;
        const Span span = valid_outputs(x_offset, w.stride_w, w.out_w, w.width);
        for (int64_t b = b0; b < b1; ++b) {
          Img* img = image + (b * w.channels + c) * plane;
          Col* line = col + (col_row * w.batch + b) * pixels;
          for (int64_t oy = 0; oy < w.out_h; ++oy, line += w.out_w) {
            const int64_t iy = oy * w.stride_h - w.pad_h + ky;
            row(line, iy >= 0 && iy < w.height ? img + iy * w.width : nullptr, span, x_offset);
          }
        }
      }
}

// Images per thread worth splitting for: kParallelGrain entries of col or of the images.
int64_t image_grain(const Window2d& w) {
  const int64_t per_image = std::max(w.channels * w.kernel_h * w.kernel_w * w.out_h * w.out_w,
                                     w.channels * w.height * w.width);
  return std::max<int64_t>(kParallelGrain / std::max<int64_t>(per_image, 1), 1);
}

}  // namespace

void CpuBackend::im2col(const float* image, float* col, const Window2d& w) {
  profile::record_launch();
  const int64_t sw = w.stride_w, out_w = w.out_w;
  parallel_for(w.batch, image_grain(w), [&](int64_t b0, int64_t b1) {
    for_each_line(col, image, w, b0, b1,
                  [&](float* line, const float* src, Span span, int64_t x_offset) {
                    if (!src) {
                      std::fill(line, line + out_w, 0.0f);
                      return;
                    }
                    std::fill(line, line + span.begin, 0.0f);
                    if (sw == 1) {
                      for (int64_t ox = span.begin; ox < span.end; ++ox)
                        line[ox] = src[ox + x_offset];
                    } else {
                      for (int64_t ox = span.begin; ox < span.end; ++ox)
                        line[ox] = src[ox * sw + x_offset];
                    }
                    std::fill(line + span.end, line + out_w, 0.0f);
                  });
  });
}

void CpuBackend::col2im(const float* col, float* image, const Window2d& w) {
  profile::record_launch();
  const int64_t sw = w.stride_w, image_floats = w.channels * w.height * w.width;
  parallel_for(w.batch, image_grain(w), [&](int64_t b0, int64_t b1) {
    std::fill(image + b0 * image_floats, image + b1 * image_floats, 0.0f);
    for_each_line(col, image, w, b0, b1,
                  [&](const float* line, float* dst, Span span, int64_t x_offset) {
                    if (!dst) return;
                    for (int64_t ox = span.begin; ox < span.end; ++ox)
                      dst[ox * sw + x_offset] += line[ox];
                  });
  });
}

namespace {

// The first largest value wins; a NaN beats any number and the first NaN stays (PyTorch's rule).
// Bitwise operators, not || and &&: no branch to mispredict on the data.
inline bool beats(float v, float best) { return (v > best) | ((v != v) & (best == best)); }

// 2x2 windows, stride 2, no padding (the usual pooling): every window lies inside the image.
// Candidates in beats()'s order (top left, top right, bottom left, bottom right), each taken
// through masks on the bits rather than a branch: the data decides, so branches mispredict.
// `planes` planes from x.
void max_pool_2x2(const float* x, float* y, int64_t* argmax, const Window2d& w, int64_t planes) {
  const int64_t plane = w.height * w.width;
  for (int64_t p = 0; p < planes; ++p, x += plane)
    for (int64_t oy = 0; oy < w.out_h; ++oy, y += w.out_w, argmax += w.out_w) {
      const int64_t top = 2 * oy * w.width;
      const float* r0 = x + top;
      const float* r1 = r0 + w.width;
      for (int64_t ox = 0; ox < w.out_w; ++ox) {
        float best = r0[2 * ox];
        int64_t where = top + 2 * ox;
        const float candidates[3] = {r0[2 * ox + 1], r1[2 * ox], r1[2 * ox + 1]};
        const int64_t at[3] = {where + 1, where + w.width, where + w.width + 1};
        for (int k = 0; k < 3; ++k) {
          const int64_t take = -static_cast<int64_t>(beats(candidates[k], best));  // all ones
          uint32_t bits, candidate_bits;
          std::memcpy(&bits, &best, sizeof bits);
          std::memcpy(&candidate_bits, &candidates[k], sizeof bits);
          bits = (candidate_bits & static_cast<uint32_t>(take)) |
                 (bits & ~static_cast<uint32_t>(take));
          std::memcpy(&best, &bits, sizeof bits);
          where = (at[k] & take) | (where & ~take);
        }
        y[ox] = best;
        argmax[ox] = where;
      }
    }
}

// Any window, `planes` planes from x.
void max_pool_any(const float* x, float* y, int64_t* argmax, const Window2d& w, int64_t planes) {
  const int64_t plane = w.height * w.width;
  for (int64_t p = 0; p < planes; ++p, x += plane) {
    for (int64_t oy = 0; oy < w.out_h; ++oy) {
      const int64_t y0 = std::max<int64_t>(oy * w.stride_h - w.pad_h, 0);
      const int64_t y1 = std::min(oy * w.stride_h - w.pad_h + w.kernel_h, w.height);
      for (int64_t ox = 0; ox < w.out_w; ++ox, ++y, ++argmax) {
        const int64_t x0 = std::max<int64_t>(ox * w.stride_w - w.pad_w, 0);
        const int64_t x1 = std::min(ox * w.stride_w - w.pad_w + w.kernel_w, w.width);
        float best = -std::numeric_limits<float>::infinity();
        int64_t where = y0 * w.width + x0;
        for (int64_t iy = y0; iy < y1; ++iy)
          for (int64_t ix = x0; ix < x1; ++ix)
            if (beats(x[iy * w.width + ix], best))
              best = x[iy * w.width + ix], where = iy * w.width + ix;
        *y = best;
        *argmax = where;
      }
    }
  }
}

// Planes per thread worth splitting for.
int64_t plane_grain(const Window2d& w) {
  return std::max<int64_t>(kParallelGrain / std::max<int64_t>(w.height * w.width, 1), 1);
}

}  // namespace

void CpuBackend::max_pool2d_forward(const float* x, float* y, int64_t* argmax, const Window2d& w) {
  profile::record_launch();
  const bool two_by_two = w.kernel_h == 2 && w.kernel_w == 2 && w.stride_h == 2 &&
                          w.stride_w == 2 && w.pad_h == 0 && w.pad_w == 0;
  const int64_t plane = w.height * w.width, outputs = w.out_h * w.out_w;
  parallel_for(w.batch * w.channels, plane_grain(w), [&](int64_t p0, int64_t p1) {
    (two_by_two ? max_pool_2x2 : max_pool_any)(x + p0 * plane, y + p0 * outputs,
                                               argmax + p0 * outputs, w, p1 - p0);
  });
}

void CpuBackend::max_pool2d_backward(const float* dy, const int64_t* argmax, float* dx,
                                     const Window2d& w) {
  profile::record_launch();
  const int64_t plane = w.height * w.width, outputs = w.out_h * w.out_w;
  parallel_for(w.batch * w.channels, plane_grain(w), [&](int64_t p0, int64_t p1) {
    std::fill(dx + p0 * plane, dx + p1 * plane, 0.0f);
    for (int64_t p = p0; p < p1; ++p) {
      float* d = dx + p * plane;
      for (int64_t o = p * outputs; o < (p + 1) * outputs; ++o) d[argmax[o]] += dy[o];
    }
  });
}

void CpuBackend::dropout_forward(const float* x, float* y, float* mask, int64_t n, float p,
                                 uint64_t seed) {
  profile::record_launch();
  parallel_for(n, kParallelGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      mask[i] = dropout_mask(seed, static_cast<uint64_t>(i), p);
      y[i] = x[i] * mask[i];
    }
  });
}

}  // namespace torchlet::backend::cpu
