"""issue 14's layers and functions (Conv1d, ConvTranspose2d, AvgPool2d, AdaptiveAvgPool2d,
MaxPool1d, GroupNorm, Dropout2d, Embedding, ELU, Softplus, LogSoftmax, ModuleList, ModuleDict) and the losses against
Debian's PyTorch with the same weights, forward and backward."""

import numpy as np
import pytest

import torchlet
import torchlet.nn as nn
import torchlet.nn.functional as F

RNG = np.random.default_rng(5)


def data(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def copy_weights(ours, theirs, torch):
    with torch.no_grad():
        for (name, p), (tname, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            assert name == tname
            q.copy_(torch.from_numpy(p.detach().numpy()))


def check(ours, theirs, x, torch, target=None):
    a, b = torchlet.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out_a, out_b = ours(a), theirs(b)
    np.testing.assert_allclose(out_a.detach().numpy(), out_b.detach().numpy(), rtol=1e-4, atol=1e-5)
    (out_a * out_a).sum().backward()
    (out_b * out_b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-4)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-4)


LAYERS = [
    ("Conv1d", lambda n: n.Conv1d(3, 4, 3, stride=2, padding=1), (2, 3, 9)),
    ("ConvTranspose2d", lambda n: n.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1), (2, 3, 4, 5)),
    ("AvgPool2d", lambda n: n.AvgPool2d(2, stride=1, padding=1), (2, 3, 5, 4)),
    ("AdaptiveAvgPool2d", lambda n: n.AdaptiveAvgPool2d((3, 2)), (2, 3, 7, 5)),
    ("MaxPool1d", lambda n: n.MaxPool1d(3, stride=2, padding=1), (2, 3, 8)),
    ("GroupNorm", lambda n: n.GroupNorm(2, 4), (3, 4, 5)),
    ("ELU", lambda n: n.ELU(alpha=0.7), (3, 4)),
    ("Softplus", lambda n: n.Softplus(beta=2, threshold=1), (3, 4)),
    ("LogSoftmax", lambda n: n.LogSoftmax(dim=1), (3, 4)),
    ("GELU", lambda n: n.GELU(approximate="tanh"), (3, 4)),
    ("LeakyReLU", lambda n: n.LeakyReLU(0.2), (3, 4)),
    ("Softmax", lambda n: n.Softmax(dim=0), (3, 4)),
    ("ModuleList", lambda n: n.Sequential(*n.ModuleList([n.Conv1d(3, 3, 1), n.ReLU()])), (2, 3, 4)),
]


@pytest.mark.parametrize("make,shape", [(m, s) for _, m, s in LAYERS], ids=[n for n, _, _ in LAYERS])
def test_layer_matches_pytorch(torch, make, shape):
    ours, theirs = make(nn), make(torch.nn)
    assert repr(ours) == repr(theirs)
    copy_weights(ours, theirs, torch)
    check(ours, theirs, data(*shape), torch)


def test_conv_initialisation_draws_pytorchs_numbers(torch):
    for seed in (0, 3):
        torchlet.manual_seed(seed)
        torch.manual_seed(seed)
        for ours, theirs in ((nn.Conv1d(3, 4, 3), torch.nn.Conv1d(3, 4, 3)),
                             (nn.ConvTranspose2d(3, 2, 2), torch.nn.ConvTranspose2d(3, 2, 2))):
            for p, q in zip(ours.parameters(), theirs.parameters()):
                np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
            assert repr(ours) == repr(theirs)


def test_embedding_with_padding_idx_matches_pytorch(torch):
    weight = data(6, 3)
    ours = nn.Embedding.from_pretrained(torchlet.tensor(weight), freeze=False, padding_idx=1)
    theirs = torch.nn.Embedding.from_pretrained(torch.tensor(weight), freeze=False, padding_idx=1)
    idx = [[1, 4, 1], [0, 5, 2]]
    out_a, out_b = ours(torchlet.tensor(idx)), theirs(torch.tensor(idx))
    np.testing.assert_allclose(out_a.detach().numpy(), out_b.detach().numpy())
    (out_a * out_a).sum().backward()
    (out_b * out_b).sum().backward()
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-6)
    assert not ours.weight.grad.numpy()[1].any()
    fresh = nn.Embedding(10, 4, padding_idx=-1)
    assert fresh.padding_idx == 9 and not fresh.weight.detach().numpy()[9].any()
    assert repr(fresh) == repr(torch.nn.Embedding(10, 4, padding_idx=-1))


def test_dropout2d_drops_whole_channels():
    x = torchlet.ones(64, 8, 3, 3)
    drop = nn.Dropout2d(0.5)
    y = drop(x).numpy()
    per_channel = y.reshape(64, 8, 9)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2).all(-1))
    assert 0.35 < (per_channel[:, :, 0] == 0).mean() < 0.65
    drop.eval()
    np.testing.assert_array_equal(drop(x).numpy(), x.numpy())


def test_module_dict_registers_children():
    d = nn.ModuleDict({"a": nn.Linear(2, 3), "b": nn.ReLU()})
    d["c"] = nn.Linear(3, 1)
    assert list(d.keys()) == ["a", "b", "c"] and len(d) == 3 and "b" in d
    assert [n for n, _ in d.named_parameters()] == ["a.weight", "a.bias", "c.weight", "c.bias"]
    assert d["c"](d["b"](d["a"](torchlet.ones(1, 2)))).shape == (1, 1)


LOSSES = [
    ("CrossEntropyLoss", lambda n: n.CrossEntropyLoss(label_smoothing=0.1), "class"),
    ("NLLLoss", lambda n: n.NLLLoss(reduction="sum"), "class"),
    ("MSELoss", lambda n: n.MSELoss(), "dense"),
    ("L1Loss", lambda n: n.L1Loss(reduction="sum"), "dense"),
    ("SmoothL1Loss", lambda n: n.SmoothL1Loss(beta=0.5), "dense"),
    ("HuberLoss", lambda n: n.HuberLoss(delta=0.7), "dense"),
    ("BCEWithLogitsLoss", lambda n: n.BCEWithLogitsLoss(), "prob"),
    ("KLDivLoss", lambda n: n.KLDivLoss(reduction="batchmean"), "prob"),
]


@pytest.mark.parametrize("make,kind", [(m, k) for _, m, k in LOSSES], ids=[n for n, _, _ in LOSSES])
def test_loss_matches_pytorch(torch, make, kind):
    x = data(4, 3)
    target = {"class": np.array([0, 2, 1, 2]), "dense": data(4, 3),
              "prob": (data(4, 3) > 0).astype(np.float32)}[kind]
    a, b = torchlet.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    la, lb = make(nn)(a, torchlet.tensor(target)), make(torch.nn)(b, torch.tensor(target))
    np.testing.assert_allclose(la.item(), lb.item(), rtol=1e-5)
    la.backward()
    lb.backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_functional_names_and_keywords(torch):
    x = data(2, 2, 6, 6)
    for name, kwargs in (("avg_pool2d", dict(kernel_size=3, stride=2)), ("adaptive_avg_pool2d", dict(output_size=2)),
                         ("group_norm", dict(num_groups=1, eps=1e-3))):
        ours = getattr(F, name)(torchlet.tensor(x), **kwargs)
        theirs = getattr(torch.nn.functional, name)(torch.tensor(x), **kwargs)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)
