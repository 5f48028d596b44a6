"""Hyperparameter gradients on cross blocks: ``k.gradient_dot(X, W, Y)``.

``sum_ij W_ij d k(X_i, Y_j) / dtheta`` is what a matrix-free (conjugate-gradient) GP sums
over row blocks: the diagonal blocks through the square ``gradient_dot(X[R], W[R, R])``,
the others through the cross one. It is checked against central finite differences of
``vdot(W, k(X, Y))`` in ``theta``, against the dense gradient's cross block, and against
the square contraction it must add up to; on inputs of scale 1e-3 to 1e3, far from the
origin, and far enough apart that distances come from differences instead of the BLAS
expansion.

Tolerances, relative to ``sum|W| max|K|`` (the size of ``vdot(W, K)``): finite differences
(step 1e-5 in ``theta``) within ``rtol=1e-6`` plus ``1e-8`` of it (the worst seen over
two thousand draws: 1.1e-9; 9e-8 relative on entries above 1e-3 of it); the dense
gradient within ``rtol=1e-9`` plus ``1e-9`` of it (worst seen: 4e-11, on inputs 1e6
spreads from the origin, where ``x / lengthscale`` is rounded before the differences are
taken, as on the square path); the blocks within ``rtol=1e-9`` plus ``1e-12`` of it (worst
seen: 3e-15).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_cases import LS, VAR, VECTOR_CASES, Case, Draw

from kernelkit.kernels import (
    RBF,
    Constant,
    Kernel,
    Laplace,
    Linear,
    Matern,
    Polynomial,
    RationalQuadratic,
    Sinc,
    White,
    _blocks,
    compose,
    exp,
    parameter,
)

H = 1e-5  # the finite-difference step in theta


def _fd(k: Kernel, X: np.ndarray, W: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Central differences of ``vdot(W, k(X, Y))`` in each entry of ``theta``."""
    theta = k.theta
    out = np.empty(theta.size)
    for p in range(theta.size):
        e = np.zeros_like(theta)
        e[p] = H
        hi = np.vdot(W, k.with_theta(theta + e)(X, Y))
        lo = np.vdot(W, k.with_theta(theta - e)(X, Y))
        out[p] = (hi - lo) / (2 * H)
    return out


