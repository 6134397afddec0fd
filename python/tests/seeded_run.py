"""Runs one of examples/python's course scripts, unchanged, after seeding the generator, with
torchlet (as written) or with PyTorch (its three torchlet imports turned back into torch's).
The course's scripts set no seed, and PyTorch without manual_seed draws a different
initialisation on every run, so a comparison seeds both from outside the script.

Usage: seeded_run.py torchlet|torch SEED SCRIPT"""

import sys

IMPORTS = {
    "import torchlet as torch\n": "import torch\n",
    "import torchlet.nn as nn\n": "import torch.nn as nn\n",
    "import torchlet.optim as optim\n": "import torch.optim as optim\n",
}


def main():
    engine, seed, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(path, encoding="utf-8") as f:
        source = f.read()
    if engine == "torch":
        for ours, theirs in IMPORTS.items():
            if ours not in source:
                sys.exit(f"seeded_run.py: {path} lacks the line {ours!r}")
            source = source.replace(ours, theirs)
        import torch as module
    else:
        import torchlet as module
    module.manual_seed(seed)
    exec(compile(source, path, "exec"), {"__name__": "__main__"})


if __name__ == "__main__":
    main()
