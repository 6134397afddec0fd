"""default_collate, default_convert and collate's type registry against Debian's PyTorch: the
same structure (container types, tensors' dtypes, shapes and values) for every kind of sample
PyTorch collates, and the same errors."""

import collections

import numpy as np
import pytest
from data_common import error_of, plain

import torchlet
from torchlet.utils import data
from torchlet.utils.data._utils import collate as collate_module

Point = collections.namedtuple("Point", ["x", "y"])


class Box(collections.UserDict):
    pass


def samples(lib):
    """Batches of every sample kind default_collate handles, built with lib's tensors."""
    return {
        "tensors": [lib.tensor([1.0, 2.0, 3.0]), lib.tensor([4.0, 5.0, 6.0])],
        "scalar tensors": [lib.tensor(1), lib.tensor(2)],
        "float32 arrays": [np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((2, 3), dtype=np.float32)],
        "float64 arrays": [np.arange(3, dtype=np.float64), np.zeros(3)],
        "int64 arrays": [np.arange(4, dtype=np.int64), np.arange(4, 8, dtype=np.int64)],
        "bool arrays": [np.array([True, False]), np.array([False, False])],
        "numpy scalars": [np.float32(1.5), np.float32(2.5)],
        "numpy float64 scalars": [np.float64(1.5), np.float64(-2.0)],
        "ints": [1, 2, 3],
        "floats": [1.5, 2.0],
        "bools": [True, False, True],
        "strings": ["a", "bc"],
        "bytes": [b"x", b"yz"],
        "dicts": [{"a": 1, "b": lib.tensor([1.0])}, {"a": 2, "b": lib.tensor([2.0])}],
        "user dicts": [Box(a=1.0), Box(a=2.0)],
        "namedtuples": [Point(1, 2.0), Point(3, 4.0)],
        "tuples": [(1, "a", 2.5), (2, "b", 3.5)],
        "lists": [[1, 2], [3, 4]],
        "nested": [{"x": (lib.tensor([1]), [1.0, "s"])}, {"x": (lib.tensor([2]), [2.0, "t"])}],
    }


KINDS = list(samples(torchlet))


@pytest.mark.parametrize("kind", KINDS)
def test_default_collate_as_pytorch(torch, kind):
    ours = data.default_collate(samples(torchlet)[kind])
    theirs = torch.utils.data.default_collate(samples(torch)[kind])
    assert plain(ours) == plain(theirs)


@pytest.mark.parametrize("kind", KINDS)
def test_default_convert_as_pytorch(torch, kind):
    ours = data.default_convert(samples(torchlet)[kind])
    assert plain(ours) == plain(torch.utils.data.default_convert(samples(torch)[kind]))


def test_default_convert_keeps_tensors_and_converts_arrays_inside_containers(torch):
    t = torchlet.tensor([1.0])
    assert data.default_convert(t) is t
    sample = {"a": (np.arange(2), "s"), "b": Point(np.float64(1.0), 3)}
    assert plain(data.default_convert(sample)) == plain(torch.utils.data.default_convert(sample))


@pytest.mark.parametrize("batch", [
    [object(), object()],
    [np.array(["a", "b"]), np.array(["c", "d"])],
    [[1, 2], [3]],
    [None, None],
])
def test_default_collate_errors_as_pytorch(torch, batch):
    ours = error_of(lambda: data.default_collate(batch))
    theirs = error_of(lambda: torch.utils.data.default_collate(batch))
    assert ours is not None and ours[0] == theirs[0]
    # The message names the type as Python prints it: the same text but for the class's module.
    assert ours[1] == theirs[1]


def test_default_collate_of_string_arrays_is_left_to_default_convert(torch):
    sample = np.array(["a", "b"])
    assert data.default_convert(sample) is sample


def test_collate_type_registry_can_be_extended():
    class Celsius(float):
        pass

    def collate_celsius(batch, *, collate_fn_map=None):
        return ("celsius", [float(c) for c in batch])

    registry = dict(collate_module.default_collate_fn_map)
    registry[Celsius] = collate_celsius
    batch = [(Celsius(1.0), 2), (Celsius(3.0), 4)]
    out = collate_module.collate(batch, collate_fn_map=registry)
    assert out[0] == ("celsius", [1.0, 3.0]) and out[1].tolist() == [2, 4]
    assert data.default_collate(batch)[0].dtype == torchlet.float64  # a float subclass is a float


def test_collated_tensors_are_new_and_keep_requires_grad():
    a = torchlet.ones(2, requires_grad=True)
    batch = data.default_collate([a, a])
    assert batch.shape == (2, 2) and batch.requires_grad
    batch.sum().backward()
    assert a.grad.tolist() == [2.0, 2.0]
