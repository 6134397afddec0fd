#!/usr/bin/python3
"""torchlet against PyTorch in one run: the ratios of issue 7's four targets and of issue 6's
overhead settings (the loss read every 1, 10, 100, 200, 1000 epochs or never).

Runs the PyTorch side of each workload in a child process (this script with --worker), the
torchlet side with the bench programs and the CLI, and prints each ratio. Run it with Debian's
/usr/bin/python3 (python3-torch 1.13, CPU); `cmake --build build --target bench` does.
"""
import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MLP_ROWS, MLP_BATCH = 60000, 256
MLP_WIDTHS = (784, 512, 512, 10)
OVERHEAD_INTERVALS = (1, 10, 100, 200, 1000, 0)  # record the loss every N epochs; 0: never


# --- the PyTorch workloads (child processes) -------------------------------------------------

def course_setup(args):
    """The course's data (Iris, 80/20 split with random_state 42, MinMax scaled) and a fresh
    MLP 4-10-3 from seed 0, with its loss and SGD optimizer."""
    import torch
    from torch import nn
    from sklearn.datasets import load_iris
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MinMaxScaler

    torch.set_num_threads(args.threads)
    iris = load_iris()
    X_train, _, y_train, _ = train_test_split(iris.data, iris.target, test_size=0.2,
                                              random_state=42)
    X_train = torch.tensor(MinMaxScaler().fit_transform(X_train), dtype=torch.float32)
    y_train = torch.tensor(y_train, dtype=torch.long)

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 10)
            self.relu = nn.ReLU()
            self.fc2 = nn.Linear(10, 3)

        def forward(self, x):
            return self.fc2(self.relu(self.fc1(x)))

    torch.manual_seed(0)
    model = MLP()
    return (X_train, y_train, model, nn.CrossEntropyLoss(),
            torch.optim.SGD(model.parameters(), lr=0.01))


def course_loop(args, every):
    """The course's training loop (day 34), line for line, with loss.item() every `every`
    epochs (0: never); returns the seconds it took and the recorded losses."""
    X_train, y_train, model, criterion, optimizer = course_setup(args)
    losses = []
    start = time.perf_counter()
    for epoch in range(args.epochs):
        outputs = model(X_train)
        loss = criterion(outputs, y_train)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if every and (epoch + 1) % every == 0:
            losses.append(loss.item())
    seconds = time.perf_counter() - start
    return seconds, losses, loss.item()


def worker_course(args):
    """The course's program (day 34); only the training loop is timed."""
    import torch

    seconds, losses, _ = course_loop(args, 200)
    return {"seconds": seconds, "final_loss": losses[-1] if losses else None,
            "threads": torch.get_num_threads(), "torch": torch.__version__}


def worker_overhead(args):
    """The course's loop once per record interval of `torchlet bench overhead` (loss.item()
    every N epochs, or never), nothing printed: what each synchronisation costs PyTorch."""
    import torch

    runs = []
    for every in OVERHEAD_INTERVALS:
        seconds, losses, final = course_loop(args, every)
        runs.append({"record_every": every, "seconds": seconds, "records": len(losses),
                     "final_loss": final})
    return {"runs": runs, "threads": torch.get_num_threads(), "torch": torch.__version__}


def worker_mlp(args):
    """bench_mlp.cpp's workload: MLP 784-512-512-10, batches of 256, SGD, synthetic data."""
    import torch
    from torch import nn

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    X = torch.rand(MLP_ROWS, MLP_WIDTHS[0])
    y = torch.randint(0, MLP_WIDTHS[-1], (MLP_ROWS,))
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    def step(first):
        loss = nn.functional.cross_entropy(model(X[first:first + MLP_BATCH]),
                                           y[first:first + MLP_BATCH])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    for s in range(5):  # warm-up, as bench_mlp does
        step(s * MLP_BATCH)
    start = time.perf_counter()
    for _ in range(args.epochs):
        for first in range(0, MLP_ROWS, MLP_BATCH):
            loss = step(first)
        loss.item()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "samples_per_s": args.epochs * MLP_ROWS / seconds,
            "threads": torch.get_num_threads()}


# --- running children --------------------------------------------------------------------------

