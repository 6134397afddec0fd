// nn::init: PyTorch's parameter initialisations (torch.nn.init), each filling a tensor in place
// from the generator manual_seed() sets, outside autograd, and returning it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "torchlet/tensor.h"

namespace torchlet::nn::init {

// The recommended gain for a nonlinearity: 1 for "linear", "conv1d/2d/3d",
// "conv_transpose1d/2d/3d" and "sigmoid", 5/3 for "tanh", sqrt(2) for "relu",
// sqrt(2 / (1 + slope^2)) for "leaky_relu" (param is the slope, 0.01 when left out), 3/4 for
// "selu".
double calculate_gain(const std::string& nonlinearity, std::optional<double> param = std::nullopt);
// fan_in = size(1) * receptive field, fan_out = size(0) * receptive field, the receptive field
// the product of the sizes after the second (tensors of 2 or more dimensions).
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor& uniform_(Tensor& tensor, double a = 0.0, double b = 1.0);
Tensor& normal_(Tensor& tensor, double mean = 0.0, double std = 1.0);
Tensor& constant_(Tensor& tensor, double value);
Tensor& zeros_(Tensor& tensor);
Tensor& ones_(Tensor& tensor);
// U(-bound, bound) with bound = gain sqrt(3 / fan), gain = calculate_gain(nonlinearity, a);
// mode "fan_in" (the default) or "fan_out".
Tensor& kaiming_uniform_(Tensor& tensor, double a = 0.0, const std::string& mode = "fan_in",
                         const std::string& nonlinearity = "leaky_relu");
// N(0, std^2) with std = gain / sqrt(fan).
Tensor& kaiming_normal_(Tensor& tensor, double a = 0.0, const std::string& mode = "fan_in",
                        const std::string& nonlinearity = "leaky_relu");
// U(-a, a) with a = gain sqrt(6 / (fan_in + fan_out)).
Tensor& xavier_uniform_(Tensor& tensor, double gain = 1.0);
// N(0, std^2) with std = gain sqrt(2 / (fan_in + fan_out)).
Tensor& xavier_normal_(Tensor& tensor, double gain = 1.0);
// A (semi-)orthogonal matrix times gain, as PyTorch's: the Q of the QR decomposition of a
// normal matrix [size(0), numel / size(0)] (transposed when wider than tall), signed so that
// R's diagonal is positive. Rows (or columns, whichever are fewer) are orthonormal.
Tensor& orthogonal_(Tensor& tensor, double gain = 1.0);

}  // namespace torchlet::nn::init
