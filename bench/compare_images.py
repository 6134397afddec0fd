#!/usr/bin/python3
"""torchlet against PyTorch training the image MLP and CNN (issue 9), images per second.

For each device (the CPU, and cuda:0 when torch.cuda.is_available()), each model and batch size:
`torchlet bench images --json` and the same workload in PyTorch, each in its own child process
(this script with --worker): the models of include/torchlet/train/models.h built with torch.nn,
Adam lr 1e-3, one synthetic batch of 1x28x28 images and labels in [0, 10) made once on the
device, the same warm-up steps, then timed steps (zero_grad, forward, cross_entropy, backward,
step) until --steps or --cell-seconds (at least 3 steps), synchronised before the clock is read.
Both engines get the same CPU threads; on the CPU PyTorch runs twice, as it comes and with
OMP_WAIT_POLICY=PASSIVE, and each cell counts its faster run (see child_env). Prints a table with
the ratio torchlet / PyTorch and, for the GPU, each engine's speed-up over its CPU run; --json
FILE writes every figure. Run it with
Debian's /usr/bin/python3 (python3-torch); `cmake --build build --target bench-images` does.
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time

SIDE, CLASSES = 28, 10
MIN_TIMED_STEPS = 3


# --- the PyTorch side (a child process) ----------------------------------------------------

def build_model(name):
    """src/train/models.cpp's nn::make_image_model(name, {256, 128}, 1, 28, 28, 10) in torch.nn."""
    from torch import nn

    if name == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(SIDE * SIDE, 256), nn.ReLU(),
                             nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, CLASSES))
    return nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(64 * (SIDE // 4) ** 2, 128), nn.ReLU(),
                         nn.Linear(128, CLASSES))


def worker(args):
    """Every (model, batch) cell on args.device, timed as bench_images.cpp times them."""
    import torch

    torch.set_num_threads(args.threads)
    device = torch.device(args.device)

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    cells = []
    for name in args.models:
        for batch in args.batches:
            torch.manual_seed(0)
            x = torch.rand(batch, 1, SIDE, SIDE, device=device)
            y = torch.randint(0, CLASSES, (batch,), device=device)
            model = build_model(name).to(device)
            adam = torch.optim.Adam(model.parameters(), lr=args.lr)

            def step():
                adam.zero_grad(set_to_none=True)  # torchlet's default, and torch 2's
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                adam.step()
                return loss

            for _ in range(args.warmup):
                step()
            sync()
            at_least = min(MIN_TIMED_STEPS, args.steps)
            steps = 0
            start = time.perf_counter()
            while steps < args.steps:
                loss = step()
                steps += 1
                if steps >= at_least and time.perf_counter() - start >= args.cell_seconds:
                    break
            sync()
            seconds = time.perf_counter() - start
            cells.append({"device": args.device, "model": name, "batch": batch, "steps": steps,
                          "seconds": seconds, "images_per_s": steps * batch / seconds,
                          "ms_per_step": seconds / steps * 1e3, "final_loss": loss.item()})
    return {"torch": torch.__version__, "threads": torch.get_num_threads(), "results": cells}


# --- running both sides ----------------------------------------------------------------------

PYTORCH_SETTINGS = {"default": {}, "passive": {"OMP_WAIT_POLICY": "PASSIVE"}}


def child_env(threads, setting="default"):
    """Debian's torch runs its GEMMs in OpenBLAS's own pthread pool, as torchlet does, which
    torch.set_num_threads does not size: the environment does, for both engines. "passive":
    idle OpenMP threads sleep instead of spinning on the cores OpenBLAS's threads need (on a
    busy 2-core machine the spinning makes PyTorch many times slower)."""
    return dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
                **PYTORCH_SETTINGS[setting])


def workload_args(args):
    return ["--models", ",".join(args.models), "--batches", ",".join(map(str, args.batches)),
            "--steps", str(args.steps), "--warmup", str(args.warmup),
            "--cell-seconds", str(args.cell_seconds), "--lr", str(args.lr)]


