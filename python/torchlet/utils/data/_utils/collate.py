"""torch.utils.data._utils.collate: default_collate (a list of samples to one batch: tensors
and numpy arrays stacked, ints to int64, floats to float64, bools to bool tensors, strings and
bytes left as lists, dicts, namedtuples, tuples and lists collated field by field),
default_convert (numpy arrays to tensors, nothing stacked), and collate with the type registry
default_collate_fn_map that programs extend, as PyTorch 1.13's."""

import collections.abc
import re

import numpy

import torchlet

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert"]

string_classes = (str, bytes)

# numpy dtypes of strings and objects, which do not become tensors.
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")


def _as_tensor(value):
    """torch.as_tensor of a numpy array or scalar (a copy: torchlet has fewer dtypes to share)."""
    return torchlet.tensor(numpy.asarray(value))


def default_convert(data):
    """Converts numpy arrays and scalars (at any depth of dicts, namedtuples, tuples and lists)
    to tensors; everything else is returned as it is. A tuple becomes a list, as in PyTorch."""
    elem_type = type(data)
    if isinstance(data, torchlet.Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return _as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:  # a mapping type that cannot be built from a dict
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, string_classes):
        try:
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map=None):
    """Collates batch (a list of samples) by the type of its first sample: a type of
    collate_fn_map (exactly, then by isinstance in the map's order) calls its function;
    mappings, namedtuples and sequences are collated field by field; anything else is a
    TypeError."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        fields = {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
        try:
            return elem_type(fields)
        except TypeError:
            return fields
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        try:
            return elem_type(columns)
        except TypeError:
            return columns
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    return torchlet.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    # One stack in numpy, one tensor: what stacking each array's tensor gives.
    return torchlet.from_numpy(numpy.stack(batch))


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return _as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    return torchlet.tensor(batch, dtype=torchlet.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return torchlet.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


# In this order: a type is matched exactly first, then by isinstance in the map's order (a
# bool is an int, a numpy float64 a float).
default_collate_fn_map = {
    torchlet.Tensor: collate_tensor_fn,
    numpy.ndarray: collate_numpy_array_fn,
    (numpy.bool_, numpy.number, numpy.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    string_classes: collate_str_fn,
}


def default_collate(batch):
    """Puts a list of samples into a batch with a new first dimension (see the module's text)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
