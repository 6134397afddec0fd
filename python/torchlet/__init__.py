"""torchlet: a small deep-learning engine in C++ with PyTorch's Python API.

    import torchlet as torch
    import torchlet.nn as nn
    import torchlet.optim as optim

Tensors, ops and autograd are torchlet's C++ (torchlet._C); nn.Module, the layers and the
optimizers' bookkeeping are Python over it, as in PyTorch. dtypes: float32, float64, int64,
bool, promoted as PyTorch promotes them.
"""

import builtins as _builtins
import functools as _functools
import sys as _sys

from torchlet import _C
from torchlet import _random
from torchlet import _tensor_str

__version__ = "0.1.0"

Tensor = _C.Tensor
dtype = _C.dtype
device = _C.device
float32 = _C.float32
float64 = _C.float64
double = _C.double
int64 = _C.int64
long = _C.long
bool = _C.bool  # noqa: A001 (torch.bool)
float = _C.float  # noqa: A001 (torch.float)

cuda = _C.cuda
_sys.modules[__name__ + ".cuda"] = cuda

# The ops: every public function of the extension that PyTorch has at its top level (the
# elementwise maths, one per line of torchlet/unary_ops.def, as the extension lists them).
_OPS = list(_C._unary_ops) + (
    "tensor zeros ones empty full arange randn from_numpy from_dlpack is_tensor is_grad_enabled "
    "set_num_threads get_num_threads add sub mul div pow "
    "eq ne lt le gt ge maximum minimum logical_and logical_or clamp clip masked_fill nan_to_num "
    "where result_type sum mean amax amin logsumexp max min argmax argmin prod std var norm all any cumsum "
    "matmul mm bmm outer addmm baddbmm softmax log_softmax index_select cat stack gather scatter "
    "scatter_add index_add einsum randint randperm"
).split()
for _name in _OPS:
    globals()[_name] = getattr(_C, _name)
flatten = _C._nn.flatten
dropout = _C._nn.dropout


class Size(tuple):
    """A tensor's sizes: a tuple that prints as torch.Size does."""

    def __repr__(self):
        return f"torchlet.Size({list(self)})"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


_C._set_size_type(Size)


def manual_seed(seed):
    """Seeds torchlet's generators (see torchlet._random): nn.Linear, rand and uniform_ then
    draw PyTorch's numbers for the same seed."""
    return _random.manual_seed(seed)


def initial_seed():
    return _random.initial_seed()


def seed():
    import time

    return _random.manual_seed(time.time_ns())


def rand(*size, dtype=None, device=None, requires_grad=False):
    """Uniform in [0, 1), PyTorch's draws for the same seed."""
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
    return _random.uniform(shape, 0.0, 1.0, dtype=dtype, device=device, requires_grad=requires_grad)


def FloatTensor(data):  # noqa: N802 (torch.FloatTensor)
    """A float32 tensor copying data (a list or a numpy array)."""
    return _C.tensor(data, dtype=float32)


def DoubleTensor(data):  # noqa: N802 (torch.DoubleTensor)
    """A float64 tensor copying data."""
    return _C.tensor(data, dtype=float64)


def LongTensor(data):  # noqa: N802
    """An int64 tensor copying data."""
    return _C.tensor(data, dtype=int64)


def BoolTensor(data):  # noqa: N802
    return _C.tensor(data, dtype=bool)


def zeros_like(t, dtype=None, device=None, requires_grad=False):
    return zeros(t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)


def ones_like(t, dtype=None, device=None, requires_grad=False):
    return ones(t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)


def full_like(t, fill_value, dtype=None, device=None, requires_grad=False):
    return full(t.shape, fill_value, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)


def rand_like(t):
    return rand(t.shape, dtype=t.dtype, device=t.device)


def randn_like(t):
    return randn(t.shape, dtype=t.dtype, device=t.device)


class _GradMode:
    """Sets grad mode inside a with block or a decorated function, restoring it after."""

    def __init__(self, mode):
        self._mode = mode
        self._previous = []

    def __enter__(self):
        self._previous.append(_C.is_grad_enabled())
        _C.set_grad_enabled(self._mode)
        return self

    def __exit__(self, *exc):
        _C.set_grad_enabled(self._previous.pop())
        return False

    def __call__(self, fn):
        @_functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with _GradMode(self._mode):
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_GradMode):  # noqa: N801 (torch.no_grad)
    """No autograd graph is recorded inside: `with torchlet.no_grad():` or `@torchlet.no_grad()`."""

    def __init__(self):
        super().__init__(False)


class enable_grad(_GradMode):  # noqa: N801
    def __init__(self):
        super().__init__(True)


