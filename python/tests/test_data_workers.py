"""DataLoader with worker processes: the same batches as without workers and as PyTorch's
workers (order, seeds, random draws inside the dataset), worker_init_fn and get_worker_info,
persistent workers, IterableDataset copies, a worker's exception re-raised with its traceback,
a killed worker reported instead of waited for, timeouts, and no process left behind."""

import gc
import multiprocessing
import os
import random
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from data_common import plain

import torchlet
from torchlet.utils import data


class Draws:
    """Samples that draw from every generator a worker seeds: torch's, numpy's and Python's."""

    def __init__(self, lib, n=8):
        self.lib, self.n = lib, n

    def __getitem__(self, i):
        return self.lib.rand(2), np.random.rand(), random.random(), i

    def __len__(self):
        return self.n


def draws(lib, workers, **kwargs):
    lib.manual_seed(0)
    loader = lib.utils.data.DataLoader(Draws(lib), batch_size=3, num_workers=workers, **kwargs)
    return [plain(b) for b in loader], lib.rand(1).tolist()


def test_workers_draw_pytorchs_numbers_and_move_the_main_stream_as_pytorch(torch):
    ours, theirs = draws(torchlet, 2), draws(torch, 2)
    np.testing.assert_allclose(np.array(ours[1]), theirs[1], rtol=1e-6)
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a[1][0][3], b[1][0][3], rtol=1e-6)  # torch.rand in the worker
        assert a[1][1:] == b[1][1:]  # numpy, random and the indices: the very same numbers


def test_two_workers_give_the_batches_of_none_for_a_seeded_shuffle():
    def run(workers):
        torchlet.manual_seed(9)
        ds = data.TensorDataset(torchlet.arange(0, 40).reshape(20, 2).float(), torchlet.arange(0, 20))
        loader = data.DataLoader(ds, batch_size=3, shuffle=True, num_workers=workers)
        return [[plain(b) for b in loader] for _ in range(2)]

    assert run(2) == run(0)


class WhoAmI:
    def __getitem__(self, i):
        info = data.get_worker_info()
        return i, info.id, info.num_workers, info.seed, os.getpid(), getattr(info.dataset, "tag", "")

    def __len__(self):
        return 6


def tag_worker(worker_id):
    data.get_worker_info().dataset.tag = f"set by worker_init_fn({worker_id})"


def test_worker_init_fn_and_get_worker_info():
    assert data.get_worker_info() is None
    rows = list(data.DataLoader(WhoAmI(), batch_size=None, num_workers=2, worker_init_fn=tag_worker))
    assert [r[:3] for r in rows] == [[i, i % 2, 2] for i in range(6)]  # round-robin
    assert {r[5] for r in rows} == {"set by worker_init_fn(0)", "set by worker_init_fn(1)"}
    seeds = {r[1]: r[3] for r in rows}
    assert seeds[1] == seeds[0] + 1 and len({r[4] for r in rows}) == 2 and os.getpid() not in {r[4] for r in rows}


def test_persistent_workers_live_across_epochs_and_go_with_the_loader():
    loader = data.DataLoader(WhoAmI(), batch_size=2, num_workers=2, persistent_workers=True)
    first = [b[4].tolist() for b in loader]
    second = [b[4].tolist() for b in loader]
    assert first == second and len({p for b in first for p in b}) == 2
    workers = loader._iterator._workers
    del loader
    gc.collect()
    assert not any(w.is_alive() for w in workers)


def test_prefetch_factor_bounds_the_tasks_in_flight():
    it = iter(data.DataLoader(range(100), batch_size=2, num_workers=2, prefetch_factor=3))
    assert (it._send_idx, it._tasks_outstanding) == (6, 6)
    assert [next(it).tolist() for _ in range(2)] == [[0, 1], [2, 3]]
    assert it._send_idx == 8 and it._tasks_outstanding <= 6


