// Everything torchlet offers, in one include: #include <torchlet/torchlet.h>.
#pragma once

#include "torchlet/autograd.h"
#include "torchlet/cuda.h"
#include "torchlet/data/dataset.h"
#include "torchlet/device.h"
#include "torchlet/dtype.h"
#include "torchlet/error.h"
#include "torchlet/functional.h"
#include "torchlet/nn/fused.h"
#include "torchlet/nn/layers.h"
#include "torchlet/nn/loss.h"
#include "torchlet/nn/module.h"
#include "torchlet/optim/optimizer.h"
#include "torchlet/random.h"
#include "torchlet/shape.h"
#include "torchlet/tensor.h"
#include "torchlet/version.h"
