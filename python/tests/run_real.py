"""Runs one program of examples/real/ unchanged through `python3 -m torchlet` and, where
Debian's python3-torch is installed, through PyTorch itself, each in a scratch folder, and
compares what they print: the text with every number blanked must be the same, and each
number equal within a tolerance (default 1e-5, relative or absolute).

    run_real.py PROGRAM [--torchlet-only]

A program may say how it is compared in comment lines of its own (no torchlet-specific line
is needed, or allowed, in its code):
    # real: tolerance 1e-4        numbers equal within 1e-4 instead of 1e-5
    # real: mpirun 2              run under `mpirun -np 2` (both sides)
    # real: text only             compare the text only (the numbers are not seeded)
Exit 0 when both ran and agree, 1 with the first difference otherwise."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|\bnan\b|\binf\b")
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def directives(path):
    found = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            match = re.match(r"#\s*real:\s*(\w[\w ]*?)\s*([-+.\deE]*)\s*$", line)
            if match:
                found[match.group(1)] = match.group(2)
    return found


def has_torch():
    probe = subprocess.run([PYTHON, "-c", "import torch"], capture_output=True,
                           env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    return probe.returncode == 0


def run(program, use_torchlet, ranks):
    """Runs program in a fresh scratch folder; returns its stdout (exit status checked)."""
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONHASHSEED="0")
    if not use_torchlet:
        env.pop("PYTHONPATH", None)
    command = [PYTHON, "-m", "torchlet", program] if use_torchlet else [PYTHON, program]
    if ranks:
        mpirun = ["mpirun", "-np", ranks, "--oversubscribe", "--allow-run-as-root"]
        command = mpirun + ["-x", "PYTHONPATH"] * ("PYTHONPATH" in env) + command
    with tempfile.TemporaryDirectory(prefix="real-") as scratch:
        shutil.copy(program, scratch)
        done = subprocess.run(command, cwd=scratch, env=env, capture_output=True, text=True, timeout=1200)
    who = "torchlet" if use_torchlet else "PyTorch"
    if done.returncode != 0:
        sys.exit(f"{os.path.basename(program)} failed on {who} (exit {done.returncode}):\n{done.stderr[-4000:]}")
    return done.stdout


def compare(ours, theirs, tolerance, text_only):
    """The first difference between two outputs, or None."""
    if NUMBER.sub("#", ours) != NUMBER.sub("#", theirs):
        for i, (a, b) in enumerate(zip(ours.splitlines(), theirs.splitlines())):
            if NUMBER.sub("#", a) != NUMBER.sub("#", b):
                return f"line {i + 1} differs:\n  torchlet: {a}\n  PyTorch:  {b}"
        return f"torchlet printed {len(ours.splitlines())} lines, PyTorch {len(theirs.splitlines())}"
    if text_only:
        return None
    for i, (a, b) in enumerate(zip(ours.splitlines(), theirs.splitlines())):
        for x, y in zip(NUMBER.findall(a), NUMBER.findall(b)):
            fx, fy = float(x), float(y)
            if not (fx == fy or abs(fx - fy) <= tolerance * max(1.0, abs(fy))):
                return f"line {i + 1}: {x} against PyTorch's {y} (tolerance {tolerance}):\n  {a}\n  {b}"
    return None


def main(argv):
    program = os.path.abspath(argv[0])
    options = directives(program)
    ranks = options.get("mpirun")
    ours = run(program, True, ranks)
    print(ours, end="")
    if "--torchlet-only" in argv or not has_torch():
        print(f"(not compared: {'asked' if '--torchlet-only' in argv else 'PyTorch is not installed'})")
        return 0
    theirs = run(program, False, ranks)
    difference = compare(ours, theirs, float(options.get("tolerance") or 1e-5), "text only" in options)
    if difference:
        print(f"{os.path.basename(program)}: {difference}", file=sys.stderr)
        return 1
    print(f"same as PyTorch's output ({len(NUMBER.findall(theirs))} numbers)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
