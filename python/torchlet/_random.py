"""PyTorch's CPU generator, so that torchlet.manual_seed(s) followed by nn.Linear, rand or
uniform_ draws the numbers torch.manual_seed(s) would: a 32-bit Mersenne Twister seeded with
init_genrand (numpy's legacy RandomState is the same engine and seeding), each float32 draw
(bits & 0xFFFFFF) * 2**-24 scaled to [from, to) in double, as ATen's uniform_real_distribution
(a float64 draw: two 32-bit words, the first the high one, masked to 53 bits, times 2**-53).
randn and dropout draw from torchlet's C++ generator, which manual_seed reseeds too."""

from torchlet import _C

# torch.initial_seed() of a process that never called manual_seed.
DEFAULT_SEED = 67280421310721

_seed = DEFAULT_SEED
_engine = None  # numpy.random.RandomState, made on the first draw (numpy loads lazily)


def manual_seed(seed):
    """Seeds both generators; returns the seed, as torch.manual_seed returns its generator."""
    global _seed, _engine
    seed = int(seed)
    _seed, _engine = seed, None
    _C.manual_seed(seed & 0xFFFFFFFFFFFFFFFF)
    return seed


def initial_seed():
    return _seed


def _bits(n):
    global _engine
    import numpy

    if _engine is None:
        _engine = numpy.random.RandomState(_seed & 0xFFFFFFFF)
    return _engine.randint(0, 2**32, size=n, dtype=numpy.uint64)


def uniform_array(shape, low, high, dtype=None):
    """A numpy array of PyTorch's uniform_(low, high) draws for this shape: float32, or
    float64 when dtype is torchlet.float64."""
    import numpy

    n = 1
    for s in shape:
        n *= s
    if dtype == _C.float64:
        words = _bits(2 * n)
        x = ((words[0::2] << numpy.uint64(32)) | words[1::2]) & numpy.uint64((1 << 53) - 1)
        values = _fused_multiply_add(x.astype(numpy.float64) * 2.0**-53, float(high) - float(low), float(low))
        return values.reshape(tuple(shape))
    low32, high32 = numpy.float32(low), numpy.float32(high)
    x = (_bits(n) & 0xFFFFFF).astype(numpy.float64) * 2.0**-24
    values = x * (numpy.float64(high32) - numpy.float64(low32)) + numpy.float64(low32)
    return values.astype(numpy.float32).reshape(tuple(shape))


def _fused_multiply_add(a, b, c):
    """a * b + c rounded once, as ATen's float64 uniform_ computes it (its kernel is built with
    FMA): the exact product as a sum of two doubles (Veltkamp's split, Dekker's product), added
    to c with the rounding error kept (Knuth's two-sum)."""
    import numpy

    def split(v):
        t = v * 134217729.0  # 2**27 + 1
        hi = t - (t - v)
        return hi, v - hi

    a, b = numpy.asarray(a, dtype=numpy.float64), numpy.float64(b)
    p = a * b
    (ah, al), (bh, bl) = split(a), split(b)
    p_error = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    v = s - p
    s_error = (p - (s - v)) + (c - v)
    return s + (s_error + p_error)


def uniform(shape, low, high, dtype=None, device=None, requires_grad=False):
    values = uniform_array(shape, low, high, dtype)
    return _C.tensor(values, dtype=dtype, device=device, requires_grad=requires_grad)
