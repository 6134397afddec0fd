"""What the summaries need from their inputs: a numpy array of a tensor, an array, or a number
(make_np); an image in any layout as HWC (convert_to_HWC, with a batch laid out as a grid of
8 columns by make_grid); and PNG bytes of an 8-bit image, written with zlib from the standard
library (one IDAT chunk, every row unfiltered)."""

import struct
import zlib

import numpy as np

import torchlet


def make_np(x):
    """x as a numpy array: a tensor detached and copied to the CPU, a number as a 1-element array."""
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, torchlet.Tensor):
        return x.detach().cpu().numpy()
    if np.isscalar(x) and not isinstance(x, str):
        return np.array([x])
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def make_grid(images, ncols=8):
    """A (3, H * rows, W * cols) canvas of N (1 or 3, H, W) images, row by row, 8 to a row."""
    if images.shape[1] == 1:
        images = np.concatenate([images, images, images], 1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError("plugin error, should pass numpy array here")
    n, _, h, w = images.shape
    ncols = min(n, ncols)
    nrows = -(-n // ncols)
    canvas = np.zeros((3, h * nrows, w * ncols), dtype=images.dtype)
    for i in range(n):
        y, x = divmod(i, ncols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = images[i]
    return canvas


def convert_to_HWC(tensor, input_format):  # noqa: N802 (PyTorch's name)
    """tensor laid out as input_format (NCHW, NHWC, CHW, HWC, HW, ...) as HWC with 3 channels
    (a batch as a grid, one channel or none repeated thrice)."""
    if len(set(input_format)) != len(input_format):
        raise AssertionError(f"You can not use the same dimension shordhand twice.         input_format: "
                             f"{input_format}")
    if len(tensor.shape) != len(input_format):
        raise AssertionError(f"size of input tensor and input format are different.         tensor shape: "
                             f"{tensor.shape}, input_format: {input_format}")
    input_format = input_format.upper()
    if len(input_format) == 4:
        nchw = tensor.transpose([input_format.find(c) for c in "NCHW"])
        return make_grid(nchw).transpose(1, 2, 0)
    if len(input_format) == 3:
        hwc = tensor.transpose([input_format.find(c) for c in "HWC"])
        return np.concatenate([hwc, hwc, hwc], 2) if hwc.shape[2] == 1 else hwc
    hw = tensor.transpose([input_format.find(c) for c in "HW"])
    return np.stack([hw, hw, hw], 2)


# PNG colour types by channel count: grey, grey and alpha, RGB, RGBA.
_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode_png(hwc):
    """PNG bytes of an (H, W, C) uint8 array, C in 1..4."""
    height, width, channels = hwc.shape
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPES[channels], 0, 0, 0)
    rows = np.concatenate([np.zeros((height, 1), np.uint8), np.ascontiguousarray(hwc).reshape(height, -1)], 1)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows.tobytes(), 6))
            + _chunk(b"IEND", b""))
