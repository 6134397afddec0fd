#!/usr/bin/python3
"""Large elementwise ops and reductions: torchlet (bench_bandwidth) and PyTorch side by side.

Runs bench/bench_bandwidth, then the same ops on tensors of the same size in PyTorch (in this
process, with the same thread count), and prints for each op the bandwidth each reaches, the
share of the plain-copy ceiling torchlet reaches (issue 14's target: at least 70%) and
PyTorch's time over torchlet's (target: at least 1). Needs Debian's python3-torch, so run it
with /usr/bin/python3. Not a test: ctest never runs it.

Usage: bench/compare_bandwidth.py --bench-dir build/bench [--elements N] [--repeats R]
       [--threads T] [--json FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import time


def median_seconds(repeats, f):
    f()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2]


def pytorch_seconds(elements, repeats, threads):
    import torch
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    cols = 4096
    x = torch.rand(elements // cols, cols)
    y = torch.rand(elements // cols, cols)
    xg = x.clone().requires_grad_()

    def forward_backward(f):
        def run():
            xg.grad = None
            f(xg).backward(y)  # dy = y
        return run

    ops = {
        "clone": lambda: x.clone(),
        "add": lambda: x + y,
        "mul_scalar": lambda: x * 2.0,
        "exp": lambda: torch.exp(x),
        "relu": lambda: torch.relu(x),
        "sigmoid": lambda: torch.sigmoid(x),
        "log": lambda: torch.log(x),
        "tanh": lambda: torch.tanh(x),
        "erf": lambda: torch.erf(x),
        "gelu": lambda: torch.nn.functional.gelu(x),
        "gelu_tanh": lambda: torch.nn.functional.gelu(x, approximate="tanh"),
        "silu": lambda: torch.nn.functional.silu(x),
        "gelu_fwd_bwd": forward_backward(torch.nn.functional.gelu),
        "silu_fwd_bwd": forward_backward(torch.nn.functional.silu),
        "sum": lambda: x.sum(),
        "sum_dim0": lambda: x.sum(0),
        "sum_dim1": lambda: x.sum(1),
        "max": lambda: x.max(),
        "min": lambda: x.min(),
        "mean_dim0": lambda: x.mean(0),
        "argmax_dim1": lambda: x.argmax(1),
    }
    return {name: median_seconds(repeats, f) for name, f in ops.items()}, torch.__version__


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bench-dir", default="build/bench", help="where bench_bandwidth is")
    p.add_argument("--elements", type=int, default=1 << 24)
    p.add_argument("--repeats", type=int, default=9)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--json", help="also write every figure to this JSON file")
    args = p.parse_args()

    cmd = [os.path.join(args.bench_dir, "bench_bandwidth"), "--elements", str(args.elements),
           "--repeats", str(args.repeats), "--threads", str(args.threads)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    meta = rows.pop()
    ceiling = rows.pop(0)
    torch_s, torch_version = pytorch_seconds(args.elements, args.repeats, args.threads)

    print(f"{meta['elements']:.0f} floats per tensor, {meta['threads']} threads; "
          f"PyTorch {torch_version}; load average {os.getloadavg()[0]:.1f}")
    print(f"ceiling: {ceiling['op']}: {ceiling['gbps']:.2f} GB/s")
    print(f"{'op':<13} {'torchlet GB/s':>13} {'PyTorch GB/s':>12} {'of ceiling':>10} "
          f"{'PyTorch/torchlet':>16}")
    results = []
    for row in rows:
        t = torch_s[row["op"]]
        torch_gbps = row["bytes"] / t / 1e9
        share = row["gbps"] / ceiling["gbps"]
        ratio = t / row["seconds"]
        results.append(dict(row, pytorch_seconds=t, pytorch_gbps=torch_gbps, of_ceiling=share,
                            ratio=ratio))
        print(f"{row['op']:<13} {row['gbps']:>13.2f} {torch_gbps:>12.2f} {share:>9.0%} "
              f"{ratio:>15.2f}x")
    met = sum(r["of_ceiling"] >= 0.7 for r in results)
    faster = sum(r["ratio"] >= 1.0 for r in results)
    print(f"at >= 70% of the ceiling: {met} of {len(results)}; "
          f"no slower than PyTorch: {faster} of {len(results)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"ceiling": ceiling, "meta": meta, "ops": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
