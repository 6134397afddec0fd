"""`python3 -m torchlet prog.py`: a PyTorch program runs unchanged with `import torch` and
every torch.X resolving to torchlet's modules; what torchlet lacks stops the program with one
line naming the PyTorch API (exit 2); the program's own errors keep their traceback."""

import os
import subprocess
import sys

import pytest


def run(tmp_path, source, *args):
    program = tmp_path / "prog.py"
    program.write_text(source)
    return subprocess.run([sys.executable, "-m", "torchlet", str(program), *args], cwd=tmp_path,
                          capture_output=True, text=True)


def test_torch_and_its_modules_are_torchlets(tmp_path):
    done = run(tmp_path, "import sys, torch, torch.nn as nn, torch.nn.functional as F, torch.optim\n"
                         "from torch.utils.data import DataLoader\n"
                         "import torchlet\n"
                         "assert torch is torchlet and nn is torchlet.nn and F is torchlet.nn.functional\n"
                         "assert sys.modules['torch.optim'] is torchlet.optim\n"
                         "print(sys.argv[1:], __name__, F.relu(torch.tensor([-1.0, 2.0])).tolist())\n", "a", "--b")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "['a', '--b'] __main__ [0.0, 2.0]\n"


@pytest.mark.parametrize("line, api", [
    ("torch.nn.NoSuchLayer(3)", "torch.nn.NoSuchLayer"),
    ("import torch.no_such_module", "torch.no_such_module"),
    ("from torch.nn import NoSuchLayer", "torch.nn.NoSuchLayer"),
    ("torch.ones(2).no_such_method()", "torch.Tensor.no_such_method"),
    ("torch.no_such_function(1)", "torch.no_such_function"),
])
def test_what_torchlet_lacks_stops_with_one_line_naming_it(tmp_path, line, api):
    done = run(tmp_path, f"import torch\nx = 1\n{line}\n")
    assert done.returncode == 2
    assert done.stderr == f"torchlet: prog.py:3: torchlet does not have {api} yet\n"


def test_a_program_may_catch_the_missing_module_as_an_import_error(tmp_path):
    done = run(tmp_path, "try:\n    import torch.no_such_module\nexcept ImportError as e:\n    print('fallback')\n")
    assert (done.returncode, done.stdout) == (0, "fallback\n")


def test_the_programs_own_error_keeps_its_traceback_without_the_runners_frames(tmp_path):
    done = run(tmp_path, "import torch\ndef f():\n    return 1 / 0\nf()\n")
    assert done.returncode == 1
    assert done.stderr.startswith("Traceback (most recent call last):\n  File \"")
    assert "runpy" not in done.stderr and "__main__.py" not in done.stderr
    assert done.stderr.rstrip().endswith("ZeroDivisionError: division by zero")


def test_exit_status_and_system_exit_are_the_programs(tmp_path):
    assert run(tmp_path, "import sys\nsys.exit(7)\n").returncode == 7


def test_module_and_code_forms(tmp_path):
    (tmp_path / "mod.py").write_text("import torch\nprint(torch.__name__)\n")
    done = subprocess.run([sys.executable, "-m", "torchlet", "-m", "mod"], cwd=tmp_path, capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "torchlet\n"), done.stderr
    done = subprocess.run([sys.executable, "-m", "torchlet", "-c", "import torch; print(torch.ones(2).sum().item())"],
                          capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "2.0\n"), done.stderr


def test_bad_command_lines_exit_two(tmp_path):
    done = subprocess.run([sys.executable, "-m", "torchlet", str(tmp_path / "absent.py")], capture_output=True,
                          text=True)
    assert done.returncode == 2 and "Expected a Python program file, but it does not exist" in done.stderr
    assert subprocess.run([sys.executable, "-m", "torchlet"], capture_output=True).returncode == 2


def test_install_as_torch_is_for_this_process_only():
    code = ("import sys, torchlet; assert 'torch' not in sys.modules; torchlet.install_as_torch(); import torch; "
            "import torch.nn; assert torch.nn.Linear is torchlet.nn.Linear; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout == "ok\n", done.stderr
    package = os.path.dirname(__import__("torchlet").__file__)
    assert not os.path.exists(os.path.join(os.path.dirname(package), "torch"))
