"""torch.utils.data: datasets, samplers and DataLoader, laid out as PyTorch 1.13's package
(dataset, sampler, distributed, dataloader, _utils.collate/fetch/worker). What PyTorch's
package has and torchlet's lacks (the datapipes) stops with one line naming it."""

from torchlet.utils.data.dataset import (
    ChainDataset, ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split,
)
from torchlet.utils.data.sampler import (
    BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler, WeightedRandomSampler,
)
from torchlet.utils.data.distributed import DistributedSampler
from torchlet.utils.data.dataloader import (  # noqa: F401 (_DatasetKind: PyTorch exports it too)
    DataLoader, _DatasetKind, default_collate, default_convert, get_worker_info,
)

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
    "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "Subset", "SubsetRandomSampler",
    "TensorDataset", "WeightedRandomSampler", "default_collate", "default_convert", "get_worker_info",
    "random_split",
]


def __getattr__(name):
    from torchlet._drop_in import module_getattr

    raise module_getattr(__name__, name)
