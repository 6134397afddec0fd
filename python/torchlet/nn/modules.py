"""The layers and losses as thin Modules over the bound ops, with PyTorch's arguments,
initialisation (nn.init's, drawing PyTorch's numbers) and printed form."""

from collections import OrderedDict

from torchlet import _C
from torchlet.nn import functional as F
from torchlet.nn import init
from torchlet.nn.module import Module
from torchlet.nn.parameter import Parameter


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


class Identity(Module):
    def forward(self, input):  # noqa: A002
        return input


class Linear(Module):
    """y = x W^T + b; weight [out, in] and bias [out] initialised as PyTorch's."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_C.empty(out_features, in_features))
        self.bias = Parameter(_C.empty(out_features)) if bias else None
        if not bias:
            self.register_parameter("bias", None)
        self.reset_parameters()
        if device is not None:
            self.to(device)

    def reset_parameters(self):
        init._reset_kaiming_(self.weight, self.bias)

    def forward(self, input):  # noqa: A002
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Conv2d(Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, bias=True):
        super().__init__()
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = _pair(kernel_size), _pair(stride), _pair(padding)
        self.weight = Parameter(_C.empty(out_channels, in_channels, *self.kernel_size))
        self.bias = Parameter(_C.empty(out_channels)) if bias else None
        if not bias:
            self.register_parameter("bias", None)
        init._reset_kaiming_(self.weight, self.bias)

    def forward(self, input):  # noqa: A002
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding)

    def extra_repr(self):
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0, 0):
            text += f", padding={self.padding}"
        return text + ("" if self.bias is not None else ", bias=False")


class _Pool(Module):
    """A pooling layer: kernel_size, stride (default kernel_size) and padding given to
    _function; _repr_suffix ends its printed form as PyTorch's."""

    _repr_suffix = ""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride if stride is not None else kernel_size, padding

    def forward(self, input):  # noqa: A002
        return self._function(input, self.kernel_size, self.stride, self.padding)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}" + self._repr_suffix


class MaxPool2d(_Pool):
    _function = staticmethod(F.max_pool2d)
    _repr_suffix = ", dilation=1, ceil_mode=False"


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):  # noqa: A002
        return F.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Dropout(Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, input):  # noqa: A002
        return F.dropout(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}, inplace=False"


def _activation(name, fn, doc):
    def forward(self, input):  # noqa: A002
        return fn(input)

    return type(name, (Module,), {"forward": forward, "__doc__": doc})


ReLU = _activation("ReLU", _C.relu, "max(x, 0) elementwise.")
Sigmoid = _activation("Sigmoid", _C.sigmoid, "1 / (1 + exp(-x)) elementwise.")
Tanh = _activation("Tanh", _C.tanh, "tanh(x) elementwise.")
SiLU = _activation("SiLU", F.silu, "x * sigmoid(x) elementwise.")


def _activation_with(name, fn, **defaults):
    """A layer computing fn(input, *options): its options (keyword defaults, in fn's order)
    are set by its constructor and printed as PyTorch prints them."""
    names = list(defaults)

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        if len(args) > len(names):
            raise TypeError(f"{name}() takes at most {len(names)} arguments ({len(args)} given)")
        for key, value in dict(defaults, **dict(zip(names, args)), **kwargs).items():
            if key not in defaults:
                raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
            setattr(self, key, value)

    def forward(self, input):  # noqa: A002
        return fn(input, *(getattr(self, k) for k in names))

    def extra_repr(self):
        return ", ".join(f"{k}={getattr(self, k)!r}" for k in names)

    return type(name, (Module,), {"__init__": __init__, "forward": forward, "extra_repr": extra_repr})


GELU = _activation_with("GELU", F.gelu, approximate="none")
LeakyReLU = _activation_with("LeakyReLU", F.leaky_relu, negative_slope=0.01)
Softmax = _activation_with("Softmax", F.softmax, dim=None)
ELU = _activation_with("ELU", F.elu, alpha=1.0)
Softplus = _activation_with("Softplus", F.softplus, beta=1, threshold=20)
LogSoftmax = _activation_with("LogSoftmax", F.log_softmax, dim=None)


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True):
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_C.ones(self.normalized_shape))
            self.bias = Parameter(_C.zeros(self.normalized_shape))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):  # noqa: A002
        return F.layer_norm(input, list(self.normalized_shape), self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class _BatchNorm(Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = Parameter(_C.ones(num_features)) if affine else None
        self.bias = Parameter(_C.zeros(num_features)) if affine else None
        if track_running_stats:
            self.register_buffer("running_mean", _C.zeros(num_features))
            self.register_buffer("running_var", _C.ones(num_features))
        else:
            self.running_mean = self.running_var = None

    def forward(self, input):  # noqa: A002
        training = self.training or self.running_mean is None
        return F.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias, training,
                            self.momentum, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    pass


class BatchNorm2d(_BatchNorm):
    pass


class Sequential(Module):
    """Runs its modules in order; children named "0", "1", ... (or by an OrderedDict's keys)."""

    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, m in modules[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(modules):
                self.add_module(str(i), m)

    def forward(self, input):  # noqa: A002
        for m in self._modules.values():
            input = m(input)
        return input

    def __getitem__(self, i):
        values = list(self._modules.values())
        if isinstance(i, slice):
            return Sequential(*values[i])
        return values[i]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self


class ModuleList(Module):
    def __init__(self, modules=None):
        super().__init__()
        for m in modules or []:
            self.append(m)

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def __getitem__(self, i):
        return list(self._modules.values())[i]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())


# --- losses -----------------------------------------------------------------------------------
class _Loss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction


class CrossEntropyLoss(_Loss):
    """logits [N, C] and int64 targets [N]; with the default options, one fused C++ kernel."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        self.weight, self.ignore_index, self.label_smoothing = weight, ignore_index, label_smoothing

    def forward(self, input, target):  # noqa: A002
        return F.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction, self.label_smoothing)


class NLLLoss(_Loss):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def forward(self, input, target):  # noqa: A002
        return F.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)


def _pointwise_loss(name, fn):
    def forward(self, input, target):  # noqa: A002
        return fn(input, target, self.reduction)

    return type(name, (_Loss,), {"forward": forward})


MSELoss = _pointwise_loss("MSELoss", F.mse_loss)
L1Loss = _pointwise_loss("L1Loss", F.l1_loss)


class SmoothL1Loss(_Loss):
    def __init__(self, reduction="mean", beta=1.0):
        super().__init__(reduction)
        self.beta = beta

    def forward(self, input, target):  # noqa: A002
        return F.smooth_l1_loss(input, target, self.reduction, self.beta)


class HuberLoss(_Loss):
    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = delta

    def forward(self, input, target):  # noqa: A002
        return F.huber_loss(input, target, self.reduction, self.delta)


class BCELoss(_Loss):
    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def forward(self, input, target):  # noqa: A002
        return F.binary_cross_entropy(input, target, self.weight, self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def forward(self, input, target):  # noqa: A002
        return F.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction, self.pos_weight)


class KLDivLoss(_Loss):
    def __init__(self, reduction="mean", log_target=False):
        super().__init__(reduction)
        self.log_target = log_target

    def forward(self, input, target):  # noqa: A002
        return F.kl_div(input, target, self.reduction, self.log_target)
