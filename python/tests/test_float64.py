"""float64 from Python: the dtype's names, factories, conversions, numpy, printing, PyTorch's
promotion in mixed ops, float64 values and gradients, and Module.double()/to(dtype), compared
with Debian's PyTorch where it is installed."""

import numpy as np
import pytest

import torchlet
import torchlet.nn as nn

DTYPES = ("float32", "float64", "int64", "bool")


def test_names_and_factories():
    assert torchlet.double == torchlet.float64 and repr(torchlet.float64) == "torchlet.float64"
    assert torchlet.float64.is_floating_point and torchlet.float64.itemsize == 8
    for t in (torchlet.zeros(2, 3, dtype=torchlet.float64), torchlet.ones(2, dtype=torchlet.double),
              torchlet.empty(4, dtype=torchlet.float64), torchlet.full((2,), 0.1, dtype=torchlet.float64),
              torchlet.randn(3, dtype=torchlet.float64), torchlet.arange(5, dtype=torchlet.float64),
              torchlet.tensor([0.1, 2], dtype=torchlet.float64), torchlet.DoubleTensor([1, 2])):
        assert t.dtype == torchlet.float64 and t.element_size() == 8
    assert torchlet.full((1,), 0.1, dtype=torchlet.float64).item() == 0.1  # no float32 rounding
    assert torchlet.zeros_like(torchlet.ones(2, dtype=torchlet.float64)).dtype == torchlet.float64


def test_conversions_keep_double_precision():
    x = torchlet.tensor([0.1, 1 / 3], dtype=torchlet.float64)
    assert x.tolist() == [0.1, 1 / 3] and float(x[1]) == 1 / 3
    assert torchlet.tensor(0.1).double().item() == float(np.float32(0.1))
    assert x.to(torchlet.float32).dtype == torchlet.float32 and x.float().double().dtype == torchlet.float64
    assert torchlet.ones(2).to(dtype=torchlet.float64).dtype == torchlet.float64
    assert x.type_as(torchlet.ones(1)).dtype == torchlet.float32
    with pytest.raises(TypeError):
        [0, 1][x[0]]


def test_numpy_float64_both_ways():
    a = np.array([[0.1, 2.0], [1e-300, -3.5]])
    for make in (torchlet.tensor, torchlet.from_numpy):
        t = make(a)
        assert t.dtype == torchlet.float64
        assert t.numpy().dtype == np.float64
        np.testing.assert_array_equal(t.numpy(), a)
    assert torchlet.tensor(a.astype(np.float32)).dtype == torchlet.float32
    assert torchlet.tensor(a, dtype=torchlet.float32).dtype == torchlet.float32
    assert torchlet.FloatTensor(a).dtype == torchlet.float32


@pytest.mark.parametrize("values", [[0.1234, -1.0], [1.0, 2.0], [1e-5, 1.0], [[1 / 3, 2.0], [3.0, 4.0]], 2.5, []])
def test_printing_matches_pytorch(torch, values):
    ours = repr(torchlet.tensor(values, dtype=torchlet.float64))
    assert ours == repr(torch.tensor(values, dtype=torch.float64)).replace("torch.", "torchlet.")
    grad = torchlet.ones(2, dtype=torchlet.float64, requires_grad=True)
    assert repr(grad) == "tensor([1., 1.], dtype=torchlet.float64, requires_grad=True)"


