#!/usr/bin/python3
"""The polynomials of src/backends/cpu/vec_math.h's tanh, erf and normal_cdf (gelu's Phi;
float32, 8 or 4 lanes).

tanh, |x| < 1: tanh(x) = x + x^3 P(x^2), P of degree 7.
erf, |x| < 0.9: erf(x) = x + x Q(x^2), Q of degree 6; 0.9 <= |x| < 4: erf(x) = 1 - e^-x^2 R(t),
t = 1 / (1 + |x|), R of degree 10.
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

# erf on [0, 0.9]: erf(x) / x - 1 in u = x^2, weighted by x / erf(x).
u = nodes(0.0, 0.81)
x = np.sqrt(u)
q = fit(u, mp(mpmath.erf, x) / x - 1, x / mp(mpmath.erf, x), 6)
xs = np.linspace(1e-6, 0.9, 20001).astype(np.float32)
report("erf Q", q, xs + xs * horner(q, xs * xs), mp(mpmath.erf, xs))

# erf on [0.9, 4]: erfc(x) e^(x^2) in t = 1 / (1 + x), relative error.
x = nodes(0.9, 4.0)
scaled = mp(mpmath.erfc, x) * np.exp(x ** 2)
r = fit(1 / (1 + x), scaled, 1 / scaled, 10)  # minimises |R / scaled - 1|
xs = np.linspace(0.9, 4.0, 20001).astype(np.float32)
t = (np.float32(1) / (np.float32(1) + xs)).astype(np.float32)
e = np.exp(-(xs * xs).astype(np.float64)).astype(np.float32)
report("erf R", r, (np.float32(1) - (e * horner(r, t)).astype(np.float32)).astype(np.float32),
       mp(mpmath.erf, xs))

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
weight = np.exp(-m * m / 2)
basis = np.vstack([m ** j for j in range(13)]).T * weight[:, None]
lawson = np.ones_like(m)
for _ in range(30):
    s = np.linalg.lstsq(basis * np.sqrt(lawson)[:, None], half_erfcx(m) * weight * np.sqrt(lawson),
                        rcond=None)[0]
    lawson *= np.abs(basis @ s - half_erfcx(m) * weight)
    lawson /= lawson.sum()
s = s.astype(np.float32)
ms = np.linspace(0.0, top, 20001).astype(np.float32)
err = np.abs(horner(s, ms) - half_erfcx(ms)) * np.exp(-ms.astype(np.float64) ** 2 / 2)
print(f"Phi S: {{{', '.join(f'{float(c):.9g}f' for c in s)}}}")
print(f"  worst weighted error {err.max() / 2 ** -24:.2f} ulp of 1")
