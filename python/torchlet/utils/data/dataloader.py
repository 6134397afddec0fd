"""torch.utils.data.dataloader: DataLoader, which reads a dataset in batches through a sampler
and a collate function, in the main process or in worker processes started with fork, with
PyTorch 1.13's arguments, checks and messages. pin_memory is accepted and does nothing:
torchlet has no page-locked host memory."""

import fcntl
import itertools
import multiprocessing
import os
import queue
import warnings

from torchlet.utils.data import _generator, _utils
from torchlet.utils.data._utils import MP_STATUS_CHECK_INTERVAL, signal_handling, transport
from torchlet.utils.data._utils.fetch import _IterableDatasetFetcher, _MapDatasetFetcher
from torchlet.utils.data._utils.worker import (
    ExceptionWrapper, _IterableDatasetStopIteration, _ResumeIteration, _worker_loop,
)
from torchlet.utils.data.dataset import IterableDataset
from torchlet.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

default_collate = _utils.collate.default_collate
default_convert = _utils.collate.default_convert
get_worker_info = _utils.worker.get_worker_info


class _DatasetKind:
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        fetcher = _MapDatasetFetcher if kind == _DatasetKind.Map else _IterableDatasetFetcher
        return fetcher(dataset, auto_collation, collate_fn, drop_last)


class _InfiniteConstantSampler(Sampler):
    """None forever: the sampler of an IterableDataset, which ignores its indices."""

    def __init__(self):
        super().__init__(None)

    def __iter__(self):
        while True:
            yield None


def _fork_context(context, num_workers):
    """The multiprocessing context the workers start in (PyTorch's checks); fork only."""
    if context is None:
        return None
    if num_workers <= 0:
        raise ValueError("multiprocessing_context can only be used with multi-process loading (num_workers > 0), "
                         f"but got num_workers={num_workers}")
    if isinstance(context, str):
        methods = multiprocessing.get_all_start_methods()
        if context not in methods:
            raise ValueError(f"multiprocessing_context option should specify a valid start method in {methods!r}, "
                             f"but got multiprocessing_context={context!r}")
        context = multiprocessing.get_context(context)
    if not isinstance(context, multiprocessing.context.BaseContext):
        raise TypeError("multiprocessing_context option should be a valid context object or a string specifying "
                        f"the start method, but got multiprocessing_context={context}")
    if context.get_start_method() != "fork":
        raise NotImplementedError(f"torchlet's DataLoader starts its workers with fork only, not with "
                                  f"multiprocessing_context={context.get_start_method()!r}")
    return context


class DataLoader:
    """Batches of dataset (see the module's text). Arguments as PyTorch's DataLoader."""

    __initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=2, persistent_workers=False,
                 pin_memory_device=""):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor != 2:
            # PyTorch 1.13's message, without a space after the first full stop.
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing.")
        if not prefetch_factor > 0:
            raise AssertionError()
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = _fork_context(multiprocessing_context, num_workers)

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None
        self.check_worker_number_rationality()

    def __setattr__(self, attr, val):
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                           "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        if self._dataset_kind == _DatasetKind.Iterable:
            # An estimate: the workers' copies may shard the stream unevenly.
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else -(-length // self.batch_size)
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self):
        """Warns, as PyTorch does, when more workers are asked for than CPUs this process may use."""
        if not self.num_workers:
            return
        suggested = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        if suggested is not None and self.num_workers > suggested:
            warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. Our suggested "
                          f"max number of worker in current system is {suggested}, which is smaller than what this "
                          "DataLoader is going to create. Please be aware that excessive worker creation might get "
                          "DataLoader running slow or even freeze, lower the worker number to avoid potential "
                          "slowness/freeze if necessary.")


