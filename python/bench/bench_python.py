"""torchlet from Python against Debian's PyTorch on the same machine, at the same thread
count: import time, per-op overhead (a 1-element add, .item()), and the course's improved
Iris script (examples/python/iris_every_200.py) as written (eager) and with its step wrapped
in torchlet.compile. Prints each figure (the least of --repeats runs) and the ratio
PyTorch / torchlet.

Usage: scripts/python python/bench/bench_python.py [--threads N] [--repeats R]"""

import argparse
import os
import re
import subprocess
import sys
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
SCRIPT = os.path.join(ROOT, "examples", "python", "iris_every_200.py")
SEEDED_RUN = os.path.join(ROOT, "python", "tests", "seeded_run.py")


def import_seconds(modules, repeats):
    """The least time of `import module` timed inside a fresh interpreter (its own start-up
    left out, not subtracted: on a loaded machine the difference of two noisy start-ups was
    meaningless, even negative); the modules take turns in each round."""
    best = {}
    for _ in range(repeats):
        for m in modules:
            code = f"import time; t = time.perf_counter(); import {m}; print(time.perf_counter() - t)"
            out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
            best[m] = min(best.get(m, float("inf")), float(out))
    return [best[m] for m in modules]


def op_seconds(libs, repeats):
    """Per call of a 1-element add and of .item(), least of `repeats` rounds of 5,000 calls;
    the libraries take turns within each round, so that both see the same load."""
    n = 5000
    best = {}
    for _ in range(repeats):
        for lib in libs:
            a, b = lib.ones(1), lib.ones(1)
            for name, call in (("add", lambda: a + b), ("item", lambda: a.item())):
                t = timeit.timeit(call, number=n) / n
                best[lib, name] = min(best.get((lib, name), t), t)
    return best


def script_seconds(engine, threads):
    env = dict(os.environ, MPLBACKEND="Agg", OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    out = subprocess.run([sys.executable, SEEDED_RUN, engine, "0", SCRIPT], check=True, capture_output=True,
                         text=True, env=env).stdout
    return float(re.search(r"Training time: ([\d.]+) seconds", out).group(1))


def compiled_seconds():
    """The script's training loop, its step wrapped in torchlet.compile (the loss is still read
    every 200 epochs, outside the step)."""
    import time

    import numpy as np
    from sklearn.datasets import load_iris
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MinMaxScaler

    import torchlet as torch
    import torchlet.nn as nn
    import torchlet.optim as optim

    X, y = load_iris(return_X_y=True)
    X_train, _, y_train, _ = train_test_split(X, y, test_size=0.2, random_state=42)
    X_train = torch.FloatTensor(MinMaxScaler().fit_transform(X_train))
    y_train = torch.LongTensor(y_train)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 10), nn.ReLU(), nn.Linear(10, 3))
    criterion, optimizer = nn.CrossEntropyLoss(), optim.SGD(model.parameters(), lr=0.01)

    @torch.compile
    def step():
        outputs = model(X_train)
        loss = criterion(outputs, y_train)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    losses = []
    start = time.time()
    for epoch in range(20000):
        loss = step()
        if (epoch + 1) % 200 == 0:
            losses.append(loss.item())
    elapsed = time.time() - start
    return elapsed, np.round(losses[-1], 4), step.fused


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    import torch

    import torchlet

    torch.set_num_threads(args.threads)
    torchlet.set_num_threads(args.threads)
    print(f"torchlet from Python vs PyTorch {torch.__version__}, {args.threads} thread(s), best of {args.repeats}")

    ours, theirs = import_seconds(["torchlet", "torch"], args.repeats)
    print(f"import:                 torchlet {ours * 1e3:8.1f} ms   PyTorch {theirs * 1e3:8.1f} ms   ratio {theirs / ours:6.1f}x")
    ops = op_seconds([torchlet, torch], max(args.repeats, 7))
    for name, label in (("add", "1-element add:         "), ("item", ".item():               ")):
        ours, theirs = ops[torchlet, name], ops[torch, name]
        print(f"{label} torchlet {ours * 1e9:8.0f} ns   PyTorch {theirs * 1e9:8.0f} ns   ratio {theirs / ours:6.1f}x")
    # Each timing is the least of --repeats runs (the engines take turns), as for import and the ops:
    # on this shared machine one run of a few hundred milliseconds can be 40% slower than the next.
    eager, reference = float("inf"), float("inf")
    for _ in range(args.repeats):
        eager = min(eager, script_seconds("torchlet", args.threads))
        reference = min(reference, script_seconds("torch", args.threads))
    print(f"iris_every_200 eager:   torchlet {eager:8.2f} s    PyTorch {reference:8.2f} s    ratio {reference / eager:6.1f}x")
    compiled, last_loss, fused = min(compiled_seconds() for _ in range(args.repeats))
    print(f"iris_every_200 compile: torchlet {compiled:8.3f} s    PyTorch {reference:8.2f} s    ratio {reference / compiled:6.1f}x"
          f"   (last loss {last_loss:.4f}, fused replay: {fused})")


if __name__ == "__main__":
    main()
