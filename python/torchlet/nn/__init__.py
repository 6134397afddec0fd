"""torchlet.nn: Module, Parameter, the layers and the losses, as torch.nn's."""

from torchlet.nn import functional, init
from torchlet.nn.module import Module, RemovableHandle
from torchlet.nn.modules import (
    BatchNorm1d, BatchNorm2d, BCELoss, BCEWithLogitsLoss, Conv2d, CrossEntropyLoss, Dropout, Flatten, GELU,
    HuberLoss, Identity, KLDivLoss, L1Loss, LayerNorm, LeakyReLU, Linear, MaxPool2d, ModuleList, MSELoss, NLLLoss,
    ReLU, Sequential, Sigmoid, SiLU, SmoothL1Loss, Softmax, Tanh,
)
from torchlet.nn.parameter import Parameter

__all__ = [
    "functional", "init", "Module", "RemovableHandle", "Parameter", "BatchNorm1d", "BatchNorm2d", "BCELoss",
    "BCEWithLogitsLoss", "Conv2d", "CrossEntropyLoss", "Dropout", "Flatten", "GELU", "HuberLoss", "Identity",
    "KLDivLoss", "L1Loss", "LayerNorm", "LeakyReLU", "Linear", "MaxPool2d", "ModuleList", "MSELoss", "NLLLoss",
    "ReLU", "Sequential", "Sigmoid", "SiLU", "SmoothL1Loss", "Softmax", "Tanh",
]
