"""torch.nn.utils' gradient clipping, over the library's (include/torchlet/nn/utils.h)."""

from torchlet import _C


def _tensors(parameters):
    return [parameters] if isinstance(parameters, _C.Tensor) else list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales every gradient so that their joint norm_type-norm is at most max_norm; returns
    that norm (before clipping) as a 0-dim tensor."""
    return _C._nn.clip_grad_norm_(_tensors(parameters), float(max_norm), float(norm_type), error_if_nonfinite)


def clip_grad_value_(parameters, clip_value):
    """Clamps every gradient element to [-clip_value, clip_value]."""
    _C._nn.clip_grad_value_(_tensors(parameters), float(clip_value))


__all__ = ["clip_grad_norm_", "clip_grad_value_"]
