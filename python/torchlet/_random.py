"""PyTorch's CPU generator, so that torchlet.manual_seed(s) followed by nn.Linear, rand or
uniform_ draws the numbers torch.manual_seed(s) would: a 32-bit Mersenne Twister seeded with
init_genrand (numpy's legacy RandomState is the same engine and seeding), each float32 draw
(bits & 0xFFFFFF) * 2**-24 scaled to [from, to) in double, as ATen's uniform_real_distribution.
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


def uniform_array(shape, low, high):
    """A float32 numpy array of PyTorch's uniform_(low, high) draws for this shape."""
    import numpy

    n = 1
    for s in shape:
        n *= s
    low32, high32 = numpy.float32(low), numpy.float32(high)
    x = (_bits(n) & 0xFFFFFF).astype(numpy.float64) * 2.0**-24
    values = x * (numpy.float64(high32) - numpy.float64(low32)) + numpy.float64(low32)
    return values.astype(numpy.float32).reshape(tuple(shape))


def uniform(shape, low, high, dtype=None, device=None, requires_grad=False):
    return _C.tensor(uniform_array(shape, low, high), dtype=dtype, device=device, requires_grad=requires_grad)
