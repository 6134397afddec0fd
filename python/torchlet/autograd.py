"""torch.autograd's grad: gradients of outputs with respect to inputs, returned rather than
accumulated into .grad (the library's torchlet::autograd::grad)."""

from torchlet import _C


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False):
    """d(sum outputs[i] * grad_outputs[i]) / d(inputs[j]) for each input, as a tuple (None for an
    unused input with allow_unused). create_graph=True is refused (RuntimeError)."""
    return _C._autograd.grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)


__all__ = ["grad"]
