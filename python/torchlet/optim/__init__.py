"""torchlet.optim: SGD, Adam, AdamW, RMSprop and Adagrad (PyTorch's update rules, torchlet's C++ kernels) and the
learning-rate schedulers."""

from torchlet import _C
from torchlet.optim import lr_scheduler
from torchlet.optim.optimizer import Optimizer


def _check_lr(lr):
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, maximize=False):
        _check_lr(lr)
        if dampening != 0:
            raise ValueError("torchlet's SGD does not support dampening yet")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize))

    def _make_engine(self, g):
        return _C._SGD(g["params"], g["lr"], g["momentum"], g["weight_decay"], g["nesterov"], g["maximize"])


class Adam(Optimizer):
    _engine = _C._Adam

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, maximize=False):
        _check_lr(lr)
        if amsgrad:
            raise ValueError(f"torchlet's {type(self).__name__} does not support amsgrad yet")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=False,
                                      maximize=maximize))

    def _make_engine(self, g):
        return self._engine(g["params"], g["lr"], tuple(g["betas"]), g["eps"], g["weight_decay"], g["maximize"])


class AdamW(Adam):
    """Adam with decoupled weight decay (default 1e-2), as PyTorch's."""

    _engine = _C._AdamW

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False,
                 maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 maximize=False):
        _check_lr(lr)
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                                      centered=centered, maximize=maximize))

    def _make_engine(self, g):
        return _C._RMSprop(g["params"], g["lr"], g["alpha"], g["eps"], g["weight_decay"], g["momentum"],
                           g["centered"], g["maximize"])


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 maximize=False):
        _check_lr(lr)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, eps=eps,
                                      maximize=maximize))

    def _make_engine(self, g):
        return _C._Adagrad(g["params"], g["lr"], g["lr_decay"], g["weight_decay"], g["initial_accumulator_value"],
                           g["eps"], g["maximize"])


__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
