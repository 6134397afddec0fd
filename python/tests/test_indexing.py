"""Indexing (x[...] and x[...] = v with ints, slices with steps, None, Ellipsis, int and bool
tensors), index_put_, gather/scatter/scatter_add/index_add/index_select and einsum against
Debian's PyTorch, forward and backward."""

import numpy as np
import pytest

import torchlet

RNG = np.random.default_rng(11)
X = RNG.standard_normal((4, 5, 3)).astype(np.float32)
IDX = np.array([2, 0, 2], dtype=np.int64)
MASK = X[:, :, 0] > 0

KEYS = [
    (1,), (-1,), (slice(1, 3),), (slice(None, None, 2),), (slice(None), 1), (Ellipsis, 0), (None, 1, slice(2)),
    (1, Ellipsis, None), (slice(3, 0),),
]


def pair(torch, x):
    return torchlet.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)


def same_grad(ours, theirs, out_ours, out_theirs):
    np.testing.assert_allclose(out_ours.detach().numpy(), out_theirs.detach().numpy(), rtol=1e-5, atol=1e-6)
    (out_ours * out_ours).sum().backward()
    (out_theirs * out_theirs).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("key", KEYS, ids=[str(k) for k in KEYS])
def test_basic_indexing_matches_pytorch(torch, key):
    a, b = pair(torch, X)
    same_grad(a, b, a[key], b[key])


@pytest.mark.parametrize("make", [
    lambda t, i, m: (t.tensor(i),), lambda t, i, m: (slice(None), t.tensor([1, 4])),
    lambda t, i, m: (t.tensor(m),), lambda t, i, m: (t.tensor(i), t.tensor([0, 1, 4])),
    lambda t, i, m: ([0, 3],), lambda t, i, m: (Ellipsis, t.tensor([2, 0])),
], ids=["int_tensor", "second_dim", "bool_mask", "two_tensors", "list", "ellipsis_tensor"])
def test_advanced_indexing_matches_pytorch(torch, make):
    a, b = pair(torch, X)
    same_grad(a, b, a[make(torchlet, IDX, MASK)], b[make(torch, IDX, MASK)])


def test_setitem_and_index_put_match_pytorch(torch):
    a, b = torchlet.tensor(X), torch.tensor(X)
    for lib, t in ((torchlet, a), (torch, b)):
        t[0] = 1.5
        t[1, ::2] = lib.ones(3, 3) * 2
        t[lib.tensor(MASK)] = -1.0
        t[..., 2] = lib.arange(5).float()
        t.index_put_((lib.tensor([3, 3]), lib.tensor([0, 0])), lib.tensor([[1.0, 2.0, 3.0]]), accumulate=True)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_setitem_is_differentiable_as_pytorchs(torch):
    """x[key] = v records the write: gradients reach v and what x was made from."""
    grads = []
    for lib in (torchlet, torch):
        w = lib.tensor(X, requires_grad=True)
        v = lib.tensor(X[0, :, 0] * 3, requires_grad=True)
        y = w * 2
        y[lib.tensor(MASK)] = -v.sum()
        y[1, ::2] = v[:3].unsqueeze(1) * w[2, ::2]
        y.index_put_((lib.tensor([3, 3]), lib.tensor([0, 1])), v[:3] ** 2, accumulate=True)
        (y * y).sum().backward()
        grads.append((y.detach().numpy(), w.grad.numpy(), v.grad.numpy()))
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
    leaf = torchlet.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf that requires grad"):
        leaf[0] = 1.0


def test_bad_indices_raise_pytorchs_exception_kinds():
    x = torchlet.zeros(2, 3)  # (out-of-range and too many indices: test_tensor.py)
    with pytest.raises(IndexError):
        x[torchlet.zeros(2)]
    with pytest.raises(IndexError):
        x[..., 0, ...]
    with pytest.raises(IndexError):
        x["a"]
    with pytest.raises(ValueError):
        x[::-1]


SRC = RNG.standard_normal((3, 3)).astype(np.float32)
GATHER = np.array([[0, 1, 0], [2, 2, 1], [1, 0, 0]], dtype=np.int64)

OPS = [
    ("index_select", lambda t, x, s: t.index_select(x, 1, t.tensor([4, 0, 4]))),
    ("index_select_method", lambda t, x, s: x.index_select(0, t.tensor(IDX))),
    ("gather", lambda t, x, s: t.gather(x[:3, :3, 0], 1, t.tensor(GATHER))),
    ("gather_dim0", lambda t, x, s: x[:, :3, 1].gather(0, t.tensor(GATHER))),
    ("scatter", lambda t, x, s: x[:3, :3, 0].scatter(0, t.tensor([[0, 1, 2], [1, 2, 0], [2, 0, 1]]), s)),
    ("scatter_value", lambda t, x, s: t.scatter(x[:3, :3, 0], 1, t.tensor(GATHER[:, :1]), value=2.5)),
    ("scatter_add", lambda t, x, s: t.scatter_add(x[:3, :3, 0], 0, t.tensor(GATHER), s)),
    ("index_add", lambda t, x, s: x[:, :3, 0].index_add(0, t.tensor([3, 0, 3]), s, alpha=2)),
    ("einsum_mm", lambda t, x, s: t.einsum("ij,jk->ik", x[:, :3, 0], s)),
    ("einsum_list", lambda t, x, s: t.einsum("bij,bjk->bik", [x[:, :, :], x.transpose(1, 2)])),
    ("einsum_implicit", lambda t, x, s: t.einsum("ij,jk", s, s)),
    ("einsum_trace_diag", lambda t, x, s: t.einsum("ii->i", s)),
    ("einsum_dot", lambda t, x, s: t.einsum("bi,bi->b", x[:, :, 0], x[:, :, 1])),
]


@pytest.mark.parametrize("call", [c for _, c in OPS], ids=[n for n, _ in OPS])
def test_gather_scatter_einsum_match_pytorch(torch, call):
    a, b = pair(torch, X)
    sa, sb = pair(torch, SRC)
    out_a, out_b = call(torchlet, a, sa), call(torch, b, sb)
    np.testing.assert_allclose(out_a.detach().numpy(), out_b.detach().numpy(), rtol=1e-5, atol=1e-5)
    (out_a * out_a).sum().backward()
    (out_b * out_b).sum().backward()
    for ours, theirs in ((a, b), (sa, sb)):
        if theirs.grad is None:
            assert ours.grad is None or not ours.grad.numpy().any()
        else:
            np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-5, atol=1e-5)
