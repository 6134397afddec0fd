"""The DataLoader's worker processes: get_worker_info, and the loop a worker runs. A worker is
seeded as PyTorch seeds it (base_seed + id for random and torchlet, numpy's SeedSequence of
the id and the base seed for numpy), runs worker_init_fn, then answers (task index, indices)
from its index queue with the batch, an _IterableDatasetStopIteration, or an ExceptionWrapper
that the main process re-raises with the worker's traceback. It ends on None, or when the
main process is gone."""

import os
import queue
import random
import signal
import sys
import traceback
from dataclasses import dataclass
from typing import Optional

import torchlet
from torchlet.utils.data._utils import MP_STATUS_CHECK_INTERVAL, signal_handling, transport

_worker_info = None


class WorkerInfo:
    """id, num_workers, seed and dataset (this worker's copy) of the current worker; read-only."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs)
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        fields = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{self.__class__.__name__}({fields})"


def get_worker_info():
    """The WorkerInfo of this DataLoader worker process; None in the main process."""
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """A worker's IterableDataset copy has ended."""
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """A persistent worker starts a new epoch (it answers with the same object)."""
    seed: Optional[int] = None


class ExceptionWrapper:
    """An exception and its traceback text, carried from a worker to the main process."""

    def __init__(self, exc_info=None, where="in background"):
        exc_info = exc_info or sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raises the exception's type with "Caught X in DataLoader worker process N.\\nOriginal
        Traceback ..."; a RuntimeError when the type cannot take one message."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except TypeError:
            raise RuntimeError(msg) from None
        try:
            raise exception
        finally:
            # No cycle through this frame: the iterator in the traceback's frames goes (and
            # its workers with it) as soon as the caller lets the exception go.
            del exception


class KeyErrorMessage(str):
    """A KeyError's message printed as text (KeyError would print its repr, newlines escaped)."""

    def __repr__(self):
        return self


class _ManagerWatchdog:
    """Whether the process that started this worker still runs (the worker's parent changes
    when it dies)."""

    def __init__(self):
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self):
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


def _seed_worker(base_seed, worker_id):
    import numpy

    seed = base_seed + worker_id
    random.seed(seed)
    torchlet.manual_seed(seed)
    # numpy's SeedSequence of (id, low and high words of the base seed, 0): PyTorch's numpy seed.
    numpy.random.seed(numpy.random.SeedSequence([worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0])
                      .generate_state(4))
    return seed


def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation, collate_fn, drop_last,
                 base_seed, init_fn, worker_id, num_workers):
    from torchlet.utils.data.dataloader import _DatasetKind

    global _worker_info
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the main process's handler is not this one's
        signal_handling._worker_pids.clear()
        torchlet.set_num_threads(1)
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        init_exception = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        iteration_end = False  # an IterableDataset copy that has ended waits for the next epoch
        watchdog = _ManagerWatchdog()
        while watchdog.is_alive():
            try:
                r = transport.loads(index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL))
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put(transport.dumps((r, None)))
                iteration_end = False
                fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue
            idx, index = r
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    if dataset_kind == _DatasetKind.Iterable:
                        data, iteration_end = _IterableDatasetStopIteration(worker_id), True
                    else:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
                except Exception:
                    data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put(_payload(idx, data, worker_id))
            del data, idx, index, r
    except KeyboardInterrupt:
        pass  # Ctrl-C reaches every process of the group: the main process handles it
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()


def _payload(idx, data, worker_id):
    """(idx, data) pickled, or (idx, the pickling error) when data cannot be."""
    try:
        return transport.dumps((idx, data))
    except Exception:
        return transport.dumps((idx, ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")))
