"""torchlet.utils: data loading (torchlet.utils.data) and TensorBoard logs
(torchlet.utils.tensorboard, loaded on first use as PyTorch's is)."""

from torchlet.utils import data

__all__ = ["data"]


def __getattr__(name):
    if name == "tensorboard":
        import importlib

        return importlib.import_module(f"{__name__}.tensorboard")
    from torchlet._drop_in import module_getattr

    raise module_getattr(__name__, name)