def run_child(cmd, env=None):
    """Runs cmd; returns (stdout, wall seconds). Raises on a non-zero exit."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {err.strip()}")
    return out, wall


def peak_rss_mib(cmd, cwd=None):
    """The peak resident set of one run of cmd, as /usr/bin/time -f %M reports it (KiB).
    Not wait4 from here: a child forked from this Python counts its pre-exec copy of us."""
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], cwd=cwd,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.strip()}")
    return int(proc.stderr.strip().splitlines()[-1]) / 1024.0


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def pytorch_cmd(worker, threads, epochs):
    return [sys.executable, os.path.abspath(__file__), "--worker", worker,
            "--threads", str(threads), "--epochs", str(epochs)]


def pytorch(worker, threads, epochs, passive=False):
    """One PyTorch worker's result. Debian's torch runs its GEMMs in OpenBLAS's own pthread
    pool, which torch.set_num_threads does not size: the environment does, for a fair count.
    passive: OMP_WAIT_POLICY=PASSIVE, so idle OpenMP threads sleep instead of spinning on the
    cores OpenBLAS's threads need (on 2 cores the spinning costs PyTorch about 3x)."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    if passive:
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    out, _ = run_child(pytorch_cmd(worker, threads, epochs), env=env)
    return json_lines(out)[-1]


def verdict(ok):
    return "met" if ok else "MISSED"


# --- the four targets ----------------------------------------------------------------------------

def cli_course_runs(cli, repeats):
    """`torchlet train`'s default run (the course's experiment) on one thread: its training
    seconds as it reports them (--json train_s), `repeats` runs."""
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats):
            proc = subprocess.run([cli, "train", "--json", "--no-plot", "--threads", "1"], cwd=tmp,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                  check=True)
            runs.append(json.loads(proc.stdout))
    return runs


def target_course(args, bench_dir, cli):
    """Target 1, on one thread: PyTorch's default here and its best for tiny ops (two change
    nothing on a quiet machine and, with other work running, its spinning OpenMP threads make
    them up to 15x slower); torchlet never threads work this small. torchlet's side: the
    course's program as a user writes it (eager), the same step through torchlet::compile
    (compiled), nn::FusedMlp by hand (fused), and `torchlet train` (the CLI)."""
    out, _ = run_child([os.path.join(bench_dir, "bench_course"), "--threads", "1",
                        "--repeats", str(args.course_repeats)])
    tl_runs = {r["variant"]: r for r in json_lines(out)}
    if os.access(cli, os.X_OK):
        cli_runs = cli_course_runs(cli, args.course_repeats)
        tl_runs["cli"] = {"runs_s": [r["train_s"] for r in cli_runs],
                          "median_s": statistics.median(r["train_s"] for r in cli_runs),
                          "final_loss": cli_runs[-1]["final_loss"]}
    pt_runs = [pytorch("course", 1, 20000) for _ in range(args.pytorch_repeats)]
    pt_s = statistics.median(r["seconds"] for r in pt_runs)
    result = {"pytorch_s": [r["seconds"] for r in pt_runs], "torchlet": tl_runs}
    print("\ntarget 1: course workload (Iris 4-10-3, 20,000 full-batch epochs, SGD), 1 thread")
    print(f"  PyTorch {pt_runs[0]['torch']} eager   {pt_s:8.3f} s  "
          f"(median of {len(pt_runs)}; final loss {pt_runs[-1]['final_loss']:.4f})")
    targets = {"compiled": 100, "eager": 30, "fused": 100, "cli": 100}
    for variant, target in targets.items():
        if variant not in tl_runs:
            print(f"  torchlet {variant:8}     skipped (no CLI at {cli})")
            continue
        r = tl_runs[variant]
        ratio = pt_s / r["median_s"]
        result[f"ratio_{variant}"] = ratio
        print(f"  torchlet {variant:8}     {r['median_s']:8.4f} s  (median of "
              f"{len(r['runs_s'])}; final loss {r['final_loss']:.4f})  PyTorch / torchlet = "
              f"{ratio:7.1f}x  [>= {target}x: {verdict(ratio >= target)}]")
    return result


