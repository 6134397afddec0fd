"""`python3 -m torchlet prog.py [args]`: runs a PyTorch program unchanged, with `import torch`
(and torch.X, torchvision) resolving to torchlet (torchlet/_drop_in.py). Also
`python3 -m torchlet -m module [args]` and `python3 -m torchlet -c code [args]`.

Exit status: the program's own; 2 when torchlet lacks a PyTorch name the program uses (one
line `torchlet: prog.py:LINE: torchlet does not have torch.X yet`) or the command line is
wrong. Any other error prints the program's traceback, without the runner's frames."""

import os
import runpy
import sys

from torchlet import _drop_in

USAGE = "usage: python3 -m torchlet prog.py [args] | -m module [args] | -c code [args]"

# Python's and pybind11's messages for a name a torchlet module or bound class lacks.
_LACKS = (
    (r"'torchlet\._C\.(\w+)' object has no attribute '(\w+)'", "torch.{0}.{1}"),
    (r"module '(torchlet[\w.]*)' has no attribute '(\w+)'", "{0}.{1}"),
    (r"cannot import name '(\w+)' from '(torchlet[\w.]*)'", "{1}.{0}"),
)


def _missing_api(error):
    """The torchlet-lacks-it message of an uncaught error, or None for the program's own."""
    if isinstance(error, (_drop_in.MissingAPI, _drop_in.MissingAttribute)):
        return str(error)
    if isinstance(error, (AttributeError, ImportError)):
        import re

        for pattern, api in _LACKS:
            match = re.search(pattern, str(error))
            if match:
                return _drop_in.missing_message(_drop_in.torch_name(api.format(*match.groups())))
    return None


def _program_frames(tb):
    """The traceback from the program's first frame on (runpy's and this file's cut off)."""
    runner_files = (os.path.abspath(__file__), os.path.abspath(runpy.__file__), "<frozen runpy>")
    while tb is not None and tb.tb_frame.f_code.co_filename in runner_files + (__file__,):
        tb = tb.tb_next
    return tb


def _where(tb):
    """'file:line' of the innermost frame that is not torchlet's own code."""
    import traceback

    package = os.path.dirname(os.path.abspath(__file__))
    place = None
    for frame, line in traceback.walk_tb(tb):
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(package + os.sep) and "importlib" not in filename:
            place = f"{os.path.relpath(filename)}:{line}"
    return place


def _run(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    _drop_in.install()
    if argv[0] in ("-m", "-c"):
        if len(argv) < 2:
            print(f"torchlet: {argv[0]} needs an argument\n{USAGE}", file=sys.stderr)
            return 2
        if argv[0] == "-m":
            sys.argv = [argv[1]] + argv[2:]
            sys.path.insert(0, os.getcwd())
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = ["-c"] + argv[2:]
            sys.path.insert(0, "")
            exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})  # noqa: S102
        return 0
    program = argv[0]
    if not os.path.isfile(program):
        print(f"torchlet: {program}: Expected a Python program file, but it does not exist", file=sys.stderr)
        return 2
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(program)))
    runpy.run_path(program, run_name="__main__")
    return 0


def main(argv):
    try:
        return _run(argv)
    except SystemExit:
        raise
    except BaseException as error:  # noqa: BLE001 (the program's errors are reported, then exit)
        tb = _program_frames(error.__traceback__)
        message = _missing_api(error)
        if message is not None:
            place = _where(tb)
            print(f"torchlet: {place + ': ' if place else ''}{message}", file=sys.stderr)
            return 2
        if isinstance(error, KeyboardInterrupt):
            return 130
        import traceback

        traceback.print_exception(type(error), error, tb)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
