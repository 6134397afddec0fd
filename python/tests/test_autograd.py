"""torchlet.autograd.grad, Tensor.register_hook, grad_fn's PyTorch names, backward's
retain_graph, and the draws randint/randperm/normal_/bernoulli_, against Debian's PyTorch
(the draws by their statistics: torchlet's generator is not PyTorch's)."""

import numpy as np
import pytest

import torchlet
import torchlet.nn.functional  # noqa: F401 (torchlet.nn.functional in the grad_fn test)

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
W = np.array([[1.0, -2.0], [0.5, 0.0], [3.0, 1.0]], dtype=np.float32)


def test_autograd_grad_matches_pytorch(torch):
    results = []
    for lib in (torchlet, torch):
        x, w = lib.tensor(X, requires_grad=True), lib.tensor(W, requires_grad=True)
        y = (x @ w).tanh()
        gx, gw = lib.autograd.grad(y.sum(), [x, w], retain_graph=True)
        (gy,) = lib.autograd.grad([y], [x], grad_outputs=[lib.ones(2, 2) * 2])
        assert x.grad is None and w.grad is None
        unused = lib.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)
        assert unused[1] is None
        results.append([g.numpy() for g in (gx, gw, gy, unused[0])])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError):
        x = torchlet.ones(2, requires_grad=True)
        torchlet.autograd.grad((x * 2).sum(), [x, torchlet.ones(2, requires_grad=True)])


def test_register_hook_sees_and_replaces_the_gradient(torch):
    runs = []
    for lib in (torchlet, torch):
        x = lib.tensor(X, requires_grad=True)
        mid = x * 3
        seen = []
        mid.register_hook(lambda g: seen.append(g.numpy().copy()))
        handle = x.register_hook(lambda g: g * 10)
        (mid * mid).sum().backward()
        first = x.grad.numpy().copy()
        handle.remove()
        x.grad = None
        (x * x).sum().backward()
        runs.append((seen[0], first, x.grad.numpy()))
    for a, b in zip(*runs):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    with pytest.raises(RuntimeError):
        torchlet.ones(2).register_hook(lambda g: g)


def test_grad_fn_names_match_pytorch(torch):
    # The ops whose node is PyTorch's; sum, mean, select, t and mse_loss are composites in
    # torchlet, whose last node (ViewBackward0, DivBackward0...) is named as PyTorch names it.
    for make in (lambda t, a, b: a * b, lambda t, a, b: a + b, lambda t, a, b: a - b / b, lambda t, a, b: a @ b.t(),
                 lambda t, a, b: t.tanh(a), lambda t, a, b: a.sigmoid(), lambda t, a, b: a.exp(),
                 lambda t, a, b: a.relu(), lambda t, a, b: a ** 2, lambda t, a, b: t.softmax(a, 1),
                 lambda t, a, b: t.log_softmax(a, 1), lambda t, a, b: a.view(3, 2),
                 lambda t, a, b: t.nn.functional.cross_entropy(a, t.tensor([0, 2]))):
        names = []
        for lib in (torchlet, torch):
            a, b = lib.tensor(X, requires_grad=True), lib.tensor(X + 1)
            names.append(make(lib, a, b).grad_fn.name())
        assert names[0] == names[1]
    x = torchlet.tensor([1.0, 2.0], requires_grad=True)
    assert x.grad_fn is None
    y = x * 2
    assert repr(y) == repr(torch.tensor([1.0, 2.0], requires_grad=True) * 2) == \
        "tensor([2., 4.], grad_fn=<MulBackward0>)"
    assert repr(y.grad_fn) == "<MulBackward0 object>"


def test_backward_retain_graph():
    x = torchlet.tensor(X, requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 4 * X, rtol=1e-6)
    with pytest.raises(RuntimeError):
        y.backward()


def test_random_draws():
    torchlet.manual_seed(0)
    r = torchlet.randint(3, 7, (4000,))
    assert r.dtype == torchlet.int64 and r.min().item() == 3 and r.max().item() == 6
    assert torchlet.randint(5, (2, 3)).shape == (2, 3)
    p = torchlet.randperm(50)
    assert sorted(p.tolist()) == list(range(50)) and p.tolist() != list(range(50))
    n = torchlet.empty(20000)
    assert n.normal_(2.0, 0.5) is n
    assert abs(n.mean().item() - 2.0) < 0.02 and abs(n.std().item() - 0.5) < 0.02
    b = torchlet.empty(20000).bernoulli_(0.3).numpy()
    assert set(np.unique(b)) == {0.0, 1.0} and abs(b.mean() - 0.3) < 0.02
    torchlet.manual_seed(0)
    assert torchlet.randint(3, 7, (4000,)).tolist() == r.tolist()
