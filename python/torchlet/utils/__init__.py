"""torchlet.utils: data loading (torchlet.utils.data)."""

from torchlet.utils import data

__all__ = ["data"]
