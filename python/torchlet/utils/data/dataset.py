"""torch.utils.data.dataset: the map-style and iterable datasets (Dataset, IterableDataset),
TensorDataset, ConcatDataset, ChainDataset, Subset and random_split, as PyTorch 1.13's (the
same checks, error kinds and messages; random_split draws PyTorch's randperm)."""

import bisect
import itertools
import math
import warnings
from typing import Generic, TypeVar

from torchlet.utils.data import _generator

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset", "Subset", "random_split"]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map from keys (usually 0..len-1) to samples: subclasses define __getitem__ and,
    for the default samplers, __len__. `a + b` concatenates. There is deliberately no default
    __len__, as in PyTorch (a TypeError is what Python raises for an object without one)."""

    def __getitem__(self, index):
        raise NotImplementedError

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """A stream of samples: subclasses define __iter__. With num_workers > 0 each worker
    iterates its own copy of the dataset; get_worker_info() says which worker it is, so that
    __iter__ can shard the stream. `a + b` chains."""

    def __iter__(self):
        raise NotImplementedError

    def __add__(self, other):
        return ChainDataset([self, other])


def _expect(condition, message):
    # PyTorch checks these with assert: the same AssertionError, kept under python -O too.
    if not condition:
        raise AssertionError(message)


class TensorDataset(Dataset):
    """Rows of tensors that share their first size: dataset[i] is (t[i] for each tensor). The
    DataLoader gathers a batch of it with one index_select per tensor, on the tensors' device."""

    def __init__(self, *tensors):
        _expect(all(tensors[0].size(0) == t.size(0) for t in tensors), "Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class ConcatDataset(Dataset):
    """The samples of several map-style datasets, one after another."""

    @staticmethod
    def cumsum(sequence):
        return list(itertools.accumulate(len(d) for d in sequence))

    def __init__(self, datasets):
        super().__init__()
        self.datasets = list(datasets)
        _expect(len(self.datasets) > 0, "datasets should not be an empty iterable")
        for d in self.datasets:
            _expect(not isinstance(d, IterableDataset), "ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]

    @property
    def cummulative_sizes(self):
        warnings.warn("cummulative_sizes attribute is renamed to cumulative_sizes", DeprecationWarning, stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """The samples of several iterable datasets, one stream after another (chained lazily)."""

    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            _expect(isinstance(d, IterableDataset), "ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            _expect(isinstance(d, IterableDataset), "ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def _lengths_from_fractions(fractions, n):
    """floor(f * n) for each fraction, the remainder handed out one at a time from the first."""
    lengths = []
    for i, fraction in enumerate(fractions):
        if fraction < 0 or fraction > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(int(math.floor(n * fraction)))
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.")
    return lengths


def random_split(dataset, lengths, generator=None):
    """Splits dataset into non-overlapping Subsets of the given lengths (ints summing to its
    length, or fractions summing to 1), from randperm(len(dataset), generator=generator);
    generator None draws from the default generator, as PyTorch's default_generator."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(lengths, len(dataset))
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = _generator.randperm(sum(lengths), generator)
    ends = itertools.accumulate(lengths)
    return [Subset(dataset, indices[end - length:end]) for end, length in zip(ends, lengths)]
