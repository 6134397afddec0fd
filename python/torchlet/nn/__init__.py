"""torchlet.nn: Module, Parameter, the layers and the losses, as torch.nn's."""

from torchlet.nn import functional, init, utils
from torchlet.nn.module import Module, RemovableHandle
from torchlet.nn.modules import (
    BatchNorm1d, BatchNorm2d, BCELoss, BCEWithLogitsLoss, Conv2d, CrossEntropyLoss, Dropout, ELU, Flatten, GELU,
    HuberLoss, Identity, KLDivLoss, L1Loss, LayerNorm, LeakyReLU, Linear, LogSoftmax, MaxPool2d, ModuleList, MSELoss,
    NLLLoss, ReLU, Sequential, Sigmoid, SiLU, SmoothL1Loss, Softmax, Softplus, Tanh,
)
from torchlet.nn.layers import (
    AdaptiveAvgPool2d, AvgPool2d, Conv1d, ConvTranspose2d, Dropout2d, Embedding, GroupNorm, MaxPool1d, ModuleDict,
)
from torchlet.nn.parameter import Parameter

__all__ = [
    "functional", "init", "utils", "Module", "RemovableHandle", "Parameter", "BatchNorm1d", "BatchNorm2d", "BCELoss",
    "BCEWithLogitsLoss", "Conv2d", "CrossEntropyLoss", "Dropout", "Flatten", "GELU", "HuberLoss", "Identity",
    "KLDivLoss", "L1Loss", "LayerNorm", "LeakyReLU", "Linear", "MaxPool2d", "ModuleList", "MSELoss", "NLLLoss",
    "ReLU", "Sequential", "Sigmoid", "SiLU", "SmoothL1Loss", "Softmax", "Tanh", "AdaptiveAvgPool2d", "AvgPool2d", "Conv1d",
    "ConvTranspose2d", "Dropout2d", "Embedding", "GroupNorm", "MaxPool1d", "ModuleDict", "ELU", "Softplus", "LogSoftmax",
]
