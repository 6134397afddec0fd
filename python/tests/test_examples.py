"""The course's two scripts (examples/python) run unchanged on torchlet and print the losses
Debian's PyTorch prints for the same seed, every one to 4 decimals (fixtures/iris_losses.json,
made by fixtures/make_iris_losses.py)."""

import json
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.environ.get("TORCHLET_EXAMPLES", os.path.join(HERE, "..", "..", "examples", "python"))
with open(os.path.join(HERE, "fixtures", "iris_losses.json")) as f:
    GOLDEN = json.load(f)


@pytest.mark.parametrize("script", sorted(GOLDEN["scripts"]))
def test_course_script_prints_pytorchs_losses(script):
    out = subprocess.run([sys.executable, os.path.join(HERE, "seeded_run.py"), "torchlet", str(GOLDEN["seed"]),
                          os.path.join(EXAMPLES, script)], check=True, capture_output=True, text=True,
                         env=dict(os.environ, MPLBACKEND="Agg")).stdout
    printed = [f"{e} {loss}" for e, loss in re.findall(r"Epoch \[(\d+)/\d+\], Loss: (\d+\.\d{4})", out)]
    assert printed == GOLDEN["scripts"][script]
    assert "使用设备: cpu" in out or "使用设备: cuda:0" in out
    assert re.search(r"Training time: \d+\.\d\d seconds", out)


def test_scripts_differ_from_the_course_only_in_imports():
    for script in GOLDEN["scripts"]:
        with open(os.path.join(EXAMPLES, script), encoding="utf-8") as f:
            lines = [line for line in f if "torchlet" in line and not line.startswith("#")]
        assert lines == ["import torchlet as torch\n", "import torchlet.nn as nn\n",
                         "import torchlet.optim as optim\n"], script