def _dense(k: Kernel, X: np.ndarray, W: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """The contraction through the dense gradient: the ``(X, Y)`` block of ``dK/dtheta``
    on the stacked inputs (off the diagonal block, where a White term is 0 as in
    ``k(X, Y)``)."""
    n = X.shape[0]
    G = k.gradient(np.vstack([X, Y]))[:n, n:]
    return np.einsum("ij,ijp->p", W, G)


def _size(k: Kernel, X: np.ndarray, W: np.ndarray, Y: np.ndarray) -> float:
    """``sum|W| max|K|``: the size of ``vdot(W, K)``, what tolerances are relative to."""
    return float(np.abs(W).sum()) * max(1.0, float(np.abs(k(X, Y)).max()))


def _check(
    k: Kernel, X: np.ndarray, W: np.ndarray, Y: np.ndarray, fd_atol: float, shift: Any = 0.0
) -> None:
    """Against differences and the dense gradient. Differences are taken on the inputs
    moved by ``-shift`` (a stationary kernel's inputs, moved back near the origin): far from
    it, rounding ``x / lengthscale`` moves each value by ``~eps |x| / lengthscale``, which
    the step of 1e-5 would amplify (to ~5e-6 relative at 1e6 lengthscales)."""
    got = k.gradient_dot(X, W, Y)
    assert got.shape == (k.n_dims,)
    size = _size(k, X, W, Y)
    fd = _fd(k, X - shift, W, Y - shift)
    np.testing.assert_allclose(got, fd, rtol=1e-6, atol=fd_atol * size)
    np.testing.assert_allclose(got, _dense(k, X, W, Y), rtol=1e-9, atol=1e-9 * size)


# --------------------------------------------------------------------------- the catalogue
@pytest.mark.parametrize("case", VECTOR_CASES, ids=repr)
@settings(max_examples=6, deadline=None, derandomize=True)
@given(data=st.data())
def test_every_kernel_matches_differences_and_the_dense_gradient(case: Case, data) -> None:
    """Every kernel of the catalogue (composites, fixed and free shape parameters), on
    unit-scale inputs where ``Y`` shares a row with ``X`` (a coincident pair)."""
    d = data.draw(st.integers(1, case.max_d), label="d")
    n, m = data.draw(st.integers(1, 6), label="n"), data.draw(st.integers(1, 7), label="m")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    X, Y = rng.standard_normal((n, d)), rng.standard_normal((m, d))
    Y[0] = X[-1]
    k = case.build(Draw(data=data), d)
    _check(k, X, rng.standard_normal((n, m)), Y, fd_atol=1e-8)


# --------------------------------------------------------------------------- scales, offsets
def _ard(p: Draw, d: int, s: float) -> np.ndarray:
    return s * p.vec(*LS, d)


def _iso(p: Draw, s: float) -> float:
    return s * p.logu(*LS)


def _shape(p: Draw) -> float:
    return p.logu(0.1, 10.0)


#: Builders ``(draw, d, s)`` of kernels for inputs of spread ``s``: lengthscales scale with
#: the inputs, so that the kernels are neither constant nor 0 off the diagonal.
SCALED: dict[str, tuple[Callable[[Draw, int, float], Kernel], int]] = {
    "rbf": (lambda p, d, s: RBF(_iso(p, s), p.logu(*VAR)), 5),
    "rbf_ard": (lambda p, d, s: RBF(_ard(p, d, s), p.logu(*VAR)), 5),
    "rbf_ard_fixed_variance": (lambda p, d, s: RBF(_ard(p, d, s), variance_bounds="fixed"), 5),
    "rbf_fixed_lengthscale": (
        lambda p, d, s: RBF(_iso(p, s), p.logu(*VAR), lengthscale_bounds="fixed"),
        5,
    ),
    "all_fixed": (
        lambda p, d, s: RBF(_ard(p, d, s), lengthscale_bounds="fixed", variance_bounds="fixed"),
        5,
    ),
    "laplace": (lambda p, d, s: Laplace(_iso(p, s), p.logu(*VAR)), 5),
    "laplace_ard": (lambda p, d, s: Laplace(_ard(p, d, s), p.logu(*VAR)), 5),
    "matern_3/2": (lambda p, d, s: Matern(_iso(p, s), p.logu(*VAR), nu=1.5), 5),
    "matern_5/2_ard": (lambda p, d, s: Matern(_ard(p, d, s), p.logu(*VAR), nu=2.5), 5),
    "matern_0.7_ard": (lambda p, d, s: Matern(_ard(p, d, s), p.logu(*VAR), nu=0.7), 5),
    "matern_3.3": (lambda p, d, s: Matern(_iso(p, s), p.logu(*VAR), nu=3.3), 5),
    "matern_inf_ard": (lambda p, d, s: Matern(_ard(p, d, s), p.logu(*VAR), nu=np.inf), 5),
    "rq": (lambda p, d, s: RationalQuadratic(_iso(p, s), p.logu(*VAR), _shape(p)), 5),
    "rq_ard": (lambda p, d, s: RationalQuadratic(_ard(p, d, s), p.logu(*VAR), _shape(p)), 5),
    "rq_fixed_shape": (
        lambda p, d, s: RationalQuadratic(_ard(p, d, s), shape=_shape(p), shape_bounds="fixed"),
        5,
    ),
    "rq_shape_only": (
        lambda p, d, s: RationalQuadratic(
            _iso(p, s), shape=_shape(p), lengthscale_bounds="fixed", variance_bounds="fixed"
        ),
        5,
    ),
    "sinc_ard": (lambda p, d, s: Sinc(_ard(p, d, s), p.logu(*VAR)), 3),
    "gp": (
        lambda p, d, s: (
            Constant(p.logu(*VAR)) * RBF(_ard(p, d, s), variance_bounds="fixed")
            + White(p.logu(0.01, 1.0))
        ),
        5,
    ),
    "sum": (
        lambda p, d, s: Matern(_iso(p, s), nu=2.5) + RationalQuadratic(_ard(p, d, s)),
        5,
    ),
    "product": (lambda p, d, s: RBF(_ard(p, d, s)) * Laplace(_iso(p, s), p.logu(*VAR)), 5),
    "scaled": (lambda p, d, s: p.logu(0.1, 10.0) * Laplace(_ard(p, d, s)), 5),
    "power": (lambda p, d, s: Matern(_iso(p, s), p.logu(*VAR), nu=2.5) ** 3, 5),
    "exp": (lambda p, d, s: exp(RBF(_ard(p, d, s), p.logu(0.1, 2.0))), 5),
    "compose_ard": (
        lambda p, d, s: compose(Matern(_ard(p, 2 * d, s), nu=1.5), _stack_half),
        5,
    ),
    "linear": (lambda p, d, s: Linear(p.logu(*VAR) / s**2), 5),
    "polynomial": (
        lambda p, d, s: Polynomial(p.integer(1, 3), p.logu(0.1, 2.0) / s**2, p.logu(0.1, 3.0)),
        5,
    ),
}


def _stack_half(X: np.ndarray) -> np.ndarray:
    """A linear feature map (keeps the scale of the inputs, unlike the catalogue's)."""
    return np.hstack([X, 0.5 * X[:, ::-1]])


@pytest.mark.parametrize("name", list(SCALED))
@settings(max_examples=10, deadline=None, derandomize=True)
@given(data=st.data())
def test_any_scale_far_from_the_origin(name: str, data) -> None:
    """Inputs of spread 1e-3..1e3, up to 1e6 spreads from the origin (stationary kernels;
    the dot-product kernels only rescaled), against differences and the dense gradient."""
    build, max_d = SCALED[name]
    d = data.draw(st.integers(1, max_d), label="d")
    n, m = data.draw(st.integers(1, 6), label="n"), data.draw(st.integers(1, 7), label="m")
    s = 10.0 ** data.draw(st.floats(-3.0, 3.0), label="log10 scale")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    k = build(Draw(data=data), d, s)
    far = data.draw(st.sampled_from([0.0, 1e2, 1e4, 1e6]), label="offset") * k.is_stationary
    offset = far * s * rng.choice([-1.0, 1.0], size=d)
    X = offset + s * rng.standard_normal((n, d))
    Y = offset + s * rng.standard_normal((m, d))
    _check(k, X, rng.standard_normal((n, m)), Y, fd_atol=1e-8, shift=offset)


@pytest.mark.parametrize(
    "k",
    [
        RBF([1.0, 2.0], 1.5),
        Laplace([1.0, 2.0]),
        Matern([0.5, 3.0], nu=0.7),
        RationalQuadratic([1.0, 2.0], shape=0.5),
        Constant(2.0) * Matern(1.5, nu=2.5),
    ],
    ids=repr,
)
def test_inputs_beyond_the_expansion_come_from_differences(k: Kernel) -> None:
    """Clusters 1e5 lengthscales apart: the expansion |x|^2 + |y|^2 - 2 x.y would lose every
    digit, so the distances (and the ARD sums) come from differences, as on the square."""
    rng = np.random.default_rng(5)
    far = np.array([1e5, -2e5])
    X = rng.standard_normal((5, 2)) + np.where(np.arange(5)[:, None] < 3, 0.0, far)
    Y = rng.standard_normal((4, 2)) + np.where(np.arange(4)[:, None] < 2, 0.0, far)
    Y[1] = X[0]  # and a coincident pair
    assert _blocks.expansion(X, Y, 1.0) is None
    W = rng.standard_normal((5, 4))
    _check(k, X, W, Y, fd_atol=1e-8)
    # each cluster pair on its own (near the origin) gives the same sums
    near = sum(
        k.gradient_dot(X[r] - c, W[r][:, q], Y[q] - c)
        for r, q, c in [
            (slice(0, 3), slice(0, 2), 0.0),
            (slice(3, 5), slice(2, 4), far),
            (slice(0, 3), slice(2, 4), 0.0),
            (slice(3, 5), slice(0, 2), 0.0),
        ]
    )
    np.testing.assert_allclose(k.gradient_dot(X, W, Y), near, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("k", [Laplace([0.5, 2.0]), Matern([0.5, 2.0], nu=0.7)], ids=repr)
def test_rough_kernels_at_nearly_coincident_points(k: Kernel) -> None:
    """Pairs within the expansion's round-off are summed from their differences, as on the
    square: shifting everything by 1e3 changes nothing."""
    rng = np.random.default_rng(1)
    X = 1e3 + rng.standard_normal((9, 2))
    Y = 1e3 + rng.standard_normal((7, 2))
    Y[0], Y[1], Y[2] = X[0], X[0] + 1e-9, X[3] - 1e-12
    W = rng.standard_normal((9, 7))
    got = k.gradient_dot(X, W, Y)
    np.testing.assert_allclose(got, k.gradient_dot(X - 1e3, W, Y - 1e3), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got, _dense(k, X - 1e3, W, Y - 1e3), rtol=1e-9, atol=1e-12)


def test_float32_inputs_agree_with_float64() -> None:
    rng = np.random.default_rng(2)
    X, Y = rng.standard_normal((30, 3)), rng.standard_normal((20, 3))
    W = rng.standard_normal((30, 20))
    for k in (RBF([0.5, 1.0, 2.0]), Laplace(1.0), RationalQuadratic([1.0, 2.0, 0.5])):
        ref = k.gradient_dot(X, W, Y)
        got = k.gradient_dot(X.astype(np.float32), W, Y.astype(np.float32))
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * np.abs(W).sum())


# --------------------------------------------------------------------------- ard sums
@pytest.mark.parametrize("same", [True, False])
def test_ard_sums_on_rectangles(same: bool) -> None:
    """Both sums against the (n, m, d) tensor they avoid."""
    rng = np.random.default_rng(3)
    X = 10.0 + rng.standard_normal((13, 4))
    Y = X if same else rng.standard_normal((8, 4))
    scale = np.array([0.5, 1.0, 2.0, 4.0])
    M = rng.standard_normal((13, Y.shape[0]))
    D = (X[:, None, :] - Y[None, :, :]) / scale
    ref = np.einsum("ij,ijk->k", M, D * D)
    ex = _blocks.expansion(X, Y, scale)
    assert ex is not None and (ex.W is ex.Z) == same
    np.testing.assert_allclose(_blocks.ard_sums(ex, M), ref, rtol=1e-12, atol=1e-10)
    S = np.einsum("ijk,ijk->ij", D, D)
    P = M * S
    P[S == 0] = 0.0
    got = _blocks.direct_ard_sums(X, Y, scale, P, S)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-10)


