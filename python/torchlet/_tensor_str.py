"""Printing tensors as PyTorch prints them: tensor([[ 0.1234, -1.0000], ...]) with PyTorch's
choice of integer, fixed (4 decimals) or scientific notation, line width 80 and summarisation
past 1000 elements, dtype=torchlet.float64 where the dtype is not a default one, and
grad_fn=<MulBackward0> as PyTorch names its nodes."""

import math

_LINEWIDTH = 80
_THRESHOLD = 1000
_EDGEITEMS = 3


class _Formatter:
    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not floating:
            self.width = max((len(str(v)) for v in values), default=1)
            return
        finite = [abs(v) for v in values if math.isfinite(v)]
        nonzero = [v for v in finite if v != 0]
        self.int_mode = all(v == math.ceil(v) for v in finite)
        if nonzero:
            lo, hi = min(nonzero), max(nonzero)
            if self.int_mode:
                self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8
            else:
                self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        self.width = max((len(self._plain(v)) for v in values), default=1)

    def _plain(self, v):
        if not self.floating:
            return str(v)
        if not math.isfinite(v):
            return str(v)
        if self.sci_mode:
            return f"{v:.4e}"
        if self.int_mode:
            return f"{v:.0f}."
        return f"{v:.4f}"

    def format(self, v):
        return self._plain(v).rjust(self.width)


def _summarized(t):
    return t.numel() > _THRESHOLD


def _flat_values(values, t, summarize):
    """The values that will be printed (edges only when summarising)."""
    if t.dim() == 0:
        values.append(t.item())
        return
    n = t.size(0)
    rows = list(range(n))
    if summarize and n > 2 * _EDGEITEMS:
        rows = rows[:_EDGEITEMS] + rows[-_EDGEITEMS:]
    if t.dim() == 1:
        values.extend(t[i].item() for i in rows)
        return
    for i in rows:
        _flat_values(values, t[i], summarize)


def _format(t, fmt, indent, summarize):
    if t.dim() == 0:
        return fmt.format(t.item())
    n = t.size(0)
    if t.dim() == 1:
        items = [fmt.format(t[i].item()) for i in range(n)]
        if summarize and n > 2 * _EDGEITEMS:
            items = items[:_EDGEITEMS] + ["..."] + items[-_EDGEITEMS:]
        per_line = max(1, (_LINEWIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = list(range(n))
    parts = []
    for k, i in enumerate(rows):
        if summarize and n > 2 * _EDGEITEMS and _EDGEITEMS <= k < n - _EDGEITEMS:
            if k == _EDGEITEMS:
                parts.append("...")
            continue
        parts.append(_format(t[i], fmt, indent + 1, summarize))
    separator = "," + "\n" * (t.dim() - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def tensor_repr(t, prefix="tensor("):
    from torchlet import _C

    data = t.detach().cpu()
    summarize = _summarized(data)
    values = []
    _flat_values(values, data, summarize)
    fmt = _Formatter(values, data.dtype.is_floating_point)
    if data.numel() == 0:
        body = "[]"
    else:
        body = _format(data, fmt, len(prefix), summarize)
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    if data.numel() == 0 and t.dim() != 1:
        suffixes.append(f"size={tuple(t.shape)}")
    if t.dtype == _C.float64:  # float32, int64 and bool are PyTorch's defaults, left unsaid
        suffixes.append(f"dtype={t.dtype!r}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return prefix + body + "".join(", " + s for s in suffixes) + ")"