def target_mlp(args, bench_dir):
    """Target 2 at args.threads on both sides, against the faster of PyTorch's two settings."""
    out, _ = run_child([os.path.join(bench_dir, "bench_mlp"), "--threads", str(args.threads),
                        "--epochs", str(args.mlp_epochs)])
    tl = json_lines(out)[-1]
    pt = {"default": pytorch("mlp", args.threads, args.mlp_epochs),
          "OMP_WAIT_POLICY=PASSIVE": pytorch("mlp", args.threads, args.mlp_epochs, passive=True)}
    best = max(pt.values(), key=lambda r: r["samples_per_s"])
    ratio = tl["samples_per_s"] / best["samples_per_s"]
    peak = tl["peak_gflops"]
    print(f"\ntarget 2: MLP 784-512-512-10, batch 256, SGD, {args.mlp_epochs} epochs of 60,000 "
          f"rows, {args.threads} threads")
    print(f"  peak FP32 (estimate) {peak:.1f} GFLOP/s = {tl['peak_formula']}; "
          f"{tl['flops_per_sample'] / 1e6:.2f} MFLOP per sample")
    for name, r in pt.items():
        gflops = r["samples_per_s"] * tl["flops_per_sample"] / 1e9
        print(f"  PyTorch ({name:23}) {r['samples_per_s']:7.0f} samples/s  {gflops:6.1f} GFLOP/s "
              f"({100 * gflops / peak:4.1f}% of peak)")
    print(f"  torchlet {'':26}{tl['samples_per_s']:7.0f} samples/s  {tl['gflops']:6.1f} GFLOP/s "
          f"({tl['pct_peak']:4.1f}% of peak)")
    print(f"  torchlet / faster PyTorch = {ratio:.2f}x  [>= 1.0x: {verdict(ratio >= 1.0)}]; "
          f"{tl['pct_peak']:.1f}% of peak  [>= 60%: {verdict(tl['pct_peak'] >= 60)}]")
    return {"torchlet": tl, "pytorch": pt, "ratio": ratio}


def target_rss(cli):
    print("\ntarget 3: peak resident memory (whole process, /usr/bin/time -f %M)")
    with tempfile.TemporaryDirectory() as tmp:  # torchlet train writes loss.svg in its cwd
        tl_rss = peak_rss_mib([cli, "train"], cwd=tmp)
    pt_rss = peak_rss_mib(pytorch_cmd("course", 1, 20000))
    tl_mb = tl_rss * 1.048576  # the target is in MB (10^6 bytes)
    print(f"  PyTorch course program   {pt_rss:7.1f} MiB")
    print(f"  torchlet train           {tl_rss:7.1f} MiB = {tl_mb:.1f} MB  [<= 16 MB: "
          f"{verdict(tl_mb <= 16)}]  PyTorch / torchlet = {pt_rss / tl_rss:.1f}x")
    return {"torchlet_train": tl_rss, "pytorch_course": pt_rss}


