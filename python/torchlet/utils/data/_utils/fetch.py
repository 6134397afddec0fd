"""How a batch is read from a dataset, in the main process or a worker: a map-style dataset at
a list of indices (or one key when batching is off), an iterable one by next() until its
stream ends. A TensorDataset collated by default_collate is gathered with one index_select
per tensor on the tensors' device, without a Python call per sample: the same batch, faster."""

import torchlet
from torchlet.utils.data._utils.collate import default_collate
from torchlet.utils.data.dataset import TensorDataset


class _BaseDatasetFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last

    def fetch(self, possibly_batched_index):
        raise NotImplementedError


class _IterableDatasetFetcher(_BaseDatasetFetcher):
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, possibly_batched_index):
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in possibly_batched_index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if len(data) == 0 or (self.drop_last and len(data) < len(possibly_batched_index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


class _MapDatasetFetcher(_BaseDatasetFetcher):
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        # Exactly a TensorDataset (a subclass may index differently) under default_collate.
        self.gather = auto_collation and type(dataset) is TensorDataset and collate_fn is default_collate

    def fetch(self, possibly_batched_index):
        if self.gather:
            index = torchlet.tensor(list(possibly_batched_index), dtype=torchlet.int64)
            return [t.index_select(0, index.to(t.device)) for t in self.dataset.tensors]
        if self.auto_collation:
            if getattr(self.dataset, "__getitems__", None):
                data = self.dataset.__getitems__(possibly_batched_index)
            else:
                data = [self.dataset[idx] for idx in possibly_batched_index]
        else:
            data = self.dataset[possibly_batched_index]
        return self.collate_fn(data)
