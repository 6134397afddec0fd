"""DataLoader in the main process against Debian's PyTorch: its argument checks (kinds and
messages), the batches of map-style and iterable datasets with every way of batching, the
shuffled order and the default generator's stream after it for the same seed, and the
TensorDataset fast path giving what the per-sample path gives."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from data_common import error_of, plain

import torchlet
from torchlet.utils import data


def stream(lib, n):
    class Stream(lib.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(n))

        def __len__(self):
            return n

    return Stream()


@pytest.mark.parametrize("kwargs", [
    dict(num_workers=-1),
    dict(timeout=-1),
    dict(prefetch_factor=3),
    dict(prefetch_factor=0, num_workers=1),
    dict(persistent_workers=True),
    dict(sampler=[0, 1], shuffle=True),
    dict(batch_sampler=[[0, 1]], batch_size=2),
    dict(batch_sampler=[[0, 1]], shuffle=True),
    dict(batch_sampler=[[0, 1]], sampler=[0]),
    dict(batch_sampler=[[0, 1]], drop_last=True),
    dict(batch_size=None, drop_last=True),
    dict(batch_size=0),
    dict(multiprocessing_context="fork"),
    dict(multiprocessing_context="no-such-method", num_workers=1),
    dict(multiprocessing_context=3, num_workers=1),
])
def test_argument_errors_as_pytorch(torch, kwargs):
    ours = error_of(lambda: data.DataLoader(list(range(4)), **kwargs))
    assert ours is not None and ours == error_of(lambda: torch.utils.data.DataLoader(list(range(4)), **kwargs))


@pytest.mark.parametrize("kwargs", [dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])])
def test_iterable_dataset_argument_errors_as_pytorch(torch, kwargs):
    ours = error_of(lambda: data.DataLoader(stream(torchlet, 3), **kwargs))
    assert ours is not None and ours == error_of(lambda: torch.utils.data.DataLoader(stream(torch, 3), **kwargs))


def test_loader_attributes_are_fixed_after_construction(torch):
    for name in ("batch_size", "sampler", "dataset", "drop_last"):
        ours = error_of(lambda: setattr(data.DataLoader([1]), name, None))
        assert ours == error_of(lambda: setattr(torch.utils.data.DataLoader([1]), name, None))
    loader = data.DataLoader([1])
    loader.num_workers = 0  # others may change


def test_timeout_without_workers_fails_at_iteration_as_pytorch(torch):
    ours = error_of(lambda: iter(data.DataLoader([1], timeout=1)))
    assert ours == error_of(lambda: iter(torch.utils.data.DataLoader([1], timeout=1)))


def test_more_workers_than_cpus_warns_as_pytorch(torch):
    n = len(os.sched_getaffinity(0)) + 1
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        data.DataLoader([1], num_workers=n)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch.utils.data.DataLoader([1], num_workers=n)
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]


class Pairs:
    """A map-style dataset without a base class: (features, label, name) samples."""

    def __init__(self, lib, n):
        self.lib, self.n = lib, n

    def __getitem__(self, i):
        return self.lib.tensor([i, i * 0.5]), i % 3, f"item{i}"

    def __len__(self):
        return self.n


def batches(lib, **kwargs):
    return [plain(b) for b in lib.utils.data.DataLoader(Pairs(lib, 10), **kwargs)]


@pytest.mark.parametrize("kwargs", [
    dict(), dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None),
    dict(batch_size=4, sampler=[9, 0, 5, 5, 2]), dict(batch_sampler=[[1, 2], [7], [3, 3, 3]]),
    dict(batch_size=4, collate_fn=lambda rows: [r[2] for r in rows]),
])
def test_batches_of_a_map_style_dataset_as_pytorch(torch, kwargs):
    assert batches(torchlet, **kwargs) == batches(torch, **kwargs)


@pytest.mark.parametrize("kwargs", [dict(), dict(batch_size=3), dict(batch_size=3, drop_last=True),
                                    dict(batch_size=None)])
def test_batches_and_length_of_an_iterable_dataset_as_pytorch(torch, kwargs):
    def read(lib):
        loader = lib.utils.data.DataLoader(stream(lib, 7), **kwargs)
        return len(loader), [plain(b) for b in loader]

    assert read(torchlet) == read(torch)


def test_an_iterable_dataset_longer_than_it_says_warns_as_pytorch(torch):
    def read(lib):
        class Liar(lib.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(3))

            def __len__(self):
                return 2

        loader = lib.utils.data.DataLoader(Liar())
        len(loader)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            list(loader)
        return [str(w.message).split(" was reported")[1] for w in caught]

    assert read(torchlet) == read(torch)


def test_lengths_as_pytorch(torch):
    for kwargs in (dict(), dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_sampler=[[0], [1]])):
        assert len(data.DataLoader(list(range(10)), **kwargs)) == len(torch.utils.data.DataLoader(list(range(10)),
                                                                                                  **kwargs))


def test_shuffle_and_the_default_generator_after_it_as_pytorch(torch):
    def run(lib):
        lib.manual_seed(42)
        loader = lib.utils.data.DataLoader(list(range(13)), batch_size=5, shuffle=True)
        epochs = [[b.tolist() for b in loader] for _ in range(2)]
        return epochs, lib.rand(3).tolist()  # the stream moved as PyTorch's moves

    ours, theirs = run(torchlet), run(torch)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)


def test_tensor_dataset_fast_path_gives_the_per_sample_batches():
    class Rows(data.TensorDataset):
        """A subclass: read sample by sample, collated by default_collate."""

    x = torchlet.arange(0, 30).reshape(10, 3).float()
    y = torchlet.arange(0, 10)
    for kwargs in (dict(batch_size=4), dict(batch_size=4, drop_last=True), dict(sampler=[3, 1, 4, 1, 5])):
        fast = [plain(b) for b in data.DataLoader(data.TensorDataset(x, y), **kwargs)]
        rows = [plain(b) for b in data.DataLoader(Rows(x, y), **kwargs)]
        assert fast == rows


def test_tensor_dataset_batches_as_pytorch(torch):
    def read(lib):
        x = lib.arange(0, 24).reshape(8, 3).float()
        return [plain(b) for b in lib.utils.data.DataLoader(lib.utils.data.TensorDataset(x, x.sum(1)), batch_size=3)]

    assert read(torchlet) == read(torch)


def test_pin_memory_is_accepted_and_gives_the_same_batches():
    ds = data.TensorDataset(torchlet.arange(0, 6))
    assert [b[0].tolist() for b in data.DataLoader(ds, batch_size=4, pin_memory=True)] == [[0, 1, 2, 3], [4, 5]]


def test_missing_names_of_torch_utils_data_say_so():
    with pytest.raises(AttributeError, match="torchlet does not have torch.utils.data.IterDataPipe yet"):
        data.IterDataPipe


def test_programs_import_the_modules_as_laid_out_in_pytorch(tmp_path):
    program = tmp_path / "prog.py"
    program.write_text("from torch.utils.data.dataloader import DataLoader, default_collate\n"
                       "from torch.utils.data.sampler import RandomSampler, BatchSampler\n"
                       "from torch.utils.data.dataset import Dataset, random_split\n"
                       "from torch.utils.data.distributed import DistributedSampler\n"
                       "from torch.utils.data._utils.collate import default_convert\n"
                       "from torch.utils.tensorboard import SummaryWriter\n"
                       "import torch.utils.data as data\n"
                       "assert data.DataLoader is DataLoader and data.RandomSampler is RandomSampler\n"
                       "print(len(DataLoader(range(10), batch_size=4)))\n"
                       "import torch.utils.data.datapipes\n")
    done = subprocess.run([sys.executable, "-m", "torchlet", "prog.py"], cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout == "3\n"
    assert done.stderr == "torchlet: prog.py:10: torchlet does not have torch.utils.data.datapipes yet\n"
