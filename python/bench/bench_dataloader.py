"""A small CNN's training step fed by DataLoader on Fashion-MNIST (Debian's IDX files), torchlet
against PyTorch with the same settings: shuffled batches of 64 from a per-sample Dataset (each
read makes a normalised 1x28x28 tensor, as torchvision's FashionMNIST with ToTensor and
Normalize does) or from a TensorDataset, with num_workers 0 and 2. Each step times the wait for
its batch (next() on the loader's iterator) and the step (forward, cross-entropy, backward,
SGD step, loss.item()). After --warm steps it reports the median step, the median wait and the
main thread's CPU time in it (the loader's own work: the rest of a wait is for the workers or a
core), the largest wait, and how many steps waited longer than a tenth of the median step: none
means the loader keeps the step fed. Each configuration runs in a fresh interpreter.

Usage: scripts/python python/bench/bench_dataloader.py [--steps N] [--warm W] [--threads T]"""

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

DATA = "/usr/share/datasets/fashion-mnist"
BATCH = 64


def load(samples):
    with gzip.open(os.path.join(DATA, "train-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)[:samples]
    with gzip.open(os.path.join(DATA, "train-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)[:samples].astype(np.int64)
    return images, labels


def dataset_of(lib, kind, images, labels):
    if kind == "tensors":
        x = lib.from_numpy(((images / np.float32(255) - 0.2860) / 0.3530).astype(np.float32))
        return lib.utils.data.TensorDataset(x, lib.from_numpy(labels))

    class FashionMNIST(lib.utils.data.Dataset):
        def __len__(self):
            return len(labels)

        def __getitem__(self, i):
            image = lib.from_numpy(images[i].astype(np.float32))
            return (image / 255 - 0.2860) / 0.3530, int(labels[i])

    return FashionMNIST()


def model_of(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1),
                         nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 7 * 7, 10))


def child(lib_name, kind, workers, steps, warm, threads):
    """One configuration: per-step (wait, step, the main thread's CPU time in the wait) seconds
    as JSON on stdout."""
    lib = __import__(lib_name)
    lib.set_num_threads(threads)
    lib.manual_seed(0)
    images, labels = load((steps + warm) * BATCH)
    loader = lib.utils.data.DataLoader(dataset_of(lib, kind, images, labels), batch_size=BATCH, shuffle=True,
                                       num_workers=workers)
    model = model_of(lib)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = lib.nn.CrossEntropyLoss()
    batches = iter(loader)
    times = []
    for _ in range(steps + warm):
        start, cpu = time.perf_counter(), time.thread_time()
        x, y = next(batches)
        fed, cpu = time.perf_counter(), time.thread_time() - cpu
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        last = loss.item()
        times.append((fed - start, time.perf_counter() - fed, cpu))
    print(json.dumps({"times": times[warm:], "last_loss": last}))


def summary(times):
    waits, steps = [t[0] for t in times], [t[1] for t in times]
    step = statistics.median(steps)
    return {"step_ms": 1e3 * step, "wait_ms": 1e3 * statistics.median(waits), "max_wait_ms": 1e3 * max(waits),
            "cpu_ms": 1e3 * statistics.median(t[2] for t in times), "waited": sum(w > step / 10 for w in waits),
            "images_s": BATCH / statistics.median([t[0] + t[1] for t in times])}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--warm", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--child", nargs=3)
    args = parser.parse_args()
    if args.child:
        lib, kind, workers = args.child
        return child(lib, kind, int(workers), args.steps, args.warm, args.threads)

    print(f"{args.steps} steps after {args.warm} warm-up steps, batches of {BATCH}, {args.threads} compute thread(s), "
          f"load average {os.getloadavg()[0]:.1f}")
    print("| dataset | workers | library | step (median) | wait (median) | its CPU (median) | wait (max) "
          "| steps waiting > step/10 | images/s | last loss |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for kind in ("per-sample", "tensors"):
        for workers in (0, 2):
            for lib in ("torchlet", "torch"):
                out = subprocess.run([sys.executable, __file__, "--steps", str(args.steps), "--warm", str(args.warm),
                                      "--threads", str(args.threads), "--child", lib, kind, str(workers)],
                                     check=True, capture_output=True, text=True).stdout
                result = json.loads(out)
                s = summary(result["times"])
                print(f"| {kind} | {workers} | {'PyTorch' if lib == 'torch' else lib} | {s['step_ms']:.2f} ms | "
                      f"{s['wait_ms']:.3f} ms | {s['cpu_ms']:.3f} ms | {s['max_wait_ms']:.2f} ms | "
                      f"{s['waited']} of {args.steps} | "
                      f"{s['images_s']:.0f} | {result['last_loss']:.4f} |", flush=True)


if __name__ == "__main__":
    main()
