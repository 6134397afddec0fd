"""A worker that dies (killed by a signal, or exiting with an error code) must not leave the
main process waiting forever for its batch. The iterators register their workers' pids here;
a SIGCHLD handler in the main process looks at them (waitid with WNOWAIT, so multiprocessing
still reaps them) and raises PyTorch's RuntimeError in the main thread, naming the pid and the
signal. Polling a dead worker's is_alive() in the iterator is the fallback where no handler can
be set (a loader iterated outside the main thread)."""

import os
import signal
import threading

_worker_pids = {}  # id(iterator) -> the pids of its workers

_handler_set = False


def _set_worker_pids(key, pids):
    _worker_pids[key] = tuple(pids)


def _remove_worker_pids(key):
    _worker_pids.pop(key, None)


def _failure(pid):
    """PyTorch's message for a worker that has ended badly, or None while it runs or ended well."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:  # reaped already: the iterator saw it end
        return None
    if info is None:
        return None
    if info.si_code == os.CLD_EXITED and info.si_status != 0:
        return (f"DataLoader worker (pid {pid}) exited unexpectedly with exit code {info.si_status}. Details are "
                "lost due to multiprocessing. Rerunning with num_workers=0 may give better error trace.")
    if info.si_code in (os.CLD_KILLED, os.CLD_DUMPED):
        message = f"DataLoader worker (pid {pid}) is killed by signal: {signal.strsignal(info.si_status)}. "
        if info.si_status == signal.SIGBUS:
            message += ("It is possible that dataloader's workers are out of shared memory. Please try to raise "
                        "your shared memory limit.")
        return message
    return None


def worker_died(error):
    """Whether error is the RuntimeError raised here for a dead worker."""
    return getattr(error, "_dataloader_worker_died", False)


def _error_if_any_worker_fails():
    from torchlet.utils.data import _utils

    if _utils.python_exit_status:  # multiprocessing is ending the workers itself
        return
    for key, pids in list(_worker_pids.items()):
        for pid in pids:
            message = _failure(pid)
            if message is not None:
                _remove_worker_pids(key)  # raised once, not again for the same loader
                error = RuntimeError(message)
                error._dataloader_worker_died = True
                raise error


def _set_SIGCHLD_handler():  # noqa: N802 (PyTorch's name)
    global _handler_set
    if _handler_set or threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGCHLD)
    if not callable(previous):
        previous = None

    def handler(signum, frame):
        _error_if_any_worker_fails()
        if previous is not None:
            previous(signum, frame)

    signal.signal(signal.SIGCHLD, handler)
    _handler_set = True
