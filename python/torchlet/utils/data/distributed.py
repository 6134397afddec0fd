"""torch.utils.data.distributed.DistributedSampler: the share of a dataset's indices one rank
reads (every num_replicas-th of them from rank), shuffled the same way on every rank from seed +
epoch (set_epoch), padded by repeating indices or cut (drop_last) to divide evenly, as PyTorch
1.13's. Without num_replicas or rank it asks torch.distributed for the world size and rank."""

import importlib
import math

from torchlet.utils.data import _generator
from torchlet.utils.data.sampler import Sampler

__all__ = ["DistributedSampler"]


def _process_group():
    """torchlet.distributed, or PyTorch's RuntimeError when it is not there."""
    try:
        return importlib.import_module("torchlet.distributed")
    except ImportError:
        raise RuntimeError("Requires distributed package to be available") from None


class DistributedSampler(Sampler):
    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None:
            num_replicas = _process_group().get_world_size()
        if rank is None:
            rank = _process_group().get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            # The largest share every rank can have without repeating an index.
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            indices = _generator.randperm(n, _generator.new_generator(self.seed + self.epoch))
        else:
            indices = list(range(n))
        if self.drop_last:
            indices = indices[:self.total_size]
        elif self.total_size > n:
            padding = self.total_size - n
            indices += (indices * math.ceil(padding / n))[:padding]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """The epoch whose order the next iteration gives (the same on every rank)."""
        self.epoch = epoch
