#!/usr/bin/python3
"""The polynomials of src/backends/cpu/vec_math.h's tanh, erf and normal_cdf (gelu's gradient's
Phi; float32, 16, 8 or 4 lanes).

tanh, |x| < 1: tanh(x) = x + x^3 P(x^2), P of degree 7.
erf, a = |x| < 4 in 8 intervals of width 0.5 (k = floor(2a), u = 2a - k - 0.5): erf(a) =
a + a P_0(u) on the first, b_k + u P_k(u) on the others (b_k: erf at the middle rounded to
float), each P of degree 6 (the erf fit, below, says how).
Phi, all x: Phi(-|x|) = e^(-x^2 / 2) S(|x|), S of degree 12 (the last fit, below, says how).

Each is a least-squares fit at 3,000 Chebyshev nodes, weighted so that it minimises the error
relative to the function itself, in double with mpmath's functions (40 digits) as the
reference. Prints the coefficients rounded to float and the worst error of their float
evaluation (Horner's rule, as vec_math.h does; e^-x^2 correctly rounded) over 20,001 points of
each interval, in ulps of the exact result. Needs Debian's python3-numpy and python3-mpmath.
"""
import mpmath
import numpy as np

mpmath.mp.dps = 40
NODES = 3000


def nodes(lo, hi):
    k = np.arange(NODES)
    return lo + (hi - lo) / 2 * (1 - np.cos(np.pi * (k + 0.5) / NODES))


def fit(var, target, weight, degree):
    basis = np.vstack([var ** j for j in range(degree + 1)]).T
    return np.linalg.lstsq(basis * weight[:, None], target * weight, rcond=None)[0].astype(
        np.float32)


def lawson_fit(basis, target, weight, rounds):
    """Least squares of weight (basis c - target), reweighted rounds times towards the worst nodes
    (Lawson's iteration), which approaches the fit of the least worst weighted error."""
    lawson = np.ones_like(target)
    for _ in range(rounds):
        w = weight * np.sqrt(lawson)
        c = np.linalg.lstsq(basis * w[:, None], target * w, rcond=None)[0]
        lawson *= np.abs(basis @ c - target) * weight
        lawson /= lawson.sum()
    return c


def horner(coef, v):
    r = np.full_like(v, coef[-1])
    for c in coef[-2::-1]:
        r = (r * v + c).astype(np.float32)
    return r


def report(name, coef, got, exact):
    ulps = np.abs(got.astype(np.float64) - exact) / np.spacing(exact.astype(np.float32))
    print(f"{name}: {{{', '.join(f'{float(c):.9g}f' for c in coef)}}}")
    print(f"  worst error {ulps.max():.2f} ulp")


mp = np.vectorize(lambda f, v: float(f(mpmath.mpf(float(v)))), excluded={0})

# tanh on [0, 1]: (tanh(x) - x) / x^3 in u = x^2, weighted by x^3 / tanh(x).
u = nodes(0.0, 1.0)
x = np.sqrt(u)
p = fit(u, (mp(mpmath.tanh, x) - x) / x ** 3, x ** 3 / mp(mpmath.tanh, x), 7)
xs = np.linspace(1e-6, 1, 20001).astype(np.float32)
report("tanh P", p, xs + xs * (xs * xs) * horner(p, xs * xs), mp(mpmath.tanh, xs))

# erf: on each interval a least-squares fit at the nodes (of u in [-0.5, 0.5]) weighted by
# 1 / erf, so relative, reweighted 40 times towards the worst nodes (Lawson's iteration); for
# k >= 1 the fit is of erf - b_k with b_k already rounded. Printed: the tables as vec_math.h
# holds them (b, then P's coefficients by power, each row the 8 intervals) and the worst error of
# their float evaluation with FMA, in ulps of the exact erf, over 400,001 points of [0, 4.2].
def fma(p, q, r):
    return (p.astype(np.float64) * q + r).astype(np.float32)


erf_b = np.zeros(8, np.float32)
erf_p = np.zeros((7, 8), np.float32)
u = nodes(-0.5, 0.5)
for k in range(8):
    x = (k + 0.5 + u) / 2
    exact = mp(mpmath.erf, x)
    if k == 0:
        basis, target = np.vstack([x * u ** j for j in range(7)]).T, exact - x
    else:
        erf_b[k] = np.float32(float(mpmath.erf(mpmath.mpf(k + 0.5) / 2)))
        basis, target = np.vstack([u ** (j + 1) for j in range(7)]).T, exact - float(erf_b[k])
    erf_p[:, k] = lawson_fit(basis, target, 1 / exact, 40)
xs = np.linspace(0, 4.2, 400001).astype(np.float32)
a = np.minimum(xs, np.float32(4))
t = a + a
k = np.minimum(t, np.float32(7)).astype(np.int32)
u = ((t - np.float32(0.5)) - k.astype(np.float32)).astype(np.float32)
q = erf_p[6, k]
for j in range(5, -1, -1):
    q = fma(q, u, erf_p[j, k])
got = fma(np.where(k == 0, a, u), q, np.where(k == 0, a, erf_b[k]))
print(f"erf b: {{{', '.join(f'{float(c):.9g}f' for c in erf_b)}}}")
for j, row in enumerate(erf_p):
    print(f"erf P u^{j}: {{{', '.join(f'{float(c):.9g}f' for c in row)}}}")
exact = mp(mpmath.erf, xs)
ulps = np.abs(got.astype(np.float64) - exact) / np.spacing(exact.astype(np.float32))
print(f"  worst error {ulps.max():.2f} ulp")

# Phi(x) = 0.5 erfc(-x / sqrt 2), for gelu and its gradient: with m = |x| clamped to 4 sqrt 2,
# h = e^(-x^2 / 2) S(m) for x < 0 and 1 - h for x >= 0, S(m) ~ 0.5 erfcx(m / sqrt 2) (erfcx(t) =
# e^(t^2) erfc(t)) of degree 12 in m. Phi's error is S's times e^(-m^2 / 2), so the fit minimises
# that: least squares weighted by e^(-m^2 / 2), reweighted 30 times towards the worst nodes
# (Lawson's iteration). Printed: the worst of e^(-m^2 / 2) |S(m) - 0.5 erfcx(m / sqrt 2)| over
# [0, 4 sqrt 2], in ulps of 1.
half_erfcx = np.vectorize(lambda v: float(mpmath.erfc(mpmath.mpf(float(v)) / mpmath.sqrt(2)) *
                                          mpmath.exp(mpmath.mpf(float(v)) ** 2 / 2) / 2))
top = 4 * np.sqrt(2)
m = nodes(0.0, top)
s = lawson_fit(np.vstack([m ** j for j in range(13)]).T, half_erfcx(m), np.exp(-m * m / 2), 30)
s = s.astype(np.float32)
ms = np.linspace(0.0, top, 20001).astype(np.float32)
err = np.abs(horner(s, ms) - half_erfcx(ms)) * np.exp(-ms.astype(np.float64) ** 2 / 2)
print(f"Phi S: {{{', '.join(f'{float(c):.9g}f' for c in s)}}}")
print(f"  worst weighted error {err.max() / 2 ** -24:.2f} ulp of 1")
