"""torchlet.from_numpy shares the array's memory as torch.from_numpy does: writes through
either side are seen by the other, the array lives as long as the tensor, strided arrays keep
their strides, and negative strides, other byte orders and unsupported dtypes are refused."""

import gc
import weakref

import numpy as np
import pytest

import torchlet


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_])
def test_shares_memory_both_ways(dtype):
    a = np.zeros((2, 3), dtype=dtype)
    t = torchlet.from_numpy(a)
    assert repr(t.dtype) == "torchlet." + ("bool" if dtype is np.bool_ else np.dtype(dtype).name)
    a[1, 2] = 1
    assert t[1, 2].item() == 1
    t.fill_(1)
    assert a.all()
    assert np.shares_memory(t.numpy(), a)


def test_the_array_lives_as_long_as_the_tensor():
    a = np.arange(6.0)
    alive = weakref.ref(a)
    t = torchlet.from_numpy(a)
    del a
    gc.collect()
    assert alive() is not None
    view = t[2:]  # a view holds the memory too
    del t
    gc.collect()
    assert alive() is not None and view.tolist() == [2.0, 3.0, 4.0, 5.0]
    del view
    gc.collect()
    assert alive() is None


def test_strided_arrays_keep_their_strides(torch):
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    for array in (a.T, a[:, ::2], a[1:3, 2:5], a[None, :, 3]):
        t = torchlet.from_numpy(array)
        assert t.stride() == torch.from_numpy(array).stride()
        np.testing.assert_array_equal(t.numpy(), array)
    torchlet.from_numpy(a[:, ::2]).zero_()
    assert (a[:, ::2] == 0).all() and (a[:, 1::2] != 0).all()


def test_refuses_what_pytorch_refuses(torch):
    a = np.arange(6.0)
    for bad in (a[::-1], a.astype(">f8")):
        with pytest.raises(ValueError) as theirs:
            torch.from_numpy(bad)
        with pytest.raises(ValueError) as ours:
            torchlet.from_numpy(bad)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(TypeError):
        torchlet.from_numpy(a.astype(np.float16))
    with pytest.raises(TypeError):
        torchlet.from_numpy([1.0, 2.0])


def test_read_only_arrays_warn_and_other_integers_are_copied():
    a = np.arange(4.0)
    a.setflags(write=False)
    with pytest.warns(UserWarning, match="not writable"):
        t = torchlet.from_numpy(a)
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
    b = np.arange(4, dtype=np.int32)
    t = torchlet.from_numpy(b)  # torchlet has no int32: an int64 copy
    assert t.dtype == torchlet.int64 and t.tolist() == [0, 1, 2, 3]
    b[0] = 9
    assert t[0].item() == 0