class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        # Drawn every epoch, with or without workers, as PyTorch draws it (the default
        # generator's stream moves the same way).
        self._base_seed = _generator.seed_from(loader.generator)
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)  # StopIteration ends the epoch

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if (self._dataset_kind == _DatasetKind.Iterable and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            message = (f"Length of IterableDataset {self._dataset} was reported to be "
                       f"{self._IterableDataset_len_called} (when accessing len(dataloader)), but "
                       f"{self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                message += ("For multiprocessing data-loading, this could be caused by not properly configuring the "
                            "IterableDataset replica at each worker. Please see "
                            "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples.")
            warnings.warn(message)
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError(f"{self.__class__.__name__} cannot be pickled")


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        if self._timeout != 0:  # PyTorch asserts it too: timeout is for workers
            raise AssertionError()
        self._dataset_fetcher = _DatasetKind.create_fetcher(self._dataset_kind, self._dataset, self._auto_collation,
                                                            self._collate_fn, self._drop_last)

    def _next_data(self):
        index = self._next_index()
        return self._dataset_fetcher.fetch(index)


# id(iterator) -> its workers and queues, until it has shut them down. An iterator collected
# by the cycle collector (an exception's traceback holds it, say) would otherwise find its
# queues' and processes' own finalizers already run: a queue's feeder thread stopped, so the
# None that tells a worker to end never sent.
_running = {}


def _widen_pipe(result_queue):
    """1 MiB for the result queue's pipe instead of 64 KiB (1 MiB: Linux's limit for a process
    without privileges): a batch up to that size is then written by a worker in one go and read
    by the main process in one, instead of in 64 KiB turns that each wait for the other process."""
    try:
        fcntl.fcntl(result_queue._reader.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)
    except (AttributeError, OSError):
        pass  # not Linux, or a lower limit: the pipe keeps its size


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        context = loader.multiprocessing_context or multiprocessing.get_context("fork")
        self._owner_pid = os.getpid()
        self._worker_init_fn = loader.worker_init_fn
        self._worker_result_queue = context.Queue()
        _widen_pipe(self._worker_result_queue)
        self._data_queue = self._worker_result_queue
        self._worker_pids_set = False
        self._shutdown = False
        self._workers_done_event = context.Event()
        self._index_queues = []
        self._workers = []
        for i in range(self._num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()  # the main process never waits to flush indices
            w = context.Process(target=_worker_loop, daemon=True, args=(
                self._dataset_kind, self._dataset, index_queue, self._worker_result_queue, self._workers_done_event,
                self._auto_collation, self._collate_fn, self._drop_last, self._base_seed, self._worker_init_fn, i,
                self._num_workers))
            w.start()
            self._index_queues.append(index_queue)
            self._workers.append(w)
        _running[id(self)] = (self._workers, self._index_queues, self._worker_result_queue, self._workers_done_event)
        signal_handling._set_worker_pids(id(self), (w.pid for w in self._workers))
        signal_handling._set_SIGCHLD_handler()
        _utils._set_exit_flag_first()
        self._worker_pids_set = True
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0  # the next task to send
        self._rcvd_idx = 0  # the next task to return
        # task -> (worker,) while in flight, (worker, data) once arrived out of turn
        self._task_info = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # Persistent workers: each answers _ResumeIteration after the tasks it still had.
            for index_queue in self._index_queues:
                index_queue.put(transport.dumps(_ResumeIteration()))
            remaining = self._num_workers
            while remaining > 0:
                return_idx, _ = self._get_data()
                if isinstance(return_idx, _ResumeIteration):
                    remaining -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_get_data(self, timeout=MP_STATUS_CHECK_INTERVAL):
        """(True, (task, data)) from the result queue, or (False, None) after timeout seconds;
        raises when a worker has died."""
        try:
            return True, transport.loads(self._data_queue.get(timeout=timeout))
        except Exception as e:
            if signal_handling.worker_died(e):
                raise
            failed = [w for i, w in enumerate(self._workers) if self._workers_status[i] and not w.is_alive()]
            for w in failed:
                self._mark_worker_as_unavailable(self._workers.index(w))
            if failed:
                pids = ", ".join(str(w.pid) for w in failed)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from e
            if isinstance(e, queue.Empty):
                return False, None
            raise

    def _get_data(self):
        if self._timeout > 0:
            success, data = self._try_get_data(self._timeout)
            if not success:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            return data
        while True:
            success, data = self._try_get_data()
            if success:
                return data

    def _next_data(self):
        while True:
            # Skip the tasks of workers whose IterableDataset has ended.
            while self._rcvd_idx < self._send_idx:
                info = self._task_info[self._rcvd_idx]
                if len(info) == 2 or self._workers_status[info[0]]:
                    break
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                return self._process_data(self._task_info.pop(self._rcvd_idx)[1])
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if self._dataset_kind == _DatasetKind.Iterable and isinstance(data, _IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                self._task_info[idx] += (data,)
            else:
                del self._task_info[idx]
                return self._process_data(data)

    def _try_put_index(self):
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_id]:
                break
        else:
            return  # no live worker: the index is dropped, as PyTorch drops it
        self._index_queues[worker_id].put(transport.dumps((self._send_idx, index)))
        self._task_info[self._send_idx] = (worker_id,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data):
        self._rcvd_idx += 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id, shutdown=False):
        # None tells the worker to end; it is sent once per worker.
        self._index_queues[worker_id].put(transport.dumps(None))
        self._workers_status[worker_id] = False

    def _shutdown_workers(self):
        # At interpreter exit multiprocessing ends the daemonic workers itself (and module
        # globals may already be None); in a forked child that inherited this object, the
        # workers are not its own.
        if _utils is None or _utils.python_exit_status or os.getpid() != self._owner_pid or self._shutdown:
            return
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id, shutdown=True)
            for w in self._workers:
                w.join(timeout=MP_STATUS_CHECK_INTERVAL)
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            if self._worker_pids_set:
                signal_handling._remove_worker_pids(id(self))
                self._worker_pids_set = False
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
            _running.pop(id(self), None)

    def __del__(self):
        if hasattr(self, "_workers"):  # __init__ may have failed before starting any
            self._shutdown_workers()
