"""Helpers of the torch.utils.data tests: outputs of torchlet and of PyTorch made comparable
(tensors as their dtype name, shape and values; containers by type name), and an error as
its type name and message."""

import collections.abc


def plain(x):
    """x with every tensor (torchlet's or PyTorch's) as ("tensor", dtype, shape, values)."""
    if type(x).__name__ in ("Tensor", "Parameter"):
        return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), x.tolist())
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__, tuple(plain(v) for v in x))
    if isinstance(x, collections.abc.Mapping):
        return (type(x).__name__, {k: plain(v) for k, v in x.items()})
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [plain(v) for v in x])
    return x


def error_of(fn):
    """(type name, message) of what fn() raises, or None."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (any error is what is compared)
        return type(e).__name__, str(e)
    return None