def target_info(args, cli):
    print(f"\ntarget 4: torchlet info, wall time of the whole process ({args.info_runs} runs)")
    probe = subprocess.run([cli, "info"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
    if probe.returncode != 0:
        print(f"  skipped: `torchlet info` is not available ({probe.stderr.strip()[:120]})")
        return None
    walls = [run_child([cli, "info"])[1] * 1000 for _ in range(args.info_runs)]
    median = statistics.median(walls)
    print(f"  median {median:.1f} ms (min {min(walls):.1f}, max {max(walls):.1f})  "
          f"[< 50 ms: {verdict(median < 50)}]")
    return walls


def target_overhead(args, cli):
    """The record intervals of `torchlet bench overhead`, PyTorch and torchlet side by side:
    loss.item() every N epochs, nothing printed, one thread on both sides (as target 1)."""
    epochs = args.overhead_epochs
    out, _ = run_child([cli, "bench", "overhead", "--device", "cpu", "--epochs", str(epochs),
                        "--json"], env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    runs = json.loads(out)["results"][0]["runs"]
    tl = {(r["path"], r["record_every"]): r["time_s"] for r in runs
          if r["print_every"] == 0 and r["record"] != "deferred"}
    pt = {r["record_every"]: r["seconds"] for r in pytorch("overhead", 1, epochs)["runs"]}
    print(f"\noverhead: the course's loop with loss.item() every N epochs, nothing printed, "
          f"{epochs:,} epochs, 1 thread")
    print(f"  {'record every':>12} {'PyTorch s':>10} {'eager s':>9} {'ratio':>7} "
          f"{'replay s':>9} {'ratio':>7}")
    rows = []
    for every in OVERHEAD_INTERVALS:
        eager, replay = tl[("eager", every)], tl[("replay", every)]
        rows.append({"record_every": every, "pytorch_s": pt[every], "eager_s": eager,
                     "replay_s": replay, "ratio_eager": pt[every] / eager,
                     "ratio_replay": pt[every] / replay})
        print(f"  {every if every else 'never':>12} {pt[every]:10.3f} {eager:9.4f} "
              f"{pt[every] / eager:6.1f}x {replay:9.4f} {pt[every] / replay:6.1f}x")
    # What one item() adds: the extra time of recording every epoch over never, per record.
    per_sync = {name: (t[1] - t[0]) / epochs * 1e6 for name, t in
                (("PyTorch", pt), ("torchlet eager", {k: tl[("eager", k)] for k in (0, 1)}))}
    print("  extra time per loss.item(), (every 1 - never) / epochs: " +
          ", ".join(f"{name} {us:.2f} us" for name, us in per_sync.items()))
    return {"epochs": epochs, "rows": rows, "per_sync_us": per_sync}


def compare(args):
    bench_dir = args.bench_dir or os.path.join(ROOT, "build", "bench")
    cli = args.torchlet or os.path.join(ROOT, "build", "torchlet")
    load = os.getloadavg()[0]
    print(f"torchlet vs PyTorch; load average {load:.2f}"
          f"{'  (busy machine: figures are noisy)' if load > 1.5 else ''}")
    results = {"threads": args.threads, "load_before": load,
               "course": target_course(args, bench_dir, cli)}
    if args.only == "course":
        print(f"\nload average after: {os.getloadavg()[0]:.2f}")
        return
    results["mlp"] = target_mlp(args, bench_dir)
    if os.access(cli, os.X_OK):
        results["rss_mib"] = target_rss(cli)
        results["info_ms"] = target_info(args, cli)
        if args.overhead_epochs > 0:
            results["overhead"] = target_overhead(args, cli)
    else:
        print(f"\ntargets 3 and 4 and the overhead settings: skipped, no torchlet CLI at {cli} "
              "(pass --torchlet PATH)")
    results["load_after"] = os.getloadavg()[0]
    print(f"\nload average after: {results['load_after']:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=os.cpu_count(),
                   help="threads for both engines on the large MLP (default: the CPUs)")
    p.add_argument("--bench-dir", help="where bench_course and bench_mlp are "
                                       "(default: build/bench)")
    p.add_argument("--torchlet", help="the torchlet CLI (default: build/torchlet)")
    p.add_argument("--course-repeats", type=int, default=5, help="torchlet runs of the course")
    p.add_argument("--pytorch-repeats", type=int, default=1, help="PyTorch runs of the course")
    p.add_argument("--mlp-epochs", type=int, default=2, help="epochs of the large MLP")
    p.add_argument("--info-runs", type=int, default=20)
    p.add_argument("--overhead-epochs", type=int, default=20000,
                   help="epochs of each overhead setting (0: skip them)")
    p.add_argument("--json", help="also write every figure to this JSON file")
    p.add_argument("--only", choices=("course",), help="run only this target")
    p.add_argument("--worker", choices=("course", "mlp", "overhead"), help=argparse.SUPPRESS)
    p.add_argument("--epochs", type=int, default=20000, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        result = {"course": worker_course, "mlp": worker_mlp,
                  "overhead": worker_overhead}[args.worker](args)
        print(json.dumps(result))
        return
    if importlib.util.find_spec("torch") is None:
        sys.exit(f"compare_pytorch.py: {sys.executable} has no torch; run it with Debian's "
                 "/usr/bin/python3 (python3-torch)")
    compare(args)


if __name__ == "__main__":
    main()
