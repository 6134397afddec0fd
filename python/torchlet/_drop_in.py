"""PyTorch programs on torchlet, unchanged: an import hook that resolves `torch` and every
`torch.X` module a program imports to torchlet's (`torchvision` to torchlet.vision), and the
runner behind `python3 -m torchlet prog.py`. Nothing named `torch` is ever installed: the hook
lives in sys.meta_path of the process that asked for it, so Debian's python3-torch is
untouched. A module PyTorch has and torchlet lacks stops the import with one line naming it."""

import importlib
import importlib.machinery
import sys

# The names a program imports and the torchlet packages they resolve to.
ALIASES = {"torch": "torchlet", "torchvision": "torchlet.vision"}


class MissingAPI(ModuleNotFoundError):
    """A PyTorch module or name that torchlet does not have yet. A ModuleNotFoundError, so a
    program's own `try: import torch.x except ImportError:` still works."""


class MissingAttribute(AttributeError):
    """A PyTorch name (torch.X, torch.nn.X, ...) that torchlet does not have yet."""


def missing_message(api):
    return f"torchlet does not have {api} yet"


def torch_name(name):
    """The PyTorch spelling of a torchlet module's name (torchlet.nn -> torch.nn)."""
    for alias, target in ALIASES.items():
        if name == target or name.startswith(target + "."):
            return alias + name[len(target):]
    return name


def _target(fullname):
    for alias, target in ALIASES.items():
        if fullname == alias or fullname.startswith(alias + "."):
            return target + fullname[len(alias):]
    return None


def _find(name):
    """The spec of torchlet module `name` (already imported, or a file of its package), or None.
    (importlib.util.find_spec and importlib.abc cost 20 ms of start-up; this costs none.)"""
    module = sys.modules.get(name)
    if module is not None:
        return getattr(module, "__spec__", None) or importlib.machinery.ModuleSpec(name, None)
    parent, _, _ = name.rpartition(".")
    if not parent:
        return importlib.machinery.PathFinder.find_spec(name)
    path = getattr(importlib.import_module(parent), "__path__", None)
    return importlib.machinery.PathFinder.find_spec(name, path) if path is not None else None


class _AliasLoader:
    """Loads `torch.X` as the module object of `torchlet.X` itself (one module, two names)."""

    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass


class _Finder:
    """A meta path finder (importlib's protocol) for the names of ALIASES."""

    def find_spec(self, fullname, path=None, target=None):
        name = _target(fullname)
        if name is None:
            return None
        try:
            found = _find(name)
        except ModuleNotFoundError:
            found = None
        if found is None:
            raise MissingAPI(missing_message(fullname), name=fullname)
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(name), is_package=found.submodule_search_locations
                                              is not None)


_finder = _Finder()


def install():
    """Makes `import torch` (and torch.X, torchvision) resolve to torchlet in this process.
    Idempotent. Returns the torchlet module."""
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    return importlib.import_module("torchlet")


def uninstall():
    """Undoes install(): the hook and the `torch` names it put in sys.modules go."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [n for n in sys.modules if _target(n) is not None]:
        if getattr(sys.modules[name], "__name__", "").startswith(tuple(ALIASES.values())):
            del sys.modules[name]


def module_getattr(module_name, name):
    """The AttributeError a torchlet module raises for a name it lacks, in PyTorch's spelling:
    `torchlet does not have torch.foo yet`."""
    return MissingAttribute(missing_message(f"{torch_name(module_name)}.{name}"), name=name)
