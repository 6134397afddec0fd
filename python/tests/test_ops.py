"""Ops forward and backward against Debian's PyTorch on the same inputs, called the same way
(torch.op(x, ...) and x.op(...)) with the same keywords."""

import numpy as np
import pytest

import torchlet

RNG = np.random.default_rng(7)
A = RNG.standard_normal((3, 5)).astype(np.float32)
B = RNG.standard_normal((3, 5)).astype(np.float32)
POS = (np.abs(A) + 0.5).astype(np.float32)
M = RNG.standard_normal((5, 4)).astype(np.float32)

# (name, inputs, call): call(lib, *tensors) uses the library's own API.
CASES = [
    ("add", (A, B), lambda t, a, b: a + b),
    ("add_scalar", (A,), lambda t, a: 2 + a * 3 - 1),
    ("sub_div", (A, POS), lambda t, a, b: (a - b) / b),
    ("rdiv", (POS,), lambda t, a: 1.5 / a),
    ("pow", (POS,), lambda t, a: a ** 2.5),
    ("rpow", (A,), lambda t, a: 2 ** a),
    ("neg_abs", (A,), lambda t, a: abs(-a)),
    ("exp", (A,), lambda t, a: t.exp(a)),
    ("log", (POS,), lambda t, a: a.log()),
    ("sqrt", (POS,), lambda t, a: t.sqrt(a)),
    ("sigmoid_tanh", (A,), lambda t, a: t.sigmoid(a) + a.tanh()),
    ("sin_cos_tan", (A,), lambda t, a: t.sin(a) * a.cos() + t.tan(a * 0.5)),
    ("relu", (A,), lambda t, a: t.relu(a)),
    ("clamp", (A,), lambda t, a: a.clamp(min=-0.5, max=0.5)),
    ("maximum", (A, B), lambda t, a, b: t.maximum(a, b)),
    ("matmul", (A, M), lambda t, a, m: a @ m),
    ("mm_t", (A, B), lambda t, a, b: a.mm(b.t())),
    ("sum_all", (A,), lambda t, a: a.sum()),
    ("sum_dim", (A,), lambda t, a: t.sum(a, dim=1, keepdim=True)),
    ("sum_dims", (A,), lambda t, a: a.sum(dim=(0, 1))),
    ("mean_dim", (A,), lambda t, a: a.mean(0)),
    ("max_dim", (A,), lambda t, a: t.max(a, dim=1).values),
    ("max_all", (A,), lambda t, a: a.max()),
    ("min_dim", (A,), lambda t, a: a.min(1)[0]),
    ("var", (A,), lambda t, a: a.var(dim=1)),
    ("std_unbiased", (A,), lambda t, a: t.std(a, 0, unbiased=False)),
    ("norm", (A,), lambda t, a: a.norm()),
    ("logsumexp", (A,), lambda t, a: t.logsumexp(a, dim=1)),
    ("softmax", (A,), lambda t, a: t.softmax(a, dim=1)),
    ("log_softmax", (A,), lambda t, a: a.log_softmax(-1)),
    ("cumsum", (A,), lambda t, a: a.cumsum(1)),
    ("where", (A, B), lambda t, a, b: t.where(a > 0, a, b)),
    ("cat_stack", (A, B), lambda t, a, b: t.cat([a, b], dim=1).sum() + t.stack([a, b]).mean()),
    ("views", (A,), lambda t, a: a.reshape(5, 3).t().unsqueeze(0).squeeze(0).transpose(0, 1).flatten()),
    ("slice", (A,), lambda t, a: a[1:, ::1][..., 2:4] * a[0, 2:4]),
    ("permute_view", (A,), lambda t, a: a.view(3, 5, 1).permute(2, 0, 1).contiguous().view(-1)),
    ("linear", (A, M.T.copy()), lambda t, a, w: t.nn.functional.linear(a, w)),
    ("mse", (A, B), lambda t, a, b: t.nn.functional.mse_loss(a, b)),
    ("gelu", (A,), lambda t, a: t.nn.functional.gelu(a)),
]


