"""nn.Parameter: a tensor that a Module registers as a parameter when assigned to it."""

from torchlet import _C, _tensor_str


class Parameter(_C.Tensor):
    """Shares data's memory as a new leaf that requires grad (unless requires_grad=False)."""

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        super().__init__(data.detach())
        self.requires_grad_(requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + _tensor_str.tensor_repr(self)
