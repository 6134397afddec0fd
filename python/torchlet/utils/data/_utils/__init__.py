"""torch.utils.data._utils: what the DataLoader runs in its worker processes and in the main
process (collate, fetch, worker, signal handling, transport of tensors between processes)."""

import atexit
import sys

IS_WINDOWS = sys.platform == "win32"

# How often (seconds) a blocked worker or main process looks whether the other side still runs.
MP_STATUS_CHECK_INTERVAL = 5.0

# True once the interpreter exits: the iterators then leave their daemonic workers to
# multiprocessing, whose own exit handler ends them (and the ends are no errors).
python_exit_status = False


def _set_python_exit_flag():
    global python_exit_status
    python_exit_status = True


def _set_exit_flag_first():
    """Registers the flag's exit handler last, so that it runs first (atexit runs handlers in
    reverse order): before multiprocessing's, which is registered when its queues are first made."""
    atexit.unregister(_set_python_exit_flag)
    atexit.register(_set_python_exit_flag)


atexit.register(_set_python_exit_flag)

from torchlet.utils.data._utils import collate, fetch, signal_handling, transport, worker  # noqa: E402

__all__ = ["collate", "fetch", "signal_handling", "transport", "worker", "MP_STATUS_CHECK_INTERVAL"]
