"""The random walk kernel on the infinite d-regular tree (Urry & Sollich 2013, Sec. 2.1).

On the infinite ``d``-regular tree every vertex looks the same, so the random walk kernel
``C = (I - L/a)^p`` (eq. 2) depends only on the distance ``l`` between two vertices. Its
values ``C_{l,p}``, normalised so that the prior variance is ``C_{0,p} = 1``, are what a
large random ``d``-regular graph shows as long as ``p/a`` stays below the cycle threshold
``log(V) / log(d - 1)`` (eq. 7). They come three ways:

* the **recursion** over the number of steps (eq. 4), accurate to a few ulps per step
  (every term is non-negative);
* the **quadrature** of the Chung–Yau integrals (eqs. 47–48) over the spectrum of the
  tree, whose cost does not grow with ``p`` beyond ``O(sqrt(p))`` nodes;
* the **limit** ``p -> inf`` (eq. 5), ``C_{l,inf} = [1 + l (d - 2)/d] (d - 1)^(-l/2)``.

Examples
--------
>>> regular_tree_kernel(3, a=2.0, p=10, l_max=3).round(4).tolist()
[1.0, 0.7901, 0.4647, 0.2128]
>>> regular_tree_kernel(3, a=2.0, p=np.inf, l_max=3).round(4).tolist()
[1.0, 0.9428, 0.8333, 0.7071]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.fft

from kernelkit._memory import check_memory
from kernelkit._validation import check_in, check_int
from kernelkit.graphs.vertex_kernels import _check_a

__all__ = ["regular_tree_kernel"]

_METHODS = ("recursion", "quadrature")


def regular_tree_kernel(
    d: Any, a: Any = 2.0, p: Any = 10, l_max: Any = 14, *, method: str = "recursion"
) -> np.ndarray:
    r"""The normalised random walk kernel ``C_{l,p}`` on the infinite ``d``-regular tree.

    ``C_{l,p}`` is the entry of ``(I - L/a)^p`` between two vertices ``l`` edges apart,
    divided by the diagonal entry, so that ``C_{0,p} = 1`` (Urry & Sollich 2013, Sec.
    2.1). All vertices of the tree are equivalent, so this one profile is the whole
    kernel.

    Parameters
    ----------
    d : int
        Degree of every vertex, ``d >= 2``. ``d = 2`` is the infinite chain, where all
        three methods still hold (the limit is ``C_{l,inf} = 1``: on the chain the kernel
        flattens out without bound).
    a : float, default 2.0
        The random walk kernel's ``a > 1`` (the walk moves with probability ``1/a`` per
        step). ``a > 1`` makes every coefficient of the binomial form (eq. 3) positive,
        so ``C_hat_{0,p} >= (1 - 1/a)^p > 0`` and the normalisation is well defined, and
        it makes the bottom edge ``lambda_- = 1 - 2 sqrt(d - 1)/d`` of the spectrum
        dominate for large ``p``, so that eq. 5 is the limit. ``1 < a < 2`` is allowed
        here: the values are well defined, although on a graph with a Laplacian
        eigenvalue above ``a`` the kernel is not positive semi-definite for odd ``p``
        (see :func:`kernelkit.graphs.random_walk_kernel`).
    p : int or numpy.inf, default 10
        Number of steps, ``p >= 0``; ``p = numpy.inf`` gives the limit eq. 5 (whatever
        ``method``).
    l_max : int, default 14
        Largest distance returned, ``l_max >= 0``.
    method : {"recursion", "quadrature"}, default "recursion"
        How finite ``p`` is computed:

        * ``"recursion"`` iterates eq. 4 ``p`` times, renormalising at each step
          (``gamma_p``): ``C_{l,p+1}`` is a three-term stencil of ``C_{.,p}``, vectorised
          over ``l``. Values beyond distance ``p`` are exactly 0. Cost
          ``O(p (p + l_max))``; use ``"quadrature"`` for ``p`` in the tens of thousands
          and beyond.
        * ``"quadrature"`` integrates eqs. 47–48 by the midpoint rule in ``x``, the
          angle of ``lambda = 1 - 2 sqrt(d - 1) cos(x)/d``. This substitution turns the
          square-root edges of the Kesten–McKay spectral density into an even,
          ``2 pi``-periodic analytic integrand, on which the rule (Gauss–Chebyshev in
          ``cos x``) converges geometrically; ``2 (l_max + 10 sqrt(p)) + 128`` nodes or
          more reach double precision. ``(1 - lambda/a)^p`` is taken relative to its
          value at ``lambda_-`` and in logs, so nothing overflows or underflows to NaN
          for any ``p``. Cost ``O(n log n)`` in the number ``n`` of nodes (a discrete
          sine transform).

    Returns
    -------
    C : ndarray of shape (l_max + 1,)
        ``C[l] = C_{l,p}`` for ``l = 0..l_max``; ``C[0] = 1``.

    Raises
    ------
    TypeError
        If ``d`` or ``l_max`` is not an integer, ``a`` not a real number, or ``p``
        neither an integer nor ``numpy.inf``.
    ValueError
        If ``d < 2``, ``a <= 1`` or not finite, ``p < 0``, ``l_max < 0``, or ``method``
        is not one of ``"recursion"``, ``"quadrature"``.

    See Also
    --------
    kernelkit.graphs.random_walk_kernel : The same kernel on a finite graph.

    Notes
    -----
    Eq. 4 (Urry & Sollich 2013): ``C_{l,0} = delta_{l,0}``,

    .. math::

        \gamma_{p+1} C_{0,p+1} &= (1 - 1/a) C_{0,p} + C_{1,p}/a, \\
        \gamma_{p+1} C_{l,p+1} &= C_{l-1,p}/(ad) + (1 - 1/a) C_{l,p}
                                  + (d-1) C_{l+1,p}/(ad), \quad l \ge 1,

    with ``gamma_{p+1}`` chosen so that ``C_{0,p+1} = 1``. Eqs. 47–48 (from Chung & Yau
    1999) give the unnormalised values as integrals over ``x in [0, pi]`` of
    ``f(x)^p s_l(x)`` with ``f(x) = 1 - (1 - 2 cos(x) sqrt(d-1)/d)/a`` and

    .. math::

        s_l(x) = \frac{2}{\pi (d-1)^{l/2 - 1}}
                 \frac{\sin x\,[(d-1) \sin((l+1)x) - \sin((l-1)x)]}
                      {d^2 - 4 (d-1) \cos^2 x};

    eq. 47 for ``l = 0`` is eq. 48 at ``l = 0``, so one formula serves every ``l``. The
    denominator is evaluated as ``(d-2)^2 + 4 (d-1) sin^2 x``, without cancellation,
    which also covers the chain ``d = 2`` (there ``s_l(x) = cos(l x)/pi``). For large
    ``p`` the profile approaches eq. 5 as ``C_{l,inf} (1 - K_l/p + o(1/p))`` with
    ``K_l > 0`` growing like ``l^2 d a / (4 sqrt(d - 1))`` at large ``l`` (the Gaussian
    cutoff of Appendix A.2): at ``d = 3``, ``a = 2``, ``p = 5000`` the largest deviation
    over ``l <= 14`` is about ``5e-3``, that of ``C_{1,p}`` about ``6e-4``.

    References
    ----------
    M. Urry and P. Sollich, "Random walk kernels and learning curve prediction for
    Gaussian process regression on random graphs", JMLR 14 (2013), eqs. 4, 5, 7, 47–48.

    Examples
    --------
    The nearest-neighbour value on the 3-regular tree with ``a = 2`` climbs towards
    ``2 sqrt(2)/3 = 0.9428`` (Fig. 1):

    >>> [round(float(regular_tree_kernel(3, 2.0, p, l_max=1)[1]), 3) for p in (10, 100)]
    [0.79, 0.919]
    >>> round(float(regular_tree_kernel(3, 2.0, np.inf, l_max=1)[1]), 4)
    0.9428

    Both methods agree, and the kernel vanishes beyond distance ``p``:

    >>> C = regular_tree_kernel(4, a=3.0, p=2, l_max=4)
    >>> C.round(4).tolist()  # 4/17 and 1/68
    [1.0, 0.2353, 0.0147, 0.0, 0.0]
    >>> Q = regular_tree_kernel(4, a=3.0, p=2, l_max=4, method="quadrature")
    >>> bool(np.allclose(C, Q, rtol=0, atol=1e-13))
    True
    """
    d = check_int(d, "d", minimum=2)
    a = _check_a(a)
    p_steps = _check_steps(p)
    l_max = check_int(l_max, "l_max", minimum=0)
    check_in(method, "method", _METHODS)
    if p_steps is None:
        return _tree_kernel_limit(d, l_max)
    if method == "recursion":
        return _tree_kernel_recursion(d, a, p_steps, l_max)
    return _tree_kernel_quadrature(d, a, p_steps, l_max)


def _check_steps(p: Any) -> int | None:
    """``p`` as an int, or None for ``numpy.inf`` (the limit eq. 5)."""
    if isinstance(p, (float, np.floating)) and math.isinf(p) and p > 0:
        return None
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, np.integer)):
        raise TypeError(
            f"p must be a non-negative integer or numpy.inf, got {type(p).__name__} {p!r}"
        )
    return check_int(p, "p", minimum=0)


def _tree_kernel_limit(d: int, l_max: int) -> np.ndarray:
    """Eq. 5: ``C_{l,inf} = [1 + l (d-2)/d] (d-1)^(-l/2)``."""
    l = np.arange(l_max + 1, dtype=np.float64)
    return (1.0 + l * (d - 2) / d) * np.exp(-0.5 * l * math.log(d - 1))


def _tree_kernel_recursion(d: int, a: float, p: int, l_max: int) -> np.ndarray:
    """Eq. 4, iterated ``p`` times on a truncated array of distances.

    The value at distance ``l`` after ``p`` steps depends on the values at step ``s`` up
    to distance ``l + p - s`` only, and those vanish beyond distance ``s``; so a wrong
    value caused by cutting the array at length ``n`` (missing inflow from index ``n``,
    possible only once ``s >= n``) reaches the end no lower than ``2 n - p``. Hence
    ``n > (l_max + p)/2`` keeps ``l <= l_max`` exact, at half the cost of ``n = l_max + p``.
    """
    n = max(l_max, (l_max + p) // 2) + 2
    check_memory(3 * 8 * n, f"regular_tree_kernel(p={p}, l_max={l_max})", "lower p or l_max")
    stay, inward, outward = 1.0 - 1.0 / a, 1.0 / (a * d), (d - 1) / (a * d)
    c = np.zeros(n)
    c[0] = 1.0
    for _ in range(p):
        new = stay * c
        new[1:] += inward * c[:-1]  # from the one neighbour at distance l - 1
        new[1:-1] += outward * c[2:]  # from the d - 1 neighbours at distance l + 1
        new[0] += c[1] / a  # all d neighbours of the root are at distance 1
        c = new / new[0]  # gamma_{p+1}: new[0] >= (1 - 1/a) c[0] > 0
    return c[: l_max + 1].copy()


def _tree_kernel_quadrature(d: int, a: float, p: int, l_max: int) -> np.ndarray:
    """Eqs. 47–48 by the midpoint rule in ``x`` (geometric convergence, see the caller).

    With nodes ``x_k = (k + 1/2) pi / n`` and ``g_k = w(x_k) sin(x_k) / den(x_k)``, the
    sums ``S_m = sum_k g_k sin(m x_k)`` for ``m = 1..n`` are one type-II discrete sine
    transform, and ``C_l = (d-1)^(-l/2) [(d-1) S_{l+1} - S_{l-1}] / (d S_1)`` with
    ``S_{-1} = -S_1``; the constant factors of eqs. 47–48 cancel in the ratio.
    """
    n = scipy.fft.next_fast_len(2 * (l_max + math.ceil(10.0 * math.sqrt(p))) + 128)
    check_memory(6 * 8 * n, f"regular_tree_kernel(p={p}, l_max={l_max})", "lower p or l_max")
    x = (np.arange(n) + 0.5) * (math.pi / n)
    sin_x = np.sin(x)
    # f(x) / f(0) = 1 + t, t = -2 c sin^2(x/2) / f(0) with c = 2 sqrt(d-1)/(a d): the weight
    # (1 - lambda/a)^p relative to its largest value (at lambda_-), in logs. |1 + t| <= 1
    # for a > 1, so the power never overflows; it underflows to 0 harmlessly.
    c = 2.0 * math.sqrt(d - 1) / (a * d)
    t = -2.0 * c * np.sin(0.5 * x) ** 2 / (1.0 - 1.0 / a + c)
    if p == 0:
        w = np.ones(n)
    else:
        r = 1.0 + t
        log_abs = np.full(n, -np.inf)
        pos, neg = r > 0, r < 0
        log_abs[pos] = np.log1p(t[pos])
        log_abs[neg] = np.log(-r[neg])
        w = np.exp(p * log_abs)
        if p % 2:
            w[neg] = -w[neg]
    g = w * sin_x / ((d - 2) ** 2 + 4.0 * (d - 1) * sin_x**2)
    S = 0.5 * scipy.fft.dst(g, type=2)  # S[m - 1] = sum_k g_k sin(m x_k), m = 1..n
    S_ext = np.concatenate(([-S[0], 0.0], S))  # S_ext[m + 1] = S_m for m = -1..n
    l = np.arange(l_max + 1)
    C = np.exp(-0.5 * l * math.log(d - 1)) * ((d - 1) * S_ext[l + 2] - S_ext[l]) / (d * S[0])
    C[0] = 1.0
    return C
