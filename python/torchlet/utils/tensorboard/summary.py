"""torch.utils.tensorboard.summary: the Summary messages of SummaryWriter's add_* methods, as
bytes, with PyTorch 1.13's values and TensorBoard's plugin metadata: a scalar (simple_value,
or a float tensor for the scalars plugin), a histogram (TensorFlow's exponential buckets,
trimmed to the occupied ones), a PNG image, text (the text plugin's string tensor) and the
three hparams plugin summaries (experiment, session start, session end)."""

import numpy as np

import torchlet
from torchlet.utils.tensorboard import _proto as pb
from torchlet.utils.tensorboard._utils import convert_to_HWC, encode_png, make_np

__all__ = ["hparams", "histogram", "histogram_raw", "image", "make_histogram", "scalar", "text"]

DT_FLOAT, DT_DOUBLE, DT_STRING = 1, 2, 7  # TensorFlow's DataType
DATA_TYPE_STRING, DATA_TYPE_FLOAT64 = 1, 3  # the hparams plugin's DataType (PyTorch writes bools as numbers)
STATUS_SUCCESS = 1


def _summary(*values):
    return pb.message(*(pb.blob(1, v) for v in values))


def _value(tag, metadata=None, simple_value=None, image=None, histo=None, tensor=None):
    """A Summary.Value: tag (1), one of simple_value (2), image (4), histo (5) or tensor (8),
    and metadata (9), in the order protobuf writes them; a oneof member is written even at 0."""
    return pb.message(pb.blob(1, tag), pb.float32(2, simple_value) if simple_value is not None else None,
                      pb.blob(4, image) if image is not None else None,
                      pb.blob(5, histo) if histo is not None else None,
                      pb.blob(8, tensor) if tensor is not None else None,
                      pb.blob(9, metadata) if metadata is not None else None)


def _plugin_metadata(plugin_name, content=b""):
    """SummaryMetadata with plugin_data (1) = PluginData(plugin_name (1), content (2))."""
    return pb.message(pb.blob(1, pb.message(pb.blob(1, plugin_name), pb.blob(2, content) if content else None)))


def scalar(name, tensor, new_style=False, double_precision=False):
    tensor = make_np(tensor).squeeze()
    if tensor.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given size: {tensor.size} and "
                             f"{tensor.ndim} dimensions.")
    value = float(tensor)
    if not new_style:
        return _summary(_value(name, simple_value=value))
    if double_precision:
        proto = pb.message(pb.integer(1, DT_DOUBLE), pb.packed_doubles(6, [value]))
    else:
        proto = pb.message(pb.integer(1, DT_FLOAT), pb.packed_floats(5, [value]))
    return _summary(_value(name, metadata=_plugin_metadata("scalars"), tensor=proto))


def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):  # noqa: A002
    """A HistogramProto: min, max, num, sum, sum_squares (1-5), bucket_limit and bucket (6, 7)."""
    histo = pb.message(pb.double(1, min) if min else None, pb.double(2, max) if max else None,
                       pb.double(3, num) if num else None, pb.double(4, sum) if sum else None,
                       pb.double(5, sum_squares) if sum_squares else None,
                       pb.packed_doubles(6, [float(b) for b in bucket_limits]) if len(bucket_limits) else None,
                       pb.packed_doubles(7, [float(c) for c in bucket_counts]) if len(bucket_counts) else None)
    return _summary(_value(name, histo=histo))


def make_histogram(values, bins, max_bins=None):
    """(min, max, num, sum, sum_squares, bucket_limits, bucket_counts) of values: numpy's
    histogram over bins, max_bins merging neighbours, cut to the buckets from the first to
    the last occupied one, with an empty bucket before them (its limit their lower edge)."""
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        group = len(counts) // max_bins
        counts = np.pad(counts, (0, -len(counts) % group)).reshape(-1, group).sum(axis=-1)
        limits = np.append(limits[:-1:group], limits[-1])
    occupied = np.flatnonzero(counts)
    if len(occupied) == 0:  # every value outside the bins
        raise ValueError("The histogram is empty, please file a bug report.")
    first, last = int(occupied[0]), int(occupied[-1])
    counts = np.concatenate([[0], counts[:last + 1]]) if first == 0 else counts[first - 1:last + 1]
    limits = limits[first:last + 2]
    return (values.min(), values.max(), len(values), values.sum(), values.dot(values), limits.tolist(),
            counts.tolist())