class set_grad_enabled(_GradMode):  # noqa: N801
    """Sets grad mode to `mode`: at once, and until the with block it opens ends."""

    def __init__(self, mode):
        super().__init__(mode)
        self._previous.append(_C.is_grad_enabled())
        _C.set_grad_enabled(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C.set_grad_enabled(self._previous.pop())
        return False


inference_mode = no_grad


class _CompiledStep(_C._CompiledStep):
    """What torchlet.compile(step) returns: call it as step, with the same tensor arguments
    (the call is C++'s: _C._CompiledStep.__call__)."""

    def __init__(self, fn):
        super().__init__(fn)
        _functools.update_wrapper(self, fn)


def compile(fn=None, **options):  # noqa: A001 (torch.compile)
    """A training step run eagerly once, recorded on its second call and replayed after that
    in C++, without Python (include/torchlet/compile.h). fn returns the loss tensor; it may
    take tensors as arguments. It must do the same work each call: no item() inside it.
    Usable as @torchlet.compile too; options (mode=..., fullgraph=...) are accepted and ignored."""
    if fn is None:
        return lambda f: _CompiledStep(f)
    return _CompiledStep(fn)


def train(model, optimizer, inputs, targets, *, epochs=1, batch_size=0, seed=0, record_every=0, execution="auto",
          loss_fn=None, val_inputs=None, val_targets=None, validate_every=1, patience=0, min_delta=0.0,
          stop_on_nonfinite=True, on_epoch=None):
    """The library's fit loop (include/torchlet/train.h) over a Python nn.Module: epochs over
    (inputs, targets), full batch or shuffled mini-batches of batch_size (from seed), the loss
    recorded every record_every epochs; loss_fn(output, target) (default: cross-entropy over
    class indices); execution "auto", "eager" or "compiled" (the step recorded once, replayed
    without Python); validation on (val_inputs, val_targets) with early stopping after patience
    validations without improvement (better: below the best by more than min_delta); on_epoch(epoch, loss) returning False stops. Ctrl-C stops
    the loop and raises KeyboardInterrupt. Returns a TrainResult (stop, losses, loss_epochs,
    final_loss, epochs_done, best_val_loss, best_epoch, train_s, compiled)."""
    if len(optimizer.param_groups) != 1:
        raise ValueError("torchlet.train: Expected an optimizer with one parameter group, but got "
                         f"{len(optimizer.param_groups)}")
    from torchlet.optim.optimizer import _OPTIONS

    engine, group = optimizer._engines[0], optimizer.param_groups[0]
    engine._set_options({k: group[k] for k in _OPTIONS if k in group})
    return _C._train(model, engine, inputs, targets, epochs, batch_size, seed, record_every, execution, loss_fn,
                     val_inputs, val_targets, validate_every, patience, min_delta,
                     stop_on_nonfinite, on_epoch)


def save(obj, f, metadata=None):
    """Writes a dict of named tensors (a state_dict) to the path f as safetensors (readable by
    safetensors.torch.load_file), float32, float64 and int64 tensors, with string metadata."""
    if not isinstance(obj, dict) or not _builtins.all(isinstance(t, Tensor) for t in obj.values()):
        raise TypeError("torchlet.save: Expected a dict of tensors (a state_dict), but got " + type(obj).__name__)
    _C._write_safetensors(str(f), [(str(k), t.detach()) for k, t in obj.items()], dict(metadata or {}))


def load(f, map_location=None):
    """The dict of named tensors torchlet.save wrote to the path f (on map_location, default
    the CPU)."""
    import collections

    tensors, _ = _C._read_safetensors(str(f))
    out = collections.OrderedDict(tensors)
    if map_location is not None:
        out = collections.OrderedDict((k, t.to(map_location)) for k, t in out.items())
    return out


def _tensor_format(self, spec):
    if self.dim() == 0:
        return self.item().__format__(spec)
    return object.__format__(self, spec) if spec else repr(self)


def _tensor_iter(self):
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (self[i] for i in range(self.size(0)))


def _uniform_(self, a=0.0, b=1.0):
    with no_grad():
        self.copy_(_random.uniform(self.shape, a, b, dtype=self.dtype))
    return self


Tensor.__repr__ = _tensor_str.tensor_repr
Tensor.__str__ = _tensor_str.tensor_repr
Tensor.__format__ = _tensor_format
Tensor.__iter__ = _tensor_iter
Tensor.uniform_ = _uniform_

_SUBMODULES = ("nn", "optim", "utils", "autograd")


def __getattr__(name):
    """torchlet.nn, .optim, .utils and .autograd load on first use (PEP 562), so `import torchlet` costs
    only the engine; `import torchlet.nn as nn` loads nn at once."""
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    from torchlet._drop_in import module_getattr

    raise module_getattr(__name__, name)


def install_as_torch():
    """Makes `import torch` (and torch.nn, torch.optim, ...) resolve to torchlet in this
    process, as `python3 -m torchlet prog.py` does for a whole program: for a notebook or an
    interactive session. Nothing is installed on disk. Returns the torchlet module."""
    from torchlet._drop_in import install

    return install()
