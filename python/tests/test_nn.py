"""nn.Module's registration, __call__ and hooks, state_dict; nn.Linear's initialisation,
a training step with SGD and Adam, and torchlet.compile, against PyTorch where it is installed."""

import numpy as np
import pytest

import torchlet
import torchlet.nn as nn
import torchlet.optim as optim


class MLP(nn.Module):
    def __init__(self):
        super(MLP, self).__init__()
        self.fc1 = nn.Linear(4, 10)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(10, 3)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def test_setattr_registers_parameters_and_children():
    model = MLP()
    assert [n for n, _ in model.named_parameters()] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert len(list(model.parameters())) == 4
    assert [type(c).__name__ for c in model.children()] == ["Linear", "ReLU", "Linear"]
    assert all(p.requires_grad for p in model.parameters())
    model.scale = 2.0  # a plain attribute stays one
    assert "scale" not in dict(model.named_parameters())
    assert repr(model) == ("MLP(\n  (fc1): Linear(in_features=4, out_features=10, bias=True)\n  (relu): ReLU()\n"
                           "  (fc2): Linear(in_features=10, out_features=3, bias=True)\n)")


def test_call_runs_pre_hooks_forward_then_hooks():
    model, seen = MLP(), []
    pre = model.register_forward_pre_hook(lambda m, args: seen.append("pre") or (args[0] * 0,))
    model.register_forward_hook(lambda m, args, out: seen.append("post") or out + 1)
    out = model(torchlet.ones(2, 4))
    assert seen == ["pre", "post"]
    np.testing.assert_allclose(out.detach().numpy(), model.forward(torchlet.zeros(2, 4)).detach().numpy() + 1)
    pre.remove()
    model(torchlet.ones(1, 4))
    assert seen == ["pre", "post", "post"]


def test_train_eval_and_state_dict_round_trip():
    a, b = MLP(), MLP()
    assert a.training and not a.eval().training and not a.fc1.training
    b.load_state_dict(a.state_dict())
    for (n, p), (m, q) in zip(a.named_parameters(), b.named_parameters()):
        assert n == m
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    with pytest.raises(RuntimeError, match="size mismatch"):
        nn.Linear(4, 2).load_state_dict(nn.Linear(4, 3).state_dict())


def test_module_to_moves_in_place_and_keeps_parameters():
    model = MLP()
    params = list(model.parameters())
    assert model.to("cpu") is model
    assert all(p is q for p, q in zip(params, model.parameters()))


def test_linear_draws_pytorchs_initialisation(torch):
    for seed in (0, 42):
        torch.manual_seed(seed)
        theirs = torch.nn.Linear(7, 5)
        torchlet.manual_seed(seed)
        ours = nn.Linear(7, 5)
        np.testing.assert_array_equal(ours.weight.detach().numpy(), theirs.weight.detach().numpy())
        np.testing.assert_array_equal(ours.bias.detach().numpy(), theirs.bias.detach().numpy())
        torch.manual_seed(seed)
        torchlet.manual_seed(seed)
        np.testing.assert_array_equal(torchlet.rand(3, 4).numpy(), torch.rand(3, 4).numpy())


def _train(lib, make_optimizer, steps=5):
    lib.manual_seed(3)
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3))
    x = lib.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(6, 4))
    y = lib.tensor([0, 1, 2, 1, 0, 2])
    opt = make_optimizer(lib, model.parameters())
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = lib.nn.CrossEntropyLoss()(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, [p.detach().numpy().copy() for p in model.parameters()]


@pytest.mark.parametrize("make", [
    lambda lib, p: lib.optim.SGD(p, lr=0.1),
    lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=1e-3),
    lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
    lambda lib, p: lib.optim.Adam(p, lr=0.01),
    lambda lib, p: lib.optim.Adam(p, lr=0.01, betas=(0.8, 0.99), weight_decay=0.01),
], ids=["sgd", "sgd_momentum_decay", "sgd_nesterov", "adam", "adam_options"])
def test_optimizer_steps_match_pytorch(torch, make):
    ours, our_params = _train(torchlet, make)
    theirs, their_params = _train(torch, make)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    for p, q in zip(our_params, their_params):
        np.testing.assert_allclose(p, q, rtol=1e-5, atol=1e-6)