# --------------------------------------------------------------------------- blocks
BLOCK_KERNELS = {
    "rbf_ard": RBF([0.7, 1.3, 2.0], 1.2),
    "laplace_ard": Laplace([0.7, 1.3, 2.0]),
    "matern_0.7": Matern(0.9, 1.4, nu=0.7),
    "rq_ard": RationalQuadratic([0.7, 1.3, 2.0], shape=1.7),
    "gp_white": Constant(1.5) * Matern([0.7, 1.3, 2.0], nu=2.5, variance_bounds="fixed")
    + White(0.1),
    "exp_poly": exp(0.5 * RBF(1.1)) + RBF(0.8) ** 2,
    "linear_polynomial": Linear(0.3) + Polynomial(2, 0.2, 1.0),
}


@pytest.mark.parametrize("name", list(BLOCK_KERNELS))
@settings(max_examples=10, deadline=None, derandomize=True)
@given(data=st.data())
def test_blocks_add_up_to_the_square_contraction(name: str, data) -> None:
    """Diagonal blocks through the square path, the rest through the cross path: the sum
    is the square ``gradient_dot(X, W)`` for a symmetric ``W`` (a White term's noise sits
    in the diagonal blocks, so it adds up too)."""
    k = BLOCK_KERNELS[name]
    n = data.draw(st.integers(2, 14), label="n")
    cuts = sorted(data.draw(st.sets(st.integers(1, n - 1), min_size=1, max_size=3), label="cuts"))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    X = 50.0 + rng.standard_normal((n, 3))
    W = rng.standard_normal((n, n))
    W += W.T
    blocks = [slice(a, b) for a, b in zip([0, *cuts], [*cuts, n], strict=True)]
    total = sum(k.gradient_dot(X[r], W[r, r]) for r in blocks)
    total = total + sum(
        k.gradient_dot(X[r], W[r, c], X[c]) for r in blocks for c in blocks if r != c
    )
    ref = k.gradient_dot(X, W)
    size = float(np.abs(W).sum()) * max(1.0, float(np.abs(k(X)).max()))
    np.testing.assert_allclose(total, ref, rtol=1e-9, atol=1e-12 * size)
    # one row block against all of X, its own block's weights moved to the square path
    rows = blocks[0]
    off = W[rows].copy()
    off[:, rows] = 0.0
    part = k.gradient_dot(X[rows], W[rows, rows]) + k.gradient_dot(X[rows], off, X)
    rest = k.gradient_dot(X[rows.stop :], W[rows.stop :, rows.stop :])
    rest = rest + k.gradient_dot(X[rows.stop :], W[rows.stop :, rows], X[rows])
    np.testing.assert_allclose(part + rest, ref, rtol=1e-9, atol=1e-12 * size)