def _make(lib, name):
    values = [[1.5, -2.0], [0.0, 3.0]] if name != "bool" else [[True, False], [False, True]]
    return lib.tensor(values, dtype=getattr(lib, name))


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", DTYPES)
def test_promotion_matches_pytorch(torch, a, b):
    ours, theirs = _make(torchlet, a) * _make(torchlet, b), _make(torch, a) * _make(torch, b)
    assert repr(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    for scalar in (2, 2.5, True):
        got = (_make(torchlet, a) + scalar).dtype
        assert repr(got).split(".")[1] == str((_make(torch, a) + scalar).dtype).split(".")[1]


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", DTYPES)
def test_zero_dim_tensors_promote_as_pytorchs(torch, a, b):
    """A 0-dim tensor promotes a dimensioned one only from a lower category (bool < int < float)."""
    value = True if b == "bool" else 2
    ours = _make(torchlet, a) * torchlet.tensor(value, dtype=getattr(torchlet, b))
    theirs = _make(torch, a) * torch.tensor(value, dtype=getattr(torch, b))
    assert repr(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    got = torchlet.result_type(_make(torchlet, a), torchlet.ones((), dtype=getattr(torchlet, b)))
    want = torch.result_type(_make(torch, a), torch.ones((), dtype=getattr(torch, b)))
    assert repr(got).split(".")[1] == str(want).split(".")[1]


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sigmoid", "tanh", "erf", "sin", "reciprocal"])
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_float_maths_of_integer_tensors_match_pytorch(torch, name, dtype):
    values = [[1, 0, 3], [2, 5, 0]] if dtype == "int64" else [[True, False, True], [False, True, True]]
    ours = getattr(torchlet, name)(torchlet.tensor(values, dtype=getattr(torchlet, dtype)))
    theirs = getattr(torch, name)(torch.tensor(values, dtype=getattr(torch, dtype)))
    assert ours.dtype == torchlet.float32 and theirs.dtype == torch.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_float64_ops_and_gradients_match_pytorch(torch):
    rng = np.random.default_rng(7)
    xa, wa = rng.standard_normal((5, 7)), rng.standard_normal((7, 3))
    x, w = torchlet.tensor(xa, requires_grad=True), torchlet.tensor(wa, requires_grad=True)
    tx, tw = torch.tensor(xa, requires_grad=True), torch.tensor(wa, requires_grad=True)
    ours = [x @ w, x.exp().sum(1), x.mean(), torchlet.softmax(x @ w, 1), torchlet.log_softmax(x @ w, dim=1)]
    theirs = [tx @ tw, tx.exp().sum(1), tx.mean(), torch.softmax(tx @ tw, 1), torch.log_softmax(tx @ tw, dim=1)]
    for o, t in zip(ours, theirs):
        assert o.dtype == torchlet.float64
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-13, atol=1e-14)
    (x @ w).tanh().sum().backward()
    (tx @ tw).tanh().sum().backward()
    assert x.grad.dtype == torchlet.float64
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-12)


def test_module_double_and_to_dtype(torch):
    torchlet.manual_seed(3)
    torch.manual_seed(3)
    ours, theirs = nn.Linear(4, 3).double(), torch.nn.Linear(4, 3).double()
    assert ours.weight.dtype == torchlet.float64 and ours.bias.dtype == torchlet.float64
    assert isinstance(ours.weight, nn.Parameter) and ours.weight.requires_grad
    np.testing.assert_array_equal(ours.weight.detach().numpy(), theirs.weight.detach().numpy())
    xa = np.linspace(-1, 1, 8).reshape(2, 4)
    out, ref = ours(torchlet.tensor(xa)), theirs(torch.tensor(xa))
    assert out.dtype == torchlet.float64
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-14)
    assert ours.to(torchlet.float32) is ours and ours.weight.dtype == torchlet.float32
    assert ours.to("cpu", torchlet.float64).bias.dtype == torchlet.float64
    assert ours.float().weight.dtype == torchlet.float32
    with pytest.raises(TypeError, match="floating point"):
        ours.to(torchlet.int64)


def test_float64_draws_are_pytorchs(torch):
    for seed, (low, high) in ((0, (-2, 3)), (5, (1e-3, 5e3)), (7, (-0.3, 0.7))):
        torchlet.manual_seed(seed)
        torch.manual_seed(seed)
        ours = [torchlet.rand(20, dtype=torchlet.float64), torchlet.empty(2000, dtype=torchlet.float64).uniform_(low, high)]
        theirs = [torch.rand(20, dtype=torch.float64), torch.empty(2000, dtype=torch.float64).uniform_(low, high)]
        for o, t in zip(ours, theirs):
            assert o.dtype == torchlet.float64 and o.tolist() == t.tolist()
