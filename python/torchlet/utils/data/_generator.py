"""The random draws of the samplers, random_split and the DataLoader, made with PyTorch's
calls: a 64-bit seed as torch.empty((), dtype=torch.int64).random_(generator=g), a generator
seeded with it, randperm, randint and multinomial with generator=. Where torchlet has a
torch.Generator these are torchlet's own functions. Until then (the random area brings it) a
stand-in does the draws with PyTorch's Mersenne Twister: the default generator is
torchlet._random's, and randperm, randint and the seed draw use PyTorch's formulas on it, so a
program seeded with manual_seed shuffles as PyTorch does; multinomial is numpy's, not PyTorch's.
Delete the stand-in once torchlet.Generator exists."""

import torchlet


def _native():
    return "Generator" in vars(torchlet)


class _StandInGenerator:
    """A private generator: PyTorch's CPU engine (a 32-bit Mersenne Twister seeded with
    init_genrand of the seed's low 32 bits, as numpy's RandomState seeds it)."""

    def __init__(self, seed):
        import numpy

        self._engine = numpy.random.RandomState(seed & 0xFFFFFFFF)

    def words(self, n):
        import numpy

        return self._engine.randint(0, 2**32, size=n, dtype=numpy.uint64)


def _words(generator, n):
    """n 32-bit draws of the engine (the default one when generator is None), as Python ints."""
    if generator is None:
        from torchlet import _random

        return [int(w) for w in _random._bits(n)]
    if not isinstance(generator, _StandInGenerator):
        raise TypeError(f"generator: Expected a torch.Generator, but got {type(generator).__name__}")
    return [int(w) for w in generator.words(n)]


def seed_from(generator=None):
    """A seed drawn as PyTorch draws one: torch.empty((), dtype=torch.int64).random_(generator=g)."""
    if _native():
        return int(torchlet.empty((), dtype=torchlet.int64).random_(generator=generator).item())
    high, low = _words(generator, 2)
    return ((high << 32) | low) % 2**63


def new_generator(seed):
    """torch.Generator() seeded with manual_seed(seed)."""
    if _native():
        generator = torchlet.Generator()
        generator.manual_seed(seed)
        return generator
    return _StandInGenerator(seed)


def randperm(n, generator=None):
    """torch.randperm(n, generator=generator).tolist()."""
    if _native():
        return torchlet.randperm(n, generator=generator).tolist()
    order = list(range(n))
    for i, word in enumerate(_words(generator, max(n - 1, 0))):
        j = i + word % (n - i)
        order[i], order[j] = order[j], order[i]
    return order


def randint(high, size, generator=None):
    """torch.randint(0, high, (size,), dtype=torch.int64, generator=generator).tolist() for
    high below 2**32."""
    if _native():
        return torchlet.randint(0, high, (size,), dtype=torchlet.int64, generator=generator).tolist()
    return [word % high for word in _words(generator, size)]


def multinomial(weights, num_samples, replacement, generator=None):
    """torch.multinomial(weights, num_samples, replacement, generator=generator).tolist() for a
    1-d float64 tensor of weights."""
    if _native():
        return torchlet.multinomial(weights, num_samples, replacement, generator=generator).tolist()
    import numpy

    p = weights.numpy().astype(numpy.float64)
    if not (p >= 0).all() or not numpy.isfinite(p).all():
        raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
    if p.sum() <= 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement and num_samples > len(p):
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    u = (numpy.array(_words(generator, num_samples if replacement else len(p)), dtype=numpy.float64) + 0.5) / 2**32
    if replacement:
        cumulative = numpy.cumsum(p)
        return numpy.searchsorted(cumulative, u * cumulative[-1], side="right").tolist()
    # Without replacement: the largest keys u ** (1 / p) (Efraimidis and Spirakis), zero weights last.
    with numpy.errstate(divide="ignore"):
        keys = numpy.where(p > 0, numpy.log(u) / p, -numpy.inf)
    return numpy.argsort(-keys, kind="stable")[:num_samples].tolist()