def _run(lib, call, arrays):
    tensors = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = call(lib, *tensors)
    out.sum().backward() if out.dim() else out.backward()
    return out.detach().numpy(), [t.grad.numpy() if t.grad is not None else None for t in tensors]


@pytest.mark.parametrize("name,arrays,call", CASES, ids=[c[0] for c in CASES])
def test_op_matches_pytorch(torch, name, arrays, call):
    ours, our_grads = _run(torchlet, call, arrays)
    theirs, their_grads = _run(torch, call, arrays)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6, err_msg=f"{name} forward")
    for i, (g, h) in enumerate(zip(our_grads, their_grads)):
        np.testing.assert_allclose(g, h, rtol=1e-5, atol=1e-6, err_msg=f"{name} d/d input {i}")


def test_cross_entropy_and_argmax_match_pytorch(torch):
    logits = RNG.standard_normal((7, 3)).astype(np.float32)
    target = np.array([0, 2, 1, 1, 0, 2, 2])
    for lib in (torchlet, torch):
        x = lib.tensor(logits, requires_grad=True)
        loss = lib.nn.functional.cross_entropy(x, lib.tensor(target))
        loss.backward()
        if lib is torchlet:
            ours = (loss.item(), x.grad.numpy(), x.argmax(dim=1).numpy())
    np.testing.assert_allclose(ours[0], loss.item(), rtol=1e-6)
    np.testing.assert_allclose(ours[1], x.grad.numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(ours[2], x.argmax(dim=1).numpy())


def test_comparisons_and_integer_promotion_match_pytorch(torch):
    ints = np.array([[1, -2, 3]])
    for lib in (torchlet, torch):
        t = lib.tensor(ints)
        got = [(t * 2).dtype, (t * 2.5).dtype, (t / 2).dtype, (t > 0).dtype, (t == 3).tolist(), (t * 2).tolist()]
        if lib is torchlet:
            ours = [str(got[0]), str(got[1]), str(got[2]), str(got[3])] + got[4:]
        else:
            theirs = [str(got[0]), str(got[1]), str(got[2]), str(got[3])] + got[4:]
    assert [s.replace("torchlet.", "torch.") for s in ours[:4]] == theirs[:4]
    assert ours[4:] == theirs[4:]


def test_in_place_arithmetic_matches_pytorch(torch):
    """x.add_(y, alpha=...), sub_, mul_, div_ and +=, -=, *=, /= change the tensor itself (the
    same object, and views of it); a manual SGD step under no_grad updates the parameter."""
    results = {}
    for lib in (torch, torchlet):
        x = lib.tensor(A.copy())
        alias, row = x, x[1]
        x.add_(lib.tensor(B[0]), alpha=2.5).sub_(0.5).mul_(lib.tensor(POS)).div_(3)
        x += 1
        x -= lib.tensor(B)
        x *= 2
        x /= lib.tensor(POS)
        row += 100  # a view: x's second row changes
        ints = lib.arange(4)
        ints.add_(3, alpha=2)
        ints *= 2
        w = lib.tensor([1.0, -2.0], requires_grad=True)
        (w * w).sum().backward()
        with lib.no_grad():
            w -= 0.25 * w.grad
        results[lib] = (alias is x, x.numpy().copy(), ints.tolist(), str(ints.dtype), w.detach().numpy().copy(),
                        w.is_leaf)
    ours, theirs = results[torchlet], results[torch]
    assert ours[0] and theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6)
    assert ours[2] == theirs[2] and ours[3].replace("torchlet.", "torch.") == theirs[3]
    np.testing.assert_allclose(ours[4], theirs[4])
    assert ours[5] and theirs[5]


def test_in_place_refusals_are_pytorchs():
    w = torchlet.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf that requires grad"):
        w += 1
    i = torchlet.arange(3)
    with pytest.raises(RuntimeError, match="cast to this tensor's dtype int64"):
        i += 0.5
    with pytest.raises(RuntimeError, match="broadcast shape"):
        torchlet.zeros(3).add_(torchlet.ones(2, 3))
    with pytest.raises(TypeError):
        torchlet.zeros(3).mul_("a")
    with pytest.raises(TypeError):
        x = torchlet.zeros(3)
        x += "a"
