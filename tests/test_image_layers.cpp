// The image layers on the CPU against plain references: conv2d and max_pool2d against direct
// nested loops, their gradients against finite differences, dropout's mask and modes,
// flatten, the modules' names, and the errors users read.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "testing.h"
#include "torchlet/torchlet.h"

using namespace torchlet;
using torchlet::testing::all_close;
using torchlet::testing::error_of;
using torchlet::testing::random_tensor;
using torchlet::testing::random_values;

namespace {

// Direct convolution: y[b, o, oy, ox] = bias[o] + sum_{c, ky, kx} w[o, c, ky, kx] x[b, c, iy, ix].
std::vector<float> direct_conv(const Tensor& x, const Tensor& w, const Tensor& bias, Size2 s,
                               Size2 p, Shape* out_shape) {
  const auto xv = x.to_vector<float>(), wv = w.to_vector<float>();
  const auto bv = bias.defined() ? bias.to_vector<float>() : std::vector<float>();
  const int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  const int64_t O = w.shape()[0], KH = w.shape()[2], KW = w.shape()[3];
  const int64_t OH = (H + 2 * p.h - KH) / s.h + 1, OW = (W + 2 * p.w - KW) / s.w + 1;
  *out_shape = Shape{N, O, OH, OW};
  std::vector<float> y;
  for (int64_t b = 0; b < N; ++b)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          double acc = bv.empty() ? 0.0 : bv[o];
          for (int64_t c = 0; c < C; ++c)
            for (int64_t ky = 0; ky < KH; ++ky)
              for (int64_t kx = 0; kx < KW; ++kx) {
                const int64_t iy = oy * s.h - p.h + ky, ix = ox * s.w - p.w + kx;
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                acc += double(wv[((o * C + c) * KH + ky) * KW + kx]) *
                       xv[((b * C + c) * H + iy) * W + ix];
              }
          y.push_back(static_cast<float>(acc));
        }
  return y;
}

struct ConvCase {
  Shape input, weight;
  Size2 stride, padding;
  bool bias;
};

const ConvCase kConvCases[] = {
    {{2, 3, 6, 5}, {4, 3, 3, 3}, 1, 1, true},
    {{1, 2, 7, 8}, {3, 2, 2, 3}, {2, 1}, {0, 1}, true},
    {{3, 1, 5, 5}, {2, 1, 5, 5}, 1, 2, false},
    {{2, 4, 4, 4}, {5, 4, 1, 1}, 2, 0, true},
};

}  // namespace

TEST(Conv2d, MatchesDirectConvolution) {
  uint32_t seed = 1;
  for (const ConvCase& c : kConvCases) {
    Tensor x = random_tensor(c.input, seed++), w = random_tensor(c.weight, seed++);
    Tensor b = c.bias ? random_tensor({c.weight[0]}, seed++) : Tensor();
    Shape shape;
    const std::vector<float> want = direct_conv(x, w, b, c.stride, c.padding, &shape);
    Tensor y = conv2d(x, w, b, c.stride, c.padding);
    EXPECT_EQ(y.shape(), shape);
    EXPECT_TRUE(all_close(y.to_vector<float>(), want, 1e-5, 1e-5)) << c.input << " * " << c.weight;
  }
}

TEST(Conv2d, LargeBatchRunsInChunksWithTheSameResult) {
  // An image of 32 channels x 16x16 with a 3x3 kernel needs 256 * 288 floats of col, so a
  // chunk of 8M floats holds 113 images: 130 take two chunks, and must give the same output
  // as image by image.
  Tensor x = random_tensor({130, 32, 16, 16}, 5), w = random_tensor({8, 32, 3, 3}, 6);
  Tensor y = conv2d(x, w, Tensor(), 1, 1);
  for (int64_t b : {0, 64, 129}) {
    Tensor one = conv2d(x.narrow(0, b, 1), w, Tensor(), 1, 1);
    EXPECT_TRUE(all_close(y.narrow(0, b, 1).to_vector<float>(), one.to_vector<float>(), 1e-5, 1e-5))
        << "image " << b;
  }
}

TEST(Conv2d, GradientsMatchFiniteDifferences) {
  uint32_t seed = 10;
  for (const ConvCase& c : kConvCases) {
    std::vector<Tensor> inputs = {random_tensor(c.input, seed++), random_tensor(c.weight, seed++)};
    if (c.bias) inputs.push_back(random_tensor({c.weight[0]}, seed++));
    torchlet::testing::expect_gradients_match(
        [&](const std::vector<Tensor>& t) {
          return conv2d(t[0], t[1], t.size() > 2 ? t[2] : Tensor(), c.stride, c.padding);
        },
        inputs, "conv2d");
  }
}

