"""AdamW, RMSprop and Adagrad with two param_groups, the lr schedulers and gradient clipping
against Debian's PyTorch on the same model and data."""

import numpy as np
import pytest

import torchlet
import torchlet.nn as nn
import torchlet.optim as optim

RNG = np.random.default_rng(3)
X = RNG.standard_normal((16, 4)).astype(np.float32)
Y = RNG.integers(0, 3, 16)


def models(torch):
    torchlet.manual_seed(1)
    torch.manual_seed(1)
    return (nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3)),
            torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3)))


OPTIMIZERS = [
    ("AdamW", dict(lr=0.01, weight_decay=0.1, betas=(0.8, 0.99))),
    ("Adam", dict(lr=0.01, maximize=True)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.01)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
]


@pytest.mark.parametrize("name,options", OPTIMIZERS, ids=[n for n, _ in OPTIMIZERS])
def test_optimizer_with_param_groups_matches_pytorch(torch, name, options):
    ours, theirs = models(torch)

    def groups(model):  # the second layer with its own lr
        return [{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": options["lr"] / 2}]

    opt_a = getattr(optim, name)(groups(ours)[:1], **options)
    opt_a.add_param_group(groups(ours)[1])  # (PyTorch 1.13's Adagrad.add_param_group leaves out its state)
    opt_b = getattr(torch.optim, name)(groups(theirs), **options)
    assert [g["lr"] for g in opt_a.param_groups] == [g["lr"] for g in opt_b.param_groups]
    for _ in range(5):
        for model, opt, lib in ((ours, opt_a, torchlet), (theirs, opt_b, torch)):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(lib.tensor(X)), lib.tensor(Y))
            loss.backward()
            opt.step()
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-4, atol=1e-5)


SCHEDULERS = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 6], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("CosineAnnealingLR", dict(T_max=6, eta_min=0.01)),
    ("LinearLR", dict(start_factor=0.25, total_iters=4)),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=10, cycle_momentum=False)),
    ("OneCycleLR", dict(max_lr=[1.0, 0.5], epochs=2, steps_per_epoch=6, anneal_strategy="linear",
                        three_phase=True, cycle_momentum=False)),
]


@pytest.mark.parametrize("name,options", SCHEDULERS, ids=[f"{n}{i}" for i, (n, _) in enumerate(SCHEDULERS)])
def test_scheduler_lrs_match_pytorch(torch, name, options):
    ours, theirs = models(torch)
    runs = []
    for lib, model in ((optim, ours), (torch.optim, theirs)):
        opt = lib.SGD([{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.05}], lr=0.1)
        sched = getattr(lib.lr_scheduler, name)(opt, **options)
        lrs = []
        for _ in range(9):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr())
        runs.append(lrs)
    np.testing.assert_allclose(runs[0], runs[1], rtol=1e-9, atol=1e-12)


def test_reduce_lr_on_plateau_matches_pytorch(torch):
    metrics = [1.0, 0.9, 0.9, 0.95, 0.91, 0.89, 0.89, 0.9, 0.9, 0.9, 0.5, 0.6, 0.7]
    runs = []
    for lib, model in zip((optim, torch.optim), models(torch)):
        opt = lib.Adam(model.parameters(), lr=0.1)
        sched = lib.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1, cooldown=1, min_lr=0.02)
        lrs = []
        for m in metrics:
            sched.step(m)
            lrs.append(opt.param_groups[0]["lr"])
        runs.append(lrs)
    assert runs[0] == runs[1]


@pytest.mark.parametrize("name,changes", [
    ("SGD", dict(momentum=0.5, weight_decay=0.1, nesterov=True)), ("Adam", dict(betas=(0.5, 0.9), eps=1e-3)),
    ("RMSprop", dict(alpha=0.5, eps=1e-3, weight_decay=0.1)), ("Adagrad", dict(lr_decay=0.5, maximize=True)),
], ids=["SGD", "Adam", "RMSprop", "Adagrad"])
def test_changed_group_options_apply_from_the_next_step(torch, name, changes):
    ours, theirs = models(torch)
    runs = []
    for lib, model in ((torchlet, ours), (torch, theirs)):
        opt = getattr(lib.optim, name)(model.parameters(), lr=0.05)
        for step in range(6):
            if step == 3:
                opt.param_groups[0].update(changes)
            opt.zero_grad()
            lib.nn.functional.cross_entropy(model(lib.tensor(X)), lib.tensor(Y)).backward()
            opt.step()
        runs.append([p.detach().numpy() for p in model.parameters()])
    for a, b in zip(*runs):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_a_parameter_in_two_groups_is_refused():
    model = nn.Linear(2, 2)
    opt = optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError):
        opt.add_param_group({"params": model.weight})


def test_clip_grad_matches_pytorch(torch):
    ours, theirs = models(torch)
    for model, lib in ((ours, torchlet), (theirs, torch)):
        lib.nn.functional.cross_entropy(model(lib.tensor(X)) * 10, lib.tensor(Y)).backward()
    na = nn.utils.clip_grad_norm_(ours.parameters(), 0.5)
    nb = torch.nn.utils.clip_grad_norm_(theirs.parameters(), 0.5)
    np.testing.assert_allclose(na.item(), nb.item(), rtol=1e-5)
    nn.utils.clip_grad_value_(ours.parameters(), 0.05)
    torch.nn.utils.clip_grad_value_(theirs.parameters(), 0.05)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-7)
    inf = nn.utils.clip_grad_norm_(ours[0].weight, 1.0, norm_type=float("inf"))
    assert inf.item() == pytest.approx(np.abs(ours[0].weight.grad.numpy()).max())