def run_torchlet(args, cli, device):
    """`torchlet bench images` on one device: its JSON, or None and why when it refused."""
    proc = subprocess.run([cli, "bench", "images", "--device", device, "--json",
                           *workload_args(args)], env=child_env(args.threads),
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return None, proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else \
            f"exit status {proc.returncode}"
    return json.loads(proc.stdout), None


def run_pytorch(args, device, setting):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--device", device,
           "--threads", str(args.threads), *workload_args(args)]
    proc = subprocess.run(cmd, env=child_env(args.threads, setting), capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"the PyTorch worker on {device} exited {proc.returncode}: "
                           f"{proc.stderr.strip()}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def rates(results):
    return {(r["model"], r["batch"]): r["images_per_s"] for r in results}


def best_rates(runs):
    """Per cell, the faster of PyTorch's runs and which setting it was: {key: (rate, name)}."""
    best = {}
    for setting, run in runs.items():
        for key, rate in rates(run["results"]).items():
            if key not in best or rate > best[key][0]:
                best[key] = (rate, setting)
    return best


def fmt_rate(value):
    return f"{value:,.0f}" if value else "-"


def fmt_x(value):
    return f"{value:.2f}x" if value else ""


def print_settings(args, results, torch_version):
    first = next((r for r in results["torchlet"].values() if "results" in r), None)
    pt_threads = results["pytorch"]["cpu"]["default"]["threads"]
    print(f"\nAdam lr {args.lr}; per cell {args.warmup} warm-up steps, then up to {args.steps} "
          f"timed steps or {args.cell_seconds} s (at least {min(MIN_TIMED_STEPS, args.steps)}); "
          f"{args.threads} CPU threads (torchlet reports {first['threads'] if first else '?'}, "
          f"PyTorch {pt_threads}); PyTorch {torch_version}")
    if len(results["pytorch"]["cpu"]) > 1:
        print("  PyTorch on the CPU: the faster per cell of its default run and one with "
              "OMP_WAIT_POLICY=PASSIVE (column 'PyTorch run')")
    for name in args.models if first else []:
        m = first["models"][name]
        print(f"  {name}: {m['description']} ({m['parameters']:,} parameters)")


def ratio(a, b):
    return a / b if a and b else None


def table(args, devices, results):
    """Prints the table; returns its rows."""
    tl_rates = {d: rates(results["torchlet"][d].get("results", [])) for d in devices}
    pt_best = {d: best_rates(results["pytorch"][d]) for d in devices}
    gpu = len(devices) > 1  # the speed-up columns only when there is a GPU
    print(f"\n  {'device':<7} {'model':<5} {'batch':>6} {'torchlet img/s':>15} "
          f"{'PyTorch img/s':>14} {'PyTorch run':>11} {'torchlet/PyTorch':>17}"
          + (f" {'GPU/CPU torchlet':>17} {'GPU/CPU PyTorch':>16}" if gpu else ""))
    rows = []
    for device in devices:
        for name in args.models:
            for batch in args.batches:
                key = (name, batch)
                tl = tl_rates[device].get(key)
                pt, setting = pt_best[device].get(key, (None, ""))
                row = {"device": device, "model": name, "batch": batch,
                       "torchlet_images_per_s": tl, "pytorch_images_per_s": pt,
                       "pytorch_run": setting, "ratio": ratio(tl, pt),
                       "torchlet_speedup_vs_cpu": None, "pytorch_speedup_vs_cpu": None}
                if device != "cpu":
                    row["torchlet_speedup_vs_cpu"] = ratio(tl, tl_rates["cpu"].get(key))
                    row["pytorch_speedup_vs_cpu"] = ratio(pt, pt_best["cpu"].get(key, (0,))[0])
                rows.append(row)
                line = (f"  {device:<7} {name:<5} {batch:>6} {fmt_rate(tl):>15} "
                        f"{fmt_rate(pt):>14} {setting:>11} {fmt_x(row['ratio']):>17}")
                if gpu:
                    line += (f" {fmt_x(row['torchlet_speedup_vs_cpu']):>17} "
                             f"{fmt_x(row['pytorch_speedup_vs_cpu']):>16}")
                print(line.rstrip())
    return rows


def compare(args):
    import torch

    cli = args.torchlet or os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "build", "torchlet")
    if not os.access(cli, os.X_OK):
        sys.exit(f"compare_images.py: no torchlet CLI at {cli} (pass --torchlet PATH)")
    load = os.getloadavg()[0]
    print(f"torchlet vs PyTorch, image classifiers; load average {load:.2f}"
          f"{'  (busy machine: figures are noisy)' if load > 1.5 else ''}")
    devices = ["cpu"] + (["cuda:0"] if torch.cuda.is_available() and not args.cpu_only else [])
    results = {"threads": args.threads, "load_before": load, "torch": torch.__version__,
               "settings": {k: v for k, v in vars(args).items() if k not in ("worker", "device")}
               | {"torchlet": cli}, "torchlet": {}, "pytorch": {}}
    for device in devices:
        print(f"{device}: torchlet ...", flush=True)
        tl, why = run_torchlet(args, cli, device)
        results["torchlet"][device] = tl if tl else {"skipped": why}
        if why:
            print(f"  torchlet skipped: {why}")
        settings = ["default"] if device != "cpu" or args.pytorch_default_only else \
            list(PYTORCH_SETTINGS)
        results["pytorch"][device] = {}
        for setting in settings:
            print(f"{device}: PyTorch ({setting}) ...", flush=True)
            results["pytorch"][device][setting] = run_pytorch(args, device, setting)

    print_settings(args, results, torch.__version__)
    results["rows"] = table(args, devices, results)
    if len(devices) == 1:
        print("  No GPU here (torch.cuda.is_available() is false): CPU only.")
    results["load_after"] = os.getloadavg()[0]
    print(f"\nload average after: {results['load_after']:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


def int_list(text):
    return [int(v) for v in text.split(",") if v]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--torchlet", help="the torchlet CLI (default: build/torchlet)")
    p.add_argument("--threads", type=int, default=os.cpu_count(),
                   help="CPU threads for both engines (default: the CPUs)")
    p.add_argument("--models", type=lambda t: t.split(","), default=["mlp", "cnn"])
    p.add_argument("--batches", type=int_list, default=[32, 128, 512])
    p.add_argument("--steps", type=int, default=1000, help="timed steps per cell at most")
    p.add_argument("--cell-seconds", type=float, default=3.0,
                   help="stop timing a cell after this long (after at least 3 steps)")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps first, per cell")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate")
    p.add_argument("--cpu-only", action="store_true", help="skip the GPU even when there is one")
    p.add_argument("--pytorch-default-only", action="store_true",
                   help="run PyTorch on the CPU only as it comes, not also with "
                        "OMP_WAIT_POLICY=PASSIVE")
    p.add_argument("--json", help="also write every figure to this JSON file")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--device", default="cpu", help=argparse.SUPPRESS)
    args = p.parse_args()
    for name in args.models:
        if name not in ("mlp", "cnn"):
            p.error(f"--models: expected mlp or cnn, but got {name!r}")
    if not args.batches or min(args.batches) < 1:
        p.error("--batches: expected sizes >= 1")
    if args.steps < 1 or args.warmup < 0 or args.cell_seconds <= 0 or args.threads < 1:
        p.error("expected --steps >= 1, --warmup >= 0, --cell-seconds > 0 and --threads >= 1")
    args.models = list(dict.fromkeys(args.models))  # as torchlet takes them: each once,
    args.batches = sorted(set(args.batches))  # and the batch sizes in order
    if args.worker:
        print(json.dumps(worker(args)))
        return
    if importlib.util.find_spec("torch") is None:
        sys.exit(f"compare_images.py: {sys.executable} has no torch; run it with Debian's "
                 "/usr/bin/python3 (python3-torch)")
    compare(args)


if __name__ == "__main__":
    main()
