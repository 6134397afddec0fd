"""issue 14's layers as torch.nn's: Conv1d, ConvTranspose2d, AvgPool2d, AdaptiveAvgPool2d,
MaxPool1d, GroupNorm, Dropout2d, Embedding and ModuleDict, thin Modules over torchlet._C._nn."""

from collections import OrderedDict

from torchlet import _C, no_grad
from torchlet.nn import functional as F
from torchlet.nn import init
from torchlet.nn.module import Module
from torchlet.nn.modules import _pair, _Pool
from torchlet.nn.parameter import Parameter


class Conv1d(Module):
    """[N, C, L] -> [N, OC, L']; weight [OC, C, k], initialised as PyTorch's."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, bias=True):
        super().__init__()
        one = lambda v: v[0] if isinstance(v, (tuple, list)) else v  # noqa: E731
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = (one(kernel_size),), (one(stride),), (one(padding),)
        self.weight = Parameter(_C.empty(out_channels, in_channels, self.kernel_size[0]))
        self.bias = Parameter(_C.empty(out_channels)) if bias else None
        if not bias:
            self.register_parameter("bias", None)
        init._reset_kaiming_(self.weight, self.bias)

    def forward(self, input):  # noqa: A002
        return F.conv1d(input, self.weight, self.bias, self.stride[0], self.padding[0])

    def extra_repr(self):
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,):
            text += f", padding={self.padding}"
        return text + ("" if self.bias is not None else ", bias=False")


class ConvTranspose2d(Module):
    """The adjoint of Conv2d: weight [C, OC, kh, kw], initialised as PyTorch's."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, bias=True):
        super().__init__()
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = _pair(kernel_size), _pair(stride), _pair(padding)
        self.output_padding = _pair(output_padding)
        self.weight = Parameter(_C.empty(in_channels, out_channels, *self.kernel_size))
        self.bias = Parameter(_C.empty(out_channels)) if bias else None
        if not bias:
            self.register_parameter("bias", None)
        init._reset_kaiming_(self.weight, self.bias)

    def forward(self, input):  # noqa: A002
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, self.output_padding)

    def extra_repr(self):
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0, 0):
            text += f", padding={self.padding}"
        if self.output_padding != (0, 0):
            text += f", output_padding={self.output_padding}"
        return text + ("" if self.bias is not None else ", bias=False")


class AvgPool2d(_Pool):
    _function = staticmethod(F.avg_pool2d)


class AdaptiveAvgPool2d(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):  # noqa: A002
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class MaxPool1d(_Pool):
    _function = staticmethod(F.max_pool1d)
    _repr_suffix = ", dilation=1, ceil_mode=False"


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        if affine:
            self.weight = Parameter(_C.ones(num_channels))
            self.bias = Parameter(_C.zeros(num_channels))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):  # noqa: A002
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


class Dropout2d(Module):
    def __init__(self, p=0.5):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p

    def forward(self, input):  # noqa: A002
        return F.dropout2d(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}, inplace=False"


class Embedding(Module):
    """A lookup table [num_embeddings, embedding_dim] drawn from N(0, 1) (torchlet's generator),
    the padding_idx row zero and left without gradient."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, _weight=None):
        super().__init__()
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        if _weight is None:
            self.weight = Parameter(_C.empty(num_embeddings, embedding_dim))
            init.normal_(self.weight)
            if padding_idx is not None:
                with no_grad():
                    self.weight[padding_idx] = 0.0
        else:
            self.weight = Parameter(_weight)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None):
        rows, dim = embeddings.shape
        module = cls(rows, dim, padding_idx, _weight=embeddings.detach().clone())
        module.weight.requires_grad = not freeze
        return module

    def forward(self, input):  # noqa: A002
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self):
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        return text + (f", padding_idx={self.padding_idx}" if self.padding_idx is not None else "")


class ModuleDict(Module):
    """Modules by name, in insertion order, registered as children."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    def pop(self, key):
        return self._modules.pop(key)

    def update(self, modules):
        pairs = modules.items() if isinstance(modules, (dict, OrderedDict, ModuleDict)) else modules
        for key, module in pairs:
            self[key] = module
