"""What crosses between the DataLoader and its worker processes: indices one way, batches
(or a worker's exception) the other, pickled here by the sender, so that an object that cannot
be pickled fails in the worker with its own traceback instead of being lost in a queue's
feeder thread. Tensors travel as numpy arrays (dtype, shape and data; the device and
requires_grad alongside) and are rebuilt as tensors by the receiver."""

import io
import pickle

import torchlet


def _rebuild_tensor(array, device, requires_grad):
    tensor = torchlet.from_numpy(array if array.flags.writeable else array.copy())
    if device != "cpu":
        tensor = tensor.to(device)
    return tensor.requires_grad_(True) if requires_grad else tensor


def _reduce_tensor(tensor):
    if tensor.requires_grad and tensor.grad_fn is not None:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
                           "does not support crossing process boundaries.  If you just want to transfer the data, "
                           "call detach() on the tensor before serializing (e.g., putting it on the queue).")
    array = tensor.detach().cpu().numpy()
    return _rebuild_tensor, (array, str(tensor.device), tensor.requires_grad)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        # Tensors and their subclasses (a Parameter travels as a plain tensor).
        if isinstance(obj, torchlet.Tensor):
            return _reduce_tensor(obj)
        return NotImplemented


def dumps(obj):
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buffer.getvalue()


def loads(data):
    return pickle.loads(data)
