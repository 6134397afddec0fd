#!/usr/bin/env python3
"""Fails when an #include runs against torchlet's layers (src/CMakeLists.txt, docs/design.md).

Usage: check_layers.py LAYERS_FILE ROOT
LAYERS_FILE is written by tests/CMakeLists.txt, a line a layer, lowest first:
  name|folders|layers it depends on|folders whose headers the layers above may include
ROOT holds src/ and include/ (the repository, or a fixture). Every file under src/<folder>/ may
include its own layer's headers, the public headers (include/torchlet/) of the layers below it,
and the INTERNAL folders' headers (src/<folder>/*.h) of the layers below it. A public header
may include public headers of its own layer and those below. include/torchlet/<name>.h and
include/torchlet/<name>/ belong to the layer holding folder <name>, other top-level headers to
the first (lowest) layer; torchlet.h, the umbrella over every layer, is left out.
"""

import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCES = (".h", ".cpp", ".cu", ".cuh", ".inc")


def read_layers(path):
    layers = []
    for line in pathlib.Path(path).read_text().splitlines():
        name, folders, depends, internal = line.split("|")
        layers.append((name, folders.split(), depends.split(), internal.split()))
    return layers


def below(layers):
    """Each layer's own name and every layer it reaches through its dependencies."""
    reach = {}
    for name, _, depends, _ in layers:  # lowest first, so a dependency is already known
        reach[name] = {name}.union(*(reach[d] for d in depends))
    return reach


def main(layers_file, root):
    layers = read_layers(layers_file)
    reach = below(layers)
    lowest = layers[0][0]
    layer_of = {folder: name for name, folders, _, _ in layers for folder in folders}
    internal = {folder for _, _, _, folders in layers for folder in folders}
    root = pathlib.Path(root)

    def public_layer(header):  # "torchlet/nn/module.h" -> "nn"
        parts = header.split("/")
        name = parts[1] if len(parts) > 2 else parts[1].removesuffix(".h")
        return layer_of.get(name, lowest)

    def violation(layer, header):
        """Why `layer` may not include `header`, or None."""
        parts = header.split("/")
        if parts[0] == "torchlet":
            if header == "torchlet/torchlet.h":
                return "the umbrella header over every layer"
            target = public_layer(header)
            return None if target in reach[layer] else f"layer {target}, not below {layer}"
        target = layer_of.get(parts[0])
        if target is None or target == layer:
            return None  # not a src/ folder (a system header in quotes), or the layer's own
        if target not in reach[layer]:
            return f"layer {target}, not below {layer}"
        if len(parts) == 2 and parts[0] in internal:
            return None
        return f"private to layer {target}"

    files = []
    for folder, layer in layer_of.items():
        files += [(p, layer) for p in sorted((root / "src" / folder).rglob("*"))]
    for p in sorted((root / "include" / "torchlet").rglob("*")):
        header = p.relative_to(root / "include").as_posix()
        if header != "torchlet/torchlet.h":
            files.append((p, public_layer(header)))

    files = [(path, layer) for path, layer in files if path.suffix in SOURCES and path.is_file()]
    failures = []
    for path, layer in files:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            header = match.group(1)
            public = path.is_relative_to(root / "include")
            why = ("a src/ header, not installed"
                   if public and header.split("/")[0] in layer_of else violation(layer, header))
            if why:
                name = path.relative_to(root).as_posix()
                failures.append(f'{name}:{number}: {layer} includes "{header}" ({why})')
    for failure in sorted(failures):
        print(failure)
    if failures:
        print(f"{len(failures)} includes against the layers (src/CMakeLists.txt)")
        return 1
    print(f"{len(files)} files include only their own and lower layers")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
