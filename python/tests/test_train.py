"""torchlet.train (the library's fit loop over a Python nn.Module) against the same loop
written in Python on torchlet and on Debian's PyTorch; Ctrl-C (SIGINT) during train and during
a compiled loop raises KeyboardInterrupt."""

import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import torchlet
import torchlet.nn as nn
import torchlet.optim as optim

RNG = np.random.default_rng(2)
X = RNG.standard_normal((30, 4)).astype(np.float32)
Y = RNG.integers(0, 3, 30)


def mlp(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 10), lib.nn.ReLU(), lib.nn.Linear(10, 3))


def python_loop(lib, epochs, every):
    model = mlp(lib)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = lib.nn.CrossEntropyLoss()
    x, y, losses = lib.tensor(X), lib.tensor(Y), []
    for epoch in range(1, epochs + 1):
        loss = loss_fn(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if epoch % every == 0:
            losses.append(loss.item())
    return losses


@pytest.mark.parametrize("execution", ["eager", "compiled", "auto"])
def test_train_matches_the_python_loop(torch, execution):
    model = mlp(torchlet)
    opt = optim.SGD(model.parameters(), lr=0.1)
    result = torchlet.train(model, opt, torchlet.tensor(X), torchlet.tensor(Y), epochs=200, record_every=20,
                            execution=execution)
    assert result.stop == "completed" and result.epochs_done == 200
    assert result.loss_epochs == list(range(20, 201, 20))
    np.testing.assert_allclose(result.losses, python_loop(torchlet, 200, 20), rtol=1e-5)
    np.testing.assert_allclose(result.losses, python_loop(torch, 200, 20), atol=1e-4)
    assert result.final_loss == pytest.approx(result.losses[-1])
    assert result.compiled == (execution == "compiled")


def test_train_options_loss_validation_and_callbacks():
    model = nn.Sequential(nn.Linear(4, 1))
    opt = optim.Adam(model.parameters(), lr=0.05)
    target = torchlet.tensor(X[:, :1] * 2 - 1)
    seen = []
    result = torchlet.train(model, opt, torchlet.tensor(X), target, epochs=50, batch_size=8, seed=1,
                            record_every=10, loss_fn=nn.MSELoss(), on_epoch=lambda e, loss: seen.append(e) or e < 30)
    assert result.stop == "callback" and result.epochs_done == 30 and seen == list(range(1, 31))
    assert result.losses[-1] < result.losses[0]
    model.train()
    result = torchlet.train(model, opt, torchlet.tensor(X[:20]), target[:20], epochs=500, loss_fn=nn.MSELoss(),
                            val_inputs=torchlet.tensor(X[20:]), val_targets=target[20:] + 5, patience=3)
    assert result.stop == "early_stopping" and result.epochs_done < 500 and result.best_epoch >= 1
    # min_delta: a huge one counts no later loss as better, so the best stays the first epoch
    result = torchlet.train(model, opt, torchlet.tensor(X[:20]), target[:20], epochs=500, loss_fn=nn.MSELoss(),
                            val_inputs=torchlet.tensor(X[20:]), val_targets=target[20:], patience=3,
                            min_delta=1e6)
    assert result.stop == "early_stopping" and result.epochs_done == 4 and result.best_epoch == 1
    with pytest.raises(ValueError):
        torchlet.train(model, opt, torchlet.tensor(X), target, execution="fast")


def interrupted(script):
    """Runs script in a fresh interpreter, sends SIGINT once it prints "started", and returns
    what it printed after."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)], stdout=subprocess.PIPE, text=True,
                             env=env)
    assert child.stdout.readline().strip() == "started"
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=60)
    return out.strip()


def test_ctrl_c_during_train_raises_keyboard_interrupt():
    out = interrupted("""
        import sys, torchlet, torchlet.nn as nn, torchlet.optim as optim
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
        opt = optim.SGD(model.parameters(), lr=0.01)
        def started(epoch, loss):
            if epoch == 1:
                print("started", flush=True)
        try:
            torchlet.train(model, opt, torchlet.randn(64, 4), torchlet.randint(3, (64,)), epochs=10**9,
                           on_epoch=started)
            print("completed")
        except KeyboardInterrupt:
            print("KeyboardInterrupt", tuple(model(torchlet.ones(1, 4)).shape))
    """)
    assert out == "KeyboardInterrupt (1, 3)"


def test_ctrl_c_during_a_compiled_loop_raises_keyboard_interrupt():
    out = interrupted("""
        import torchlet, torchlet.nn as nn, torchlet.optim as optim
        model = nn.Linear(4, 3)
        opt = optim.SGD(model.parameters(), lr=0.01)
        x, y = torchlet.randn(64, 4), torchlet.randint(3, (64,))
        @torchlet.compile
        def step():
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss
        try:
            for i in range(10**9):
                step()
                if i == 2:
                    print("started", flush=True)
        except KeyboardInterrupt:
            print("KeyboardInterrupt", step.recordings)
    """)
    assert out == "KeyboardInterrupt 1"


def test_train_raises_what_python_raised():
    class Broken(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, x):
            raise ValueError("broken forward")

    model = Broken()
    opt = optim.SGD(model.parameters(), lr=0.1)
    x, y = torchlet.tensor(X), torchlet.tensor(Y)
    with pytest.raises(ValueError, match="broken forward"):
        torchlet.train(model, opt, x, y)
    model = nn.Linear(4, 3)
    opt = optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(TypeError, match="Expected the loss_fn to return a Tensor, but got int"):
        torchlet.train(model, opt, x, y, loss_fn=lambda output, target: 3)
    with pytest.raises(ValueError):
        torchlet.train(model, optim.SGD([{"params": [model.weight]}, {"params": [model.bias]}], lr=0.1), x, y)
