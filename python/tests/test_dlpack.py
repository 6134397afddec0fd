"""DLPack: numpy and PyTorch view torchlet's memory, and torchlet views theirs, without a copy."""

import numpy as np
import pytest

import torchlet


def test_numpy_views_a_tensor_through_dlpack():
    t = torchlet.arange(12.0).reshape(3, 4)
    a = np.from_dlpack(t)
    assert a.dtype == np.float32 and a.shape == (3, 4)
    t.numpy()[1, 2] = -5.0  # numpy's DLPack arrays are read-only: write through the tensor
    assert a[1, 2] == -5.0  # the same memory
    column = np.from_dlpack(t.t())  # strides travel: a transposed view
    np.testing.assert_array_equal(column, a.T)
    del t
    assert a.sum() == sum(range(12)) - 6 - 5  # the export keeps the storage alive
    assert torchlet.arange(3, dtype=torchlet.float64).__dlpack_device__() == (1, 0)
    assert np.from_dlpack(torchlet.tensor([1, 2])).dtype == np.int64


def test_torchlet_views_numpy_and_torch_memory(torch):
    a = np.arange(6.0).reshape(2, 3)
    t = torchlet.from_dlpack(a)
    assert t.dtype == torchlet.float64 and t.shape == (2, 3)
    a[0, 1] = 9.0
    assert t[0, 1].item() == 9.0
    p = torch.arange(8, dtype=torch.float32).reshape(2, 4)[:, 1:3]
    q = torchlet.from_dlpack(p)
    p[1, 0] = 42.0
    assert q.tolist() == [[1.0, 2.0], [42.0, 6.0]]
    back = torch.from_dlpack(torchlet.ones(2, 2))
    assert back.dtype == torch.float32 and back.sum().item() == 4.0


def test_dlpack_errors_are_pythons_kinds():
    with pytest.raises(ValueError, match="require gradient"):
        torchlet.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(TypeError, match="bool"):
        np.from_dlpack(torchlet.tensor([True]))
    with pytest.raises(TypeError, match="Expected float32, float64 or int64 data"):
        torchlet.from_dlpack(np.arange(3, dtype=np.int32))
    with pytest.raises(TypeError, match="__dlpack__"):
        torchlet.from_dlpack([1, 2])
