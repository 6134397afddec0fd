// The printed names of the activation modules with arguments (activations.h).
#include "torchlet/nn/activations.h"

#include <sstream>

namespace torchlet::nn {

std::string LeakyReLU::name() const {
  std::ostringstream out;
  out << "LeakyReLU(negative_slope=" << negative_slope << ")";
  return out.str();
}

std::string ELU::name() const {
  std::ostringstream out;
  out << "ELU(alpha=" << alpha << ")";
  return out.str();
}

std::string Softplus::name() const {
  std::ostringstream out;
  out << "Softplus(beta=" << beta << ", threshold=" << threshold << ")";
  return out.str();
}

}  // namespace torchlet::nn