def histogram(name, values, bins, max_bins=None):
    return histogram_raw(name, *make_histogram(make_np(values).astype(float), bins, max_bins))


def image(tag, tensor, rescale=1, dataformats="NCHW"):
    """An 8-bit PNG of tensor (floats in [0, 1] scaled by 255, uint8 arrays as they are) as a
    Summary.Image: height (1), width (2), colorspace (3, the channel count), PNG bytes (4)."""
    if rescale != 1:
        raise NotImplementedError("torchlet's SummaryWriter writes images at their own size (rescale=1)")
    tensor = convert_to_HWC(make_np(tensor), dataformats)
    scale = 1 if tensor.dtype == np.uint8 else 255
    tensor = (tensor.astype(np.float32) * scale).astype(np.uint8)
    height, width, channels = tensor.shape
    proto = pb.message(pb.integer(1, height), pb.integer(2, width), pb.integer(3, channels),
                       pb.blob(4, encode_png(tensor)))
    return _summary(_value(tag, image=proto))


def text(tag, text):
    """The text plugin's summary: a DT_STRING tensor of shape [1] holding text, tagged
    tag + "/text_summary"; the plugin's content, TextPluginData(version=0), is empty."""
    shape = pb.message(pb.blob(2, pb.message(pb.integer(1, 1))))
    tensor = pb.message(pb.integer(1, DT_STRING), pb.blob(2, shape), pb.blob(8, text.encode("utf-8")))
    return _summary(_value(tag + "/text_summary", metadata=_plugin_metadata("text"), tensor=tensor))


def _struct_value(v):
    """A google.protobuf.Value: string_value (3) for a string, else number_value (2)."""
    return pb.blob(3, v) if isinstance(v, str) else pb.double(2, float(v))


def _hparams_summary(tag, data_field, data):
    """A Value tagged for the hparams plugin, its content HParamsPluginData with one data field."""
    content = pb.message(pb.blob(data_field, data))
    return _summary(_value(tag, metadata=_plugin_metadata("hparams", content)))


def _check_domains(hparam_dict, hparam_domain_discrete):
    if not isinstance(hparam_domain_discrete, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in hparam_domain_discrete.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                            f"hparam_dict[{k}].")


def hparams(hparam_dict=None, metric_dict=None, hparam_domain_discrete=None):
    """The hparams plugin's (experiment, session start, session end) summaries, as PyTorch
    writes them: numbers (bools too, being ints) and 1-element tensors as float64, strings as
    strings, None left out; each metric named by its tag."""
    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    hparam_domain_discrete = hparam_domain_discrete or {}
    _check_domains(hparam_dict, hparam_domain_discrete)
    infos, session = [], []
    for k, v in hparam_dict.items():
        if v is None:
            continue
        if isinstance(v, torchlet.Tensor):
            v = float(make_np(v).reshape(-1)[0])
        elif not isinstance(v, (int, float, str)):
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        kind = DATA_TYPE_STRING if isinstance(v, str) else DATA_TYPE_FLOAT64
        session.append(pb.blob(1, pb.message(pb.blob(1, k), pb.blob(2, _struct_value(v)))))
        domain = None
        if k in hparam_domain_discrete:
            domain = pb.blob(5, pb.message(*(pb.blob(1, _struct_value(d)) for d in hparam_domain_discrete[k])))
        infos.append(pb.blob(4, pb.message(pb.blob(1, k), pb.integer(4, kind), domain)))
    metrics = [pb.blob(5, pb.message(pb.blob(1, pb.message(pb.blob(2, k))))) for k in metric_dict]
    experiment = _hparams_summary("_hparams_/experiment", 2, pb.message(*infos, *metrics))
    start = _hparams_summary("_hparams_/session_start_info", 3, pb.message(*session))
    end = _hparams_summary("_hparams_/session_end_info", 4, pb.message(pb.integer(1, STATUS_SUCCESS)))
    return experiment, start, end