def test_scheduler_changes_the_lr_the_optimizer_uses():
    w = nn.Parameter(torchlet.ones(1))
    opt = optim.SGD([w], lr=1.0)
    sched = optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    for expected in (1.0, 0.5):
        (w * 1.0).sum().backward()
        before = w.item()
        opt.step()
        opt.zero_grad()
        assert before - w.item() == pytest.approx(expected)
        sched.step()


def test_compiled_step_matches_eager():
    def run(compiled):
        torchlet.manual_seed(1)
        model = MLP()
        x = torchlet.tensor(np.linspace(0, 1, 40, dtype=np.float32).reshape(10, 4))
        y = torchlet.tensor([0, 1, 2, 0, 1, 2, 0, 1, 2, 0])
        criterion, opt = nn.CrossEntropyLoss(), optim.SGD(model.parameters(), lr=0.05)

        def step():
            opt.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            opt.step()
            return loss

        step = torchlet.compile(step) if compiled else step
        losses = [step().item() for _ in range(30)]
        return losses, step

    eager, _ = run(False)
    compiled, step = run(True)
    np.testing.assert_allclose(compiled, eager, rtol=1e-5)
    assert step.recordings == 1


def test_compiled_step_refuses_item_inside():
    w = nn.Parameter(torchlet.ones(2))
    step = torchlet.compile(lambda: (w * w).sum() + (w.sum().item() * 0))
    step()
    with pytest.raises(RuntimeError, match="item"):
        step()


def test_compiled_step_takes_tensor_arguments():
    w = nn.Parameter(torchlet.ones(3))
    step = torchlet.compile(lambda x: (w * x).sum())
    for _ in range(3):  # eager, recorded, replayed
        assert step(torchlet.full((3,), 2.0)).item() == 6.0
    with pytest.raises(TypeError, match="Expected tensor arguments, but got int as argument 0"):
        step(3)


def test_data_loader_batches_a_tensor_dataset():
    from torchlet.utils.data import DataLoader, TensorDataset

    x, y = torchlet.arange(10).reshape(5, 2), torchlet.arange(5)
    batches = list(DataLoader(TensorDataset(x, y), batch_size=2))
    assert [b[1].tolist() for b in batches] == [[0, 1], [2, 3], [4]]
    shuffled = sorted(v for _, yb in DataLoader(TensorDataset(x, y), batch_size=2, shuffle=True) for v in yb.tolist())
    assert shuffled == [0, 1, 2, 3, 4]


def test_save_and_load_round_trip_a_state_dict(tmp_path):
    model = MLP()
    path = tmp_path / "mlp.safetensors"
    torchlet.save(model.state_dict(), path)
    other = MLP()
    other.load_state_dict(torchlet.load(path))
    for p, q in zip(model.parameters(), other.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    with pytest.raises(OSError):
        torchlet.load(tmp_path / "missing.safetensors")
    with pytest.raises(TypeError):
        torchlet.save([1, 2], path)


def test_float64_state_dicts_round_trip_bit_for_bit(tmp_path):
    model = MLP().double()
    path = tmp_path / "mlp64.safetensors"
    torchlet.save(model.state_dict(), path)
    loaded = torchlet.load(path)
    assert {t.dtype for t in loaded.values()} == {torchlet.float64}
    other = MLP().double()
    other.load_state_dict(loaded)
    for p, q in zip(model.parameters(), other.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_saved_file_loads_in_pytorch(torch, tmp_path):
    safetensors = pytest.importorskip("safetensors.torch")
    model = MLP()
    torchlet.save(model.state_dict(), tmp_path / "m.safetensors")
    theirs = safetensors.load_file(str(tmp_path / "m.safetensors"))
    for name, p in model.state_dict().items():
        np.testing.assert_array_equal(theirs[name].numpy(), p.numpy())
