"""The PyTorch Quickstart model (Flatten, 784-512-512-10 with ReLU, SGD lr 1e-3, batches of 64,
cross-entropy) trained on Fashion-MNIST (Debian's /usr/share/datasets/fashion-mnist) from
Python: PyTorch's loop, the same loop on torchlet, and torchlet.train (the library's loop) at
the same thread count, on the same shuffled batches. Prints seconds per epoch (extrapolated
from --batches batches; the least of --repeats rounds, the libraries taking turns), the last
batch loss of each, and the ratios PyTorch / torchlet.

Usage: scripts/python python/bench/bench_fashion.py [--threads N] [--batches B] [--repeats R]"""

import argparse
import gzip
import os
import time

import numpy as np

DATA = "/usr/share/datasets/fashion-mnist"
BATCH = 64


def load_images():
    with gzip.open(os.path.join(DATA, "train-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)
    with gzip.open(os.path.join(DATA, "train-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    return (images / np.float32(255)).astype(np.float32), labels.astype(np.int64)


def model_of(lib):
    lib.manual_seed(0)
    nn = lib.nn
    return nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                         nn.Linear(512, 10))


def python_loop(lib, x, y, order, batches):
    """The Quickstart's train(): forward, loss, backward, step, zero_grad per batch."""
    model = model_of(lib)
    loss_fn = lib.nn.CrossEntropyLoss()
    optimizer = lib.optim.SGD(model.parameters(), lr=1e-3)
    X, Y = lib.tensor(x), lib.tensor(y)
    index = [lib.tensor(order[i * BATCH:(i + 1) * BATCH]) for i in range(batches)]
    start = time.perf_counter()
    for idx in index:
        loss = loss_fn(model(X[idx]), Y[idx])
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    last = loss.item()
    return time.perf_counter() - start, last


def library_loop(torchlet, x, y, order, batches):
    """torchlet.train over the same rows (its own shuffle of them, batch_size 64)."""
    model = model_of(torchlet)
    optimizer = torchlet.optim.SGD(model.parameters(), lr=1e-3)
    rows = order[:batches * BATCH]
    X, Y = torchlet.tensor(x[rows]), torchlet.tensor(y[rows])
    start = time.perf_counter()
    result = torchlet.train(model, optimizer, X, Y, epochs=1, batch_size=BATCH, execution="eager")
    return time.perf_counter() - start, result.final_loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batches", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    import torch

    import torchlet

    torch.set_num_threads(args.threads)
    torchlet.set_num_threads(args.threads)
    x, y = load_images()
    order = np.random.default_rng(0).permutation(len(y))
    per_epoch = len(y) / BATCH / args.batches
    best = {}
    for _ in range(args.repeats):
        for name, run in (("torch", lambda: python_loop(torch, x, y, order, args.batches)),
                          ("torchlet", lambda: python_loop(torchlet, x, y, order, args.batches)),
                          ("torchlet.train", lambda: library_loop(torchlet, x, y, order, args.batches))):
            seconds, loss = run()
            if name not in best or seconds < best[name][0]:
                best[name] = (seconds, loss)
    print(f"Fashion-MNIST Quickstart (784-512-512-10, SGD 1e-3, batch {BATCH}), {args.threads} thread(s), "
          f"{args.batches} batches, best of {args.repeats}; PyTorch {torch.__version__}")
    reference = best["torch"][0]
    for name, (seconds, loss) in best.items():
        print(f"{name:15s} {seconds * per_epoch:7.2f} s/epoch   last batch loss {loss:.4f}   "
              f"ratio {reference / seconds:5.2f}x")


if __name__ == "__main__":
    main()