def stream(lib, shard):
    """range(3, 10) from each worker, or shared out between the workers as PyTorch's docs do."""
    class Stream(lib.utils.data.IterableDataset):
        def __iter__(self):
            info = lib.utils.data.get_worker_info()
            if info is None or not shard:
                return iter(range(3, 10))
            per_worker = -(-7 // info.num_workers)
            first = 3 + info.id * per_worker
            return iter(range(first, min(first + per_worker, 10)))

    return Stream()


@pytest.mark.parametrize("shard, kwargs", [(False, dict()), (True, dict(batch_size=2)),
                                           (True, dict(batch_size=2, drop_last=True, persistent_workers=True))])
def test_iterable_dataset_copies_in_workers_as_pytorch(torch, shard, kwargs):
    loader = data.DataLoader(stream(torchlet, shard), num_workers=2, **kwargs)
    ours = [[b.tolist() for b in loader] for _ in range(2)]
    theirs = [b.tolist() for b in torch.utils.data.DataLoader(stream(torch, shard), num_workers=2, **kwargs)]
    assert ours[0] == ours[1] == theirs


class Faulty:
    def __init__(self, error):
        self.error = error

    def __getitem__(self, i):
        if i == 5:
            raise self.error
        return i

    def __len__(self):
        return 8


@pytest.mark.parametrize("error", [ValueError("bad item 5"), KeyError("k"), IndexError("out")])
def test_a_worker_exception_is_raised_in_the_main_process_with_its_traceback(error):
    with pytest.raises(type(error)) as caught:
        list(data.DataLoader(Faulty(error), batch_size=2, num_workers=2))
    text = str(caught.value)
    assert text.startswith(f"Caught {type(error).__name__} in DataLoader worker process 0.\n"
                           "Original Traceback (most recent call last):\n")
    assert "raise self.error" in text and text.rstrip().endswith(f"{type(error).__name__}: {error}")


def test_an_exception_in_worker_init_fn_comes_with_the_first_batch():
    def fail(worker_id):
        raise RuntimeError(f"init of {worker_id} failed")

    with pytest.raises(RuntimeError, match=r"Caught RuntimeError in DataLoader worker process 0\.(.|\n)*init of 0"):
        next(iter(data.DataLoader(range(4), num_workers=1, worker_init_fn=fail)))


class Unpicklable:
    def __getitem__(self, i):
        return lambda: i

    def __len__(self):
        return 2


def test_a_sample_that_cannot_cross_processes_fails_in_the_main_process():
    with pytest.raises(Exception, match=r"Caught \w+ in DataLoader worker process 0\.(.|\n)*pickle"):
        list(data.DataLoader(Unpicklable(), batch_size=None, num_workers=1))


class Tensors:
    def __getitem__(self, i):
        return {"f": torchlet.ones(2, requires_grad=True), "d": torchlet.zeros(1, dtype=torchlet.float64),
                "b": torchlet.tensor([True]), "i": torchlet.tensor(i)}

    def __len__(self):
        return 2


def test_tensors_cross_processes_with_dtype_and_requires_grad():
    sample = next(iter(data.DataLoader(Tensors(), batch_size=None, num_workers=1)))
    assert [(k, str(v.dtype), tuple(v.shape), v.requires_grad) for k, v in sample.items()] == [
        ("f", "torchlet.float32", (2,), True), ("d", "torchlet.float64", (1,), False),
        ("b", "torchlet.bool", (1,), False), ("i", "torchlet.int64", (), False)]
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor which requires_grad"):
        next(iter(data.DataLoader(Tensors(), batch_size=2, num_workers=1)))  # stacked: not a leaf


class Slow:
    def __getitem__(self, i):
        time.sleep(1)
        return i

    def __len__(self):
        return 4


def test_a_timeout_is_pytorchs_runtime_error():
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.3 seconds$"):
        next(iter(data.DataLoader(Slow(), num_workers=1, timeout=0.3)))


def test_breaking_out_deleting_and_iterating_twice_leave_no_process():
    loader = data.DataLoader(WhoAmI(), batch_size=2, num_workers=2)
    assert [len(list(loader)) for _ in range(2)] == [3, 3]
    for batch in loader:
        break
    it = iter(loader)
    next(it)
    del batch, it, loader
    gc.collect()
    deadline = time.time() + 10
    while multiprocessing.active_children() and time.time() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []


KILL = """
import os, signal, time
from torchlet.utils.data import DataLoader

class Dies:
    def __getitem__(self, i):
        if i == 4:
            os.kill(os.getpid(), signal.{signal})
        {exit}
        time.sleep(0.05)
        return i

    def __len__(self):
        return 40

start = time.time()
try:
    for batch in DataLoader(Dies(), batch_size=2, num_workers=2):
        pass
except RuntimeError as e:
    print(type(e).__name__, str(e).replace(str(e).split("pid ")[1].split(")")[0], "N"))
print(time.time() - start < 20)  # the message says it was not the 5 s poll that saw it
"""


@pytest.mark.parametrize("signal, exit, message", [
    ("SIGKILL", "", "RuntimeError DataLoader worker (pid N) is killed by signal: Killed. "),
    ("SIGCONT", "if i == 6: os._exit(3)",
     "RuntimeError DataLoader worker (pid N) exited unexpectedly with exit code 3. Details are lost due to "
     "multiprocessing. Rerunning with num_workers=0 may give better error trace."),
])
def test_a_dead_worker_is_reported_at_once_and_leaves_no_process(signal, exit, message):
    program = textwrap.dedent(KILL).format(signal=signal, exit=exit)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines() == [message, "True"], done.stderr


def test_an_iterator_alive_at_exit_ends_quietly_with_its_workers():
    program = ("from torchlet.utils.data import DataLoader\n"
               "it = iter(DataLoader(range(10), num_workers=2))\n"
               "next(it)\n"
               "print(*(w.pid for w in it._workers))\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
    for pid in map(int, done.stdout.split()):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
