"""A PyTorch program that logs to TensorBoard, as makemore and the course do, run unchanged
through `python3 -m torchlet`: what it prints having logged is what the event files hold. (It
is a test rather than an examples/real/ program because Debian's PyTorch cannot run it: its
torch.utils.tensorboard needs the tensorboard package, which Debian does not have.)"""

import os
import re
import subprocess
import sys

import numpy as np
import tensorboard_reader as tb

PROGRAM = '''
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.rand(64, 3)
y = x.sum(1, keepdim=True)
writer = SummaryWriter(log_dir="work")
for step in range(6):
    loss = ((model(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    writer.add_scalar("Loss/train", loss.item(), step)
    writer.add_scalars("Loss", {"train": loss.item(), "half": loss.item() / 2}, step)
    print(f"step {step}: loss {loss.item():.7f}")
writer.add_histogram("layer0.weight", model[0].weight, 6)
writer.add_image("inputs", x[:8].t().unsqueeze(0), 6)
writer.add_text("summary", f"final loss {loss.item():.4f}", 6)
writer.add_hparams({"lr": 0.1, "hidden": 8}, {"hparam/loss": loss.item()}, run_name="hparams")
writer.flush()
writer.close()
print("weights", model[0].weight.numel(), "logged in", writer.get_logdir())
'''


def run_file(folder):
    (name,) = [n for n in os.listdir(folder) if n.startswith("events.out.tfevents.")]
    return [v | {"step": e.get("step", 0)} for e in tb.read_events(os.path.join(folder, name))[1:]
            for v in e["summary"]["value"]]


def test_a_pytorch_program_logs_to_tensorboard(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    done = subprocess.run([sys.executable, "-m", "torchlet", "prog.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    losses = [float(v) for v in re.findall(r"step \d: loss (\d+\.\d+)", done.stdout)]
    assert len(losses) == 6 and losses[-1] < losses[0]
    assert done.stdout.splitlines()[-1] == "weights 24 logged in work"

    logged = run_file(tmp_path / "work")
    scalars = [(v["step"], v["simple_value"]) for v in logged if v["tag"] == "Loss/train"]
    assert [s for s, _ in scalars] == list(range(6))
    np.testing.assert_allclose([v for _, v in scalars], losses, atol=1e-7)
    half = [v["simple_value"] for v in run_file(tmp_path / "work" / "Loss_half")]
    np.testing.assert_allclose(half, np.array(losses) / 2, atol=1e-7)
    (histogram,) = [v for v in logged if v["tag"] == "layer0.weight"]
    assert histogram["step"] == 6 and histogram["histo"]["num"] == 24 and sum(histogram["histo"]["bucket"]) == 24
    (image,) = [v for v in logged if v["tag"] == "inputs"]
    assert (image["image"]["height"], image["image"]["width"], image["image"]["colorspace"]) == (3, 8, 3)
    (text,) = [v for v in logged if v["tag"] == "summary/text_summary"]
    assert text["tensor"]["string_val"] == [f"final loss {losses[-1]:.4f}".encode()]
    hparams = [v["tag"] for v in run_file(tmp_path / "work" / "hparams")]
    assert hparams == ["_hparams_/experiment", "_hparams_/session_start_info", "_hparams_/session_end_info",
                       "hparam/loss"]
