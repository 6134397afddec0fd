#!/usr/bin/python3
"""torchlet against PyTorch on this machine's GPU, the two ratios of the CUDA issue.

1. The course's workload (Iris, MLP 4-10-3, SGD lr 0.01, 20,000 full-batch epochs, the loss read
   every 200): PyTorch eager on cuda:0 (model(x), loss, backward, step, loss.item() when
   recording) against `torchlet train --device cuda` (and torchlet on the CPU of the same
   machine). Target: torchlet's time at most 1/50 of PyTorch's, and no slower than its CPU run.
2. A large MLP 784-4096-4096-10, batch 4096, fp32, synthetic data: PyTorch eager samples/s
   against bench_mlp --device cuda. Target: at least PyTorch's throughput.

Usage: gpu_compare.py --torchlet build/torchlet --bench-dir build/bench [--epochs N]
Prints one line per measurement and the ratios; --json FILE writes them all.
"""
import argparse
import json
import subprocess
import sys
import time


def pytorch_course(epochs, record_every):
    import torch
    from sklearn.datasets import load_iris
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MinMaxScaler

    iris = load_iris()
    x_train, _, y_train, _ = train_test_split(iris.data, iris.target, test_size=0.2,
                                              random_state=42)
    x_train = MinMaxScaler().fit_transform(x_train)
    device = torch.device("cuda:0")
    x = torch.FloatTensor(x_train).to(device)
    y = torch.LongTensor(y_train).to(device)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 10), torch.nn.ReLU(),
                                torch.nn.Linear(10, 3)).to(device)
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    losses = []
    torch.cuda.synchronize()
    start = time.perf_counter()
    for epoch in range(epochs):
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if (epoch + 1) % record_every == 0:
            losses.append(loss.item())
    torch.cuda.synchronize()
    return time.perf_counter() - start, losses[-1]


def pytorch_mlp(widths, batch, steps):
    import torch
    device = torch.device("cuda:0")
    torch.manual_seed(0)
    rows = 60000
    x = torch.rand(rows, widths[0], device=device)
    y = torch.randint(0, widths[-1], (rows,), device=device)
    layers = []
    for i in range(len(widths) - 1):
        if i:
            layers.append(torch.nn.ReLU())
        layers.append(torch.nn.Linear(widths[i], widths[i + 1]))
    model = torch.nn.Sequential(*layers).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = torch.nn.CrossEntropyLoss()

    def step(k):
        first = (k * batch) % (rows - batch + 1)
        loss = criterion(model(x[first:first + batch]), y[first:first + batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    for k in range(5):
        step(k)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for k in range(steps):
        loss = step(k)
    loss.item()
    seconds = time.perf_counter() - start
    return steps * batch / seconds


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--torchlet", required=True)
    p.add_argument("--bench-dir", required=True)
    p.add_argument("--epochs", type=int, default=20000)
    p.add_argument("--json", help="write the results here")
    a = p.parse_args()
    results = {}

    t_torch, loss_torch = pytorch_course(a.epochs, 200)
    print(f"course  PyTorch eager cuda:0      {t_torch:8.3f} s  (final loss {loss_torch:.4f})")
    runs = {
        "cuda": ["--device", "cuda"],
        "cuda_eager_graph": ["--device", "cuda", "--eager", "--graph"],
        "cuda_eager": ["--device", "cuda", "--eager", "--no-graph"],
        "cpu": ["--device", "cpu"],
    }
    for name, extra in runs.items():
        r = run_json([a.torchlet, "train", "--json", "--no-plot", "--epochs", str(a.epochs)] + extra)
        results[f"course_torchlet_{name}_s"] = r["train_s"]
        print(f"course  torchlet {name:<17} {r['train_s']:8.3f} s  (final loss "
              f"{r['final_loss']:.4f}, test accuracy {r['test_acc']:.4f})")
    results["course_pytorch_cuda_s"] = t_torch
    ratio = t_torch / results["course_torchlet_cuda_s"]
    results["course_ratio"] = ratio
    print(f"course  ratio PyTorch GPU / torchlet GPU: {ratio:.1f}x (target >= 50x: "
          f"{'met' if ratio >= 50 else 'NOT met'}); torchlet GPU vs CPU: "
          f"{results['course_torchlet_cpu_s'] / results['course_torchlet_cuda_s']:.2f}x "
          f"(target >= 1: "
          f"{'met' if results['course_torchlet_cuda_s'] <= results['course_torchlet_cpu_s'] else 'NOT met'})")

    widths, batch = [784, 4096, 4096, 10], 4096
    steps = 60
    torch_sps = pytorch_mlp(widths, batch, steps)
    r = run_json([f"{a.bench_dir}/bench_mlp", "--device", "cuda", "--layers",
                  ",".join(map(str, widths)), "--batch", str(batch), "--epochs", "4"])
    results["mlp_pytorch_samples_per_s"] = torch_sps
    results["mlp_torchlet_samples_per_s"] = r["samples_per_s"]
    ratio = r["samples_per_s"] / torch_sps
    results["mlp_ratio"] = ratio
    print(f"mlp     784-4096-4096-10 batch 4096: PyTorch {torch_sps:,.0f} samples/s, torchlet "
          f"{r['samples_per_s']:,.0f} samples/s ({r['gflops']:.0f} GFLOP/s): {ratio:.2f}x "
          f"(target >= 1: {'met' if ratio >= 1 else 'NOT met'})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