TEST(MaxPool2d, MatchesDirectMaximum) {
  Tensor x = random_tensor({2, 3, 7, 6}, 21);
  const auto xv = x.to_vector<float>();
  Tensor y = max_pool2d(x, 3, 2, 1);
  ASSERT_EQ(y.shape(), Shape({2, 3, 4, 3}));
  const auto yv = y.to_vector<float>();
  std::size_t i = 0;
  for (int64_t plane = 0; plane < 6; ++plane)
    for (int64_t oy = 0; oy < 4; ++oy)
      for (int64_t ox = 0; ox < 3; ++ox, ++i) {
        float best = -std::numeric_limits<float>::infinity();
        for (int64_t iy = oy * 2 - 1; iy < oy * 2 + 2; ++iy)
          for (int64_t ix = ox * 2 - 1; ix < ox * 2 + 2; ++ix)
            if (iy >= 0 && iy < 7 && ix >= 0 && ix < 6)
              best = std::max(best, xv[plane * 42 + iy * 6 + ix]);
        EXPECT_EQ(yv[i], best) << "output " << i;
      }
}

TEST(MaxPool2d, GradientsMatchFiniteDifferences) {
  // Distinct values at least 0.05 apart, so a 1e-2 nudge never changes which input is largest.
  std::vector<float> values(2 * 2 * 6 * 5);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.05f * ((i * 37) % values.size());
  Tensor x = tensor(values, {2, 2, 6, 5});
  torchlet::testing::expect_gradients_match(
      [](const std::vector<Tensor>& t) { return max_pool2d(t[0], 2); }, {x}, "max_pool2d 2x2");
  torchlet::testing::expect_gradients_match(
      [](const std::vector<Tensor>& t) {
        return max_pool2d(t[0], {3, 2}, {2, 1}, {1, 0});
      },
      {x}, "max_pool2d overlapping");
}

TEST(MaxPool2d, TiesGoToTheFirstAndPaddingNeverWins) {
  Tensor x = full({1, 1, 2, 2}, -5.0);
  x.set_requires_grad(true);
  Tensor y = max_pool2d(x, 2, 2, 1);  // four windows, each holding one real input
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>(4, -5.0f));
  Tensor z = max_pool2d(x, 2);  // one window, a four-way tie
  z.sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), std::vector<float>({1, 0, 0, 0}));
}

TEST(MaxPool2d, TwoByTwoTakesTheFirstMaximumAndNaNWins) {
  // The 2x2 stride-2 loop has its own code: ties (values on a coarse grid), NaNs, odd sizes.
  std::vector<float> values = random_values(2 * 3 * 7 * 9, 31);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = i % 11 == 0 ? NAN : std::round(values[i] * 2.0f);
  Tensor x = tensor(values, {2, 3, 7, 9});
  x.set_requires_grad(true);
  Tensor y = max_pool2d(x, 2);
  ASSERT_EQ(y.shape(), Shape({2, 3, 3, 4}));
  y.backward(ones(y.shape()));
  const auto yv = y.to_vector<float>(), grad = x.grad().to_vector<float>();
  std::vector<float> want_grad(values.size(), 0.0f);
  std::size_t i = 0;
  for (int64_t plane = 0; plane < 6; ++plane)
    for (int64_t oy = 0; oy < 3; ++oy)
      for (int64_t ox = 0; ox < 4; ++ox, ++i) {
        std::size_t where = plane * 63 + oy * 2 * 9 + ox * 2;
        for (std::size_t at : {where + 1, where + 9, where + 10}) {
          const float v = values[at], best = values[where];
          if (v > best || (std::isnan(v) && !std::isnan(best))) where = at;
        }
        want_grad[where] += 1.0f;
        if (std::isnan(values[where]))
          EXPECT_TRUE(std::isnan(yv[i])) << "output " << i;
        else
          EXPECT_EQ(yv[i], values[where]) << "output " << i;
      }
  EXPECT_EQ(grad, want_grad);
}

TEST(Dropout, ZeroesAboutPAndScalesTheRest) {
  manual_seed(3);
  Tensor x = ones({100000});
  Tensor y = dropout(x, 0.3, true);
  int64_t zeros = 0;
  for (float v : y.to_vector<float>()) {
    if (v == 0.0f)
      ++zeros;
    else
      EXPECT_FLOAT_EQ(v, 1.0f / 0.7f);
  }
  EXPECT_NEAR(zeros / 100000.0, 0.3, 0.01);
}

