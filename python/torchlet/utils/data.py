"""torch.utils.data's Dataset, TensorDataset and DataLoader. A TensorDataset's batches are
gathered on its tensors' device with index_select (one call per tensor per batch); shuffling
draws from torchlet's generator (not PyTorch's order)."""

from torchlet import _C, _random


class Dataset:
    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


class TensorDataset(Dataset):
    """Rows of tensors that share their first size: dataset[i] is (t[i] for each tensor)."""

    def __init__(self, *tensors):
        if any(t.size(0) != tensors[0].size(0) for t in tensors):
            raise ValueError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


def _shuffled(n):
    import numpy

    return numpy.argsort(_random.uniform_array((n,), 0.0, 1.0), kind="stable").astype(numpy.int64)


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=False, drop_last=False, collate_fn=None):
        self.dataset, self.batch_size, self.shuffle, self.drop_last = dataset, batch_size, shuffle, drop_last
        self.collate_fn = collate_fn

    def __len__(self):
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size

    def __iter__(self):
        n = len(self.dataset)
        order = _shuffled(n) if self.shuffle else None
        for start in range(0, n, self.batch_size):
            stop = min(start + self.batch_size, n)
            if self.drop_last and stop - start < self.batch_size:
                return
            if isinstance(self.dataset, TensorDataset) and self.collate_fn is None:
                index = _C.tensor(order[start:stop]) if order is not None else _C.arange(start, stop)
                yield [t.index_select(0, index.to(t.device)) for t in self.dataset.tensors]
            else:
                rows = [self.dataset[int(order[i]) if order is not None else i] for i in range(start, stop)]
                yield (self.collate_fn or _collate)(rows)


def _collate(rows):
    first = rows[0]
    if isinstance(first, _C.Tensor):
        return _C.stack(rows)
    if isinstance(first, (tuple, list)):
        return [_collate([r[i] for r in rows]) for i in range(len(first))]
    if isinstance(first, (int, float)):
        return _C.tensor(rows)
    return rows