def test_white_follows_the_cross_gram() -> None:
    """As ``k(X, Y)``: a White term is 0 for a separate ``Y`` and the noise for ``Y is X``."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((5, 2))
    W = rng.standard_normal((5, 5))
    k = RBF(1.3) + White(0.2)
    np.testing.assert_array_equal(White(0.2).gradient_dot(X, W, X.copy()), [0.0])
    np.testing.assert_allclose(White(0.2).gradient_dot(X, W, X), [0.2 * np.trace(W)])
    np.testing.assert_allclose(k.gradient_dot(X, W, X), k.gradient_dot(X, W), rtol=1e-13)
    np.testing.assert_allclose(k.gradient_dot(X, W, X.copy()), _fd(k, X, W, X.copy()), rtol=1e-6)
    np.testing.assert_allclose(k.gradient_dot(X, W, X), _fd(k, X, W, X), rtol=1e-6)
    assert k.gradient_dot(X, W, X.copy())[-1] == 0.0


# --------------------------------------------------------------------------- errors
class NoCross(Kernel):
    """A kernel with square gradients only."""

    amplitude: float = parameter(1.0, fitted=True)

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        return self.amplitude * (X @ Y.T)

    def _gradient(self, X: np.ndarray) -> np.ndarray:
        return self._gram(X, X)[:, :, None]


def test_a_kernel_without_the_hook_says_so() -> None:
    X, Y = np.ones((4, 2)), np.ones((3, 2))
    W = np.ones((4, 3))
    assert NoCross().gradient_dot(X, np.ones((4, 4))).shape == (1,)  # the square path works
    for k in (NoCross(), RBF() + NoCross(), 2.0 * NoCross() * RBF()):
        with pytest.raises(NotImplementedError, match="NoCross does not provide gradients on"):
            k.gradient_dot(X, W, Y)
    # nothing to differentiate: an empty gradient, not an error
    fixed = RBF() + NoCross(amplitude_bounds="fixed")
    np.testing.assert_allclose(fixed.gradient_dot(X, W, Y), RBF().gradient_dot(X, W, Y))


def test_bad_weights_and_inputs() -> None:
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((5, 3)), rng.standard_normal((3, 3))
    k = RBF([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"W must have shape \(5, 3\).*got \(5, 5\)"):
        k.gradient_dot(X, np.eye(5), Y)
    with pytest.raises(ValueError, match=r"W must have shape \(5, 3\).*got \(3, 5\)"):
        k.gradient_dot(X, np.ones((3, 5)), Y)
    with pytest.raises(ValueError, match="W must be 2-dimensional"):
        k.gradient_dot(X, np.ones(15), Y)
    with pytest.raises(ValueError, match="W contains NaN"):
        k.gradient_dot(X, np.full((5, 3), np.nan), Y)
    with pytest.raises(ValueError, match="different numbers of features"):
        k.gradient_dot(X, np.ones((5, 3)), Y[:, :2])
    with pytest.raises(ValueError, match="lengthscale has 3 entries but X has 2 features"):
        k.gradient_dot(X[:, :2], np.ones((5, 3)), Y[:, :2])
    with pytest.raises(ValueError, match=r"W must have shape \(5, 5\)"):  # the square path
        k.gradient_dot(X, np.ones((5, 3)))


def test_the_memory_guard_counts_the_block(monkeypatch) -> None:
    import kernelkit._memory as memory
    import kernelkit.kernels.base as base

    X, Y = np.zeros((40, 2)), np.ones((30, 2))
    limit = 8 * 40 * 30 * 3  # room for W and two more blocks, not for the work
    for module in (base, memory):
        monkeypatch.setattr(module, "memory_limit", lambda: limit)
    with pytest.raises(ValueError, match=r"gradient contraction of RBF.*40 x 30.*would need"):
        RBF().gradient_dot(X, np.ones((40, 30)), Y)


def test_overflowing_gradients_name_the_inputs() -> None:
    X = np.array([[1e155, 1.0], [2.0, 3.0]])
    with pytest.raises(ValueError, match="overflow float64"):
        Linear().gradient_dot(X, np.ones((2, 2)), X[::-1].copy())
