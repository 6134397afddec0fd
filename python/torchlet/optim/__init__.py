"""torchlet.optim: SGD and Adam (PyTorch's update rules, torchlet's C++ kernels) and the
learning-rate schedulers."""

from torchlet import _C
from torchlet.optim import lr_scheduler
from torchlet.optim.optimizer import Optimizer


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, maximize=False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if dampening != 0 or maximize:
            raise ValueError("torchlet's SGD supports neither dampening nor maximize yet")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize))

    def _make_engine(self, g):
        return _C._SGD(g["params"], g["lr"], g["momentum"], g["weight_decay"], g["nesterov"])


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if amsgrad:
            raise ValueError("torchlet's Adam does not support amsgrad yet")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=False))

    def _make_engine(self, g):
        return _C._Adam(g["params"], g["lr"], g["betas"], g["eps"], g["weight_decay"])


__all__ = ["Optimizer", "SGD", "Adam", "lr_scheduler"]