TEST(Dropout, SeedRepeatsTheMaskAndTheBackwardUsesIt) {
  Tensor x = random_tensor({4, 50}, 8, true);
  manual_seed(11);
  Tensor a = dropout(x, 0.5, true);
  manual_seed(11);
  Tensor b = dropout(x, 0.5, true);
  EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>());
  Tensor c = dropout(x, 0.5, true);  // the next draw: another mask
  EXPECT_NE(a.to_vector<float>(), c.to_vector<float>());
  a.sum().backward();
  const auto grad = x.grad().to_vector<float>(), out = a.to_vector<float>();
  const auto in = x.to_vector<float>();
  for (std::size_t i = 0; i < grad.size(); ++i) EXPECT_FLOAT_EQ(grad[i] * in[i], out[i]);
}

TEST(Dropout, EvalModeAndZeroPPassInputThrough) {
  Tensor x = random_tensor({3, 4}, 2);
  EXPECT_TRUE(dropout(x, 0.5, false).is_same(x));
  EXPECT_TRUE(dropout(x, 0.0, true).is_same(x));
  EXPECT_EQ(dropout(x, 1.0, true).to_vector<float>(), std::vector<float>(12, 0.0f));
  nn::Dropout layer(0.5);
  layer.eval();
  EXPECT_TRUE(layer(x).is_same(x));
  layer.train();
  EXPECT_FALSE(layer(x).is_same(x));
}

TEST(Flatten, MergesTheChosenDimensions) {
  Tensor x = random_tensor({2, 3, 4, 5}, 4, true);
  EXPECT_EQ(flatten(x).shape(), Shape({2, 60}));
  EXPECT_EQ(flatten(x, 0).shape(), Shape({120}));
  EXPECT_EQ(flatten(x, 1, 2).shape(), Shape({2, 12, 5}));
  EXPECT_EQ(flatten(x, -2).shape(), Shape({2, 3, 20}));
  nn::Flatten layer;
  Tensor y = layer(x);
  EXPECT_EQ(y.to_vector<float>(), x.to_vector<float>());
  y.sum().backward();
  EXPECT_EQ(x.grad().shape(), x.shape());
}

TEST(ImageLayers, NamesReadLikePyTorch) {
  EXPECT_EQ(nn::Conv2d(1, 32, 3, 1, 1).name(),
            "Conv2d(1, 32, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))");
  EXPECT_EQ(nn::Conv2d(3, 8, {5, 3}, 2, 0, false).name(),
            "Conv2d(3, 8, kernel_size=(5, 3), stride=(2, 2), bias=False)");
  EXPECT_EQ(nn::MaxPool2d(2).name(),
            "MaxPool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))");
  EXPECT_EQ(nn::Flatten().name(), "Flatten(start_dim=1, end_dim=-1)");
  EXPECT_EQ(nn::Dropout(0.25).name(), "Dropout(p=0.25)");
  nn::Conv2d conv(2, 3, 3);
  EXPECT_EQ(conv.weight.shape(), Shape({3, 2, 3, 3}));
  EXPECT_EQ(conv.parameters().size(), 2u);
}

TEST(ImageLayers, ErrorsSayWhatWasExpected) {
  Tensor x = random_tensor({2, 3, 8, 8}, 1), w = random_tensor({4, 3, 3, 3}, 2);
  EXPECT_EQ(error_of([&] {
              conv2d(random_tensor({3, 8, 8}, 1), w);
            }),
            "conv2d: Expected 4-D input [batch, channels, height, width], but got input of "
            "shape [3, 8, 8]");
  EXPECT_EQ(error_of([&] {
              conv2d(x, random_tensor({4, 2, 3, 3}, 2));
            }),
            "conv2d: Expected input with 2 channels (weight is [4, 2, 3, 3]), but got input of "
            "shape [2, 3, 8, 8]");
  EXPECT_EQ(error_of([&] { conv2d(x, w, random_tensor({3}, 3)); }),
            "conv2d: Expected bias of shape [4], but got [3]");
  EXPECT_EQ(error_of([&] { conv2d(x, w, Tensor(), 0); }),
            "conv2d: Expected stride >= 1, but got stride (0, 0)");
  EXPECT_EQ(error_of([&] {
              conv2d(random_tensor({1, 3, 2, 2}, 1), w);
            }),
            "conv2d: Expected an input of at least 3x3 pixels with padding (0, 0), but got input "
            "of shape [1, 3, 2, 2]: the output would have size (0, 0)");
  EXPECT_EQ(error_of([&] { max_pool2d(x, 2, 2, 2); }),
            "max_pool2d: Expected padding at most half of kernel_size (2, 2), but got padding "
            "(2, 2)");
  EXPECT_EQ(error_of([&] { dropout(x, 1.5); }),
            "dropout: Expected a probability p between 0 and 1, but got p = 1.5");
  EXPECT_EQ(error_of([&] { flatten(x, 3, 1); }),
            "flatten: Expected start_dim <= end_dim, but got start_dim 3 and end_dim 1 for input "
            "of shape [2, 3, 8, 8]");
}
