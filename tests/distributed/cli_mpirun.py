#!/usr/bin/env python3
"""`torchlet train` under mpirun -np 2 against one process (ctest distributed_cli).

Usage: cli_mpirun.py TORCHLET MPIRUN... -- runs Iris (full batch) and Fashion-MNIST
(mini-batches) both ways and fails unless the 2-rank run ends at the single run's loss (float
tolerance) and test accuracy, rank 0 alone printed its JSON line and wrote the checkpoint, and a
bad input stops both ranks with one message and exit status 2.
"""

import json
import os
import subprocess
import sys
import tempfile


def run(command):
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout, done.stderr


def main(torchlet, mpirun):
    failures = []

    def expect(ok, what):
        print(("ok:   " if ok else "FAIL: ") + what)
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        cases = {
            "iris": ["--data", "iris", "--epochs", "300"],
            "fashion-mnist": ["--data", "fashion-mnist", "--model", "mlp", "--train-limit", "512",
                              "--test-limit", "200", "--epochs", "3", "--batch-size", "64",
                              "--optimizer", "sgd", "--lr", "0.1", "--momentum", "0.9"],
        }
        for name, args in cases.items():
            common = [torchlet, "train", "--json", "--no-plot"] + args
            save = name == "iris"
            one_file, two_file = os.path.join(tmp, "one.st"), os.path.join(tmp, "two.st")
            rc1, out1, err1 = run(common + (["--save", one_file] if save else []))
            rc2, out2, err2 = run(mpirun + common + (["--save", two_file] if save else []))
            expect(rc1 == 0 and rc2 == 0, f"{name}: both runs succeed ({rc1}, {rc2}) {err2[-300:]}")
            if rc1 or rc2:
                continue
            lines = [line for line in out2.splitlines() if line.startswith("{")]
            expect(len(lines) == 1, f"{name}: one JSON line from 2 ranks (got {len(lines)})")
            one, two = json.loads(out1.splitlines()[-1]), json.loads(lines[0])
            rel = abs(one["final_loss"] - two["final_loss"]) / one["final_loss"]
            expect(rel < 1e-4, f"{name}: final loss {two['final_loss']} vs one process "
                               f"{one['final_loss']} (relative {rel:.2e})")
            # A prediction near a class boundary may flip with float rounding: 4 of 200 images.
            expect(abs(one["test_acc"] - two["test_acc"]) <= 0.02,
                   f"{name}: test accuracy {two['test_acc']} vs {one['test_acc']}")
            expect(one["ranks"] == 1 and one["comm_wait_s"] == 0 and two["ranks"] == 2
                   and 0 < two["comm_wait_s"] < two["train_s"],
                   f"{name}: ranks and all-reduce wait {one['ranks']}/{one['comm_wait_s']} and "
                   f"{two['ranks']}/{two['comm_wait_s']} (training {two['train_s']} s)")
            expect("ranks:     2, all-reduce wait " in err2, f"{name}: the text names the ranks' wait")
            if save:
                expect(os.path.exists(two_file), f"{name}: rank 0 wrote the checkpoint")
        rc, out, err = run(mpirun + [torchlet, "train", "--data", os.path.join(tmp, "none.csv")])
        messages = [line for line in err.splitlines() if line.startswith("torchlet:")]
        expect(rc == 2, f"bad input: exit status 2 (got {rc})")
        expect(len(messages) == 1, f"bad input: one message (got {messages})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
