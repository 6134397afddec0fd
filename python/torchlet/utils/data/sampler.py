"""torch.utils.data.sampler: the orders a DataLoader reads a map-style dataset in. Sequential,
Random (a permutation, or draws with replacement, from a generator seeded as PyTorch seeds it),
SubsetRandom, WeightedRandom, and Batch (lists of indices from another sampler), with PyTorch
1.13's checks and messages. Random ones draw lazily: RandomSampler(num_samples=10**10) is free."""

from typing import Generic, TypeVar

import torchlet
from torchlet.utils.data import _generator

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler",
           "WeightedRandomSampler"]

T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Iterates over indices (or keys) of a dataset. Subclasses define __iter__ and usually
    __len__; there is no default __len__, as in PyTorch."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the dataset's indices (repeated and cut to num_samples), or
    num_samples draws with replacement. Each iteration without a generator seeds a fresh one
    from a draw of the default generator, as PyTorch does."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        # The dataset's size may change between iterations.
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = _generator.new_generator(_generator.seed_from(None))
        if self.replacement:
            # In chunks of 32, as PyTorch draws them (the same numbers in the same order).
            for _ in range(self.num_samples // 32):
                yield from _generator.randint(n, 32, generator)
            yield from _generator.randint(n, self.num_samples % 32, generator)
        else:
            for _ in range(self.num_samples // n):
                yield from _generator.randperm(n, generator)
            yield from _generator.randperm(n, generator)[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (randperm of their count)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _generator.randperm(len(self.indices), self.generator):
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices in [0, len(weights)) drawn with probabilities proportional to
    weights (torch.multinomial), with or without replacement."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights_tensor = _as_double_tensor(weights)
        if weights_tensor.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        yield from _generator.multinomial(self.weights, self.num_samples, self.replacement, self.generator)

    def __len__(self):
        return self.num_samples


def _as_double_tensor(weights):
    """torch.as_tensor(weights, dtype=torch.double) for a tensor, a numpy array or a sequence."""
    if isinstance(weights, torchlet.Tensor):
        return weights.detach().to(torchlet.float64)
    import numpy

    return torchlet.tensor(numpy.asarray(weights, dtype=numpy.float64))


class BatchSampler(Sampler):
    """Lists of batch_size indices from sampler (any iterable), the last one shorter unless
    drop_last."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
