"""Learning an intersection of half-spaces by finding the relevant subspace (Vempala 1997, Ch. 3).

The target is an intersection of ``l`` half-spaces ``w_i·x ≤ 0`` whose normals span a
subspace of small dimension ``k``; positives lie inside. :class:`HalfspaceIntersectionClassifier`
follows the algorithm of Vempala (1997) §3.2:

1. **Dual cone.** ``D_C = {v : v·x ≤ 0 for every positive x}``, the normals of the
   homogeneous hyperplanes that leave every positive on one side. For a large sample it
   ``ε₁``-encloses the target's cone ``D_P = cone(w_1, …, w_l)`` (Lemma 4).
2. **Irrelevant subspace.** ``n − k`` orthonormal directions along which
   ``D_C ∩ B`` is thin, found one after the other, each orthogonal to the previous ones
   (Lemmas 5–6). The width of ``D_C ∩ B`` along ``u`` is ``h(u) + h(−u)`` with the
   support function ``h(u) = max{u·v : v ∈ D_C ∩ B}``, a linear program (§3.3.2).
   Two documented changes make this an LP that SciPy's HiGHS solves (see below).
3. **Projection** onto the orthogonal complement, the estimated relevant subspace
   (``subspace_``, of dimension ``k``).
4. **Grid** ``ε₃Z^k ∩ B_k`` of candidate directions in the estimated relevant
   subspace (§3.3.3), ``ε₃ = grid_step``; each is kept when it lies in ``D̂_C``, the
   projection of ``D_C``, and is then extended to a normal ``v ∈ D_C`` of the whole
   space — the thesis's alternative "extend the vectors u_1, …, u_m to vectors in R^n"
   (§3.2, step 5). Membership and extension are one LP per candidate (the deepest
   lift ``v = g + t``, ``t`` in the irrelevant subspace with ``|t|_∞ ≤ 1``), solved for
   a chunk of candidates at once as one block-diagonal program after a vectorised bound
   has discarded the hopeless ones. Because ``v ∈ D_C``, every kept
   half-space contains every training positive.
5. **Greedy set cover** (§3.3.4, Thm 7): repeatedly choose the kept half-space that
   puts the most still-uncovered negatives outside it.

A point is predicted positive when it lies in every chosen half-space.

**The width LP (our variant of §3.3.2).** The thesis computes ``max_{v ∈ D_C ∩ B_n} u·v``
and ``min`` for random unit vectors ``u`` and keeps the one of least width. We (a)
replace the Euclidean ball ``B_n`` by the cube ``[−1, 1]^n`` (``B_n ⊆ cube ⊆ √n B_n``),
so that each width is an LP — by LP duality
``h(u) = min_{λ ≥ 0} ‖u − Zᵀλ‖₁``, the ℓ₁ distance from ``u`` to the cone of the
positives ``Z`` — and (b) let the direction move: for each random unit ``u₀`` one LP
minimises ``h(u) + h(−u)`` over all ``u`` of the current subspace with ``u₀·u = 1``
(the width is convex and positively homogeneous in ``u``, so this is a convex
program), and the direction ``u/|u|`` of least width ``(h(u) + h(−u))/|u|`` over the
``n_directions`` LPs is taken. Both are equivalent to the thesis's step in the limit the
thesis analyses: when ``D_C = D_P`` the width along ``u`` is zero exactly when
``u ⊥ span(D_P)``, whatever bounded convex neighbourhood of 0 replaces ``B_n``, and the
LP attains width 0 on every slice ``u₀·u = 1`` with ``u₀ ∉ span(D_P)``. Random
directions alone (the thesis's step) need about ``n/α^k`` samples per direction for
angle ``α`` (Lemma 6); the LP removes that cost.

**Non-homogeneous half-spaces** (§3.3.5, ``fit_intercept=True``): points are scaled
into the unit ball (``x/R``, ``R`` the largest training norm) and lifted to the sphere of
``R^{n+1}`` by ``y = (n x/R, 1)/√(n²|x/R|² + 1)``; ``w·x ≤ b`` becomes the homogeneous
``(w, −b n/R)·y ≤ 0``. The lifted relevant subspace contains ``e_{n+1}`` besides the
normals, so its default dimension is one more.

Why extend instead of projecting: with an estimated subspace tilted by a small angle
from the true one, the half-space ``{x : g·Qx ≤ 0}`` of a projected normal cuts off the
positives near the apex (small relevant part, large irrelevant part), so in practice no
projected candidate contains all positives; the lifted normals do, and the greedy cover
then hugs the positives, which makes the accuracy far less sensitive to the subspace
estimate (whose error is of the order of the enclosure angle ``ε₁`` of Lemma 4).

**Cost.** Step 2 solves ``n_directions × (d − k)`` LPs with about ``2 m`` variables for
``m`` positives in dimension ``d``. The grid has about ``vol(B_k)/ε₃^k`` points (only
the primitive lattice points are kept: ``2g`` defines the same half-space as ``g``);
step 4 solves block LPs over chunks of candidates and step 5 is matrix products over
chunks of candidates, never loops over points. The method is meant for small ``k``: a
grid larger than ``max_candidates`` is refused with a ``ValueError``.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from kernelkit._validation import (
    check_bool,
    check_int,
    check_random_state,
    validate_X,
    validate_X_y,
)
from kernelkit.geometry._norms import row_norms, unit_rows
from kernelkit.geometry.perceptrons import _binary_labels

__all__ = ["HalfspaceIntersectionClassifier"]

#: Candidates handled per matrix product in the grid filter and the greedy cover.
_CHUNK = 4096
#: A kept candidate has ``u·z ≤ −_STRICT`` for every (unit, non-zero) training positive
#: ``z``, so that rounding in another formula cannot move a positive outside.
_STRICT = 1e-10


def _lattice_ball(step: float, dim: int) -> np.ndarray:
    """The points of ``step·Z^dim`` in the closed unit ball ``B_dim`` (Vempala (1997) §3.3.3).

    Built one coordinate at a time (partial sums of squares above ``1`` are pruned), so
    the work is proportional to the number of lattice points of the lower-dimensional
    balls, never to the enclosing box ``(2/step + 1)^dim``.

    Parameters
    ----------
    step : float
        The lattice spacing ``ε₃ > 0``.
    dim : int
        The dimension ``k ≥ 1``.

    Returns
    -------
    ndarray of shape (n_points, dim)
        Integer lattice coordinates ``g`` (the points are ``step·g``), in lexicographic
        order; the origin included.

    Examples
    --------
    >>> from kernelkit.geometry.intersections import _lattice_ball
    >>> _lattice_ball(0.5, 2).shape[0]  # |g|² ≤ 4: 1 + 4 + 4 + 4
    13
    """
    if isinstance(step, bool) or not isinstance(step, numbers.Real):
        raise TypeError(f"step must be a number, got {type(step).__name__}")
    if not (np.isfinite(step) and step > 0):
        raise ValueError(f"step must be a finite number > 0, got {step!r}")
    dim = check_int(dim, "dim", minimum=1)
    radius = math.floor(1.0 / step + 1e-9)
    r2 = math.floor(1.0 / step**2 + 1e-9)  # |step·g|² ≤ 1  ⇔  |g|² ≤ 1/step²
    offsets = np.arange(-radius, radius + 1)
    pts = np.zeros((1, 0), dtype=np.int64)
    sums = np.zeros(1, dtype=np.int64)
    for _ in range(dim):
        new_sums = sums[:, None] + offsets[None, :] ** 2
        keep = new_sums <= r2
        rows, cols = np.nonzero(keep)
        pts = np.hstack([pts[rows], offsets[cols][:, None]])
        sums = new_sums[rows, cols]
    return pts


def _ball_lattice_estimate(step: float, dim: int) -> float:
    """``vol(B_dim)/step^dim``: about the number of points of :func:`_lattice_ball`."""
    log_vol = 0.5 * dim * math.log(math.pi) - math.lgamma(0.5 * dim + 1.0)
    return math.exp(log_vol - dim * math.log(step))


def _min_width_direction(Z: np.ndarray, B: np.ndarray, u0: np.ndarray) -> tuple[np.ndarray, float]:
    """Minimise the width of ``D_C ∩ [−1, 1]^d`` over ``u = B s`` with ``u0·s = 1``.

    ``D_C = {v : Z v ≤ 0}``. With ``h(u) = min_{λ ≥ 0} ‖u − Zᵀλ‖₁`` (the LP dual of
    ``max{u·v : Z v ≤ 0, |v|_∞ ≤ 1}``) the program is
    ``min ‖Bs − Zᵀλ‖₁ + ‖−Bs − Zᵀμ‖₁`` over ``s`` free, ``λ, μ ≥ 0``, ``u0·s = 1``.
    Returns the unit direction ``B s/|s|`` and its width ``objective/|s|``.
    """
    m, d = Z.shape
    r = B.shape[1]
    I_d = sp.identity(d, format="csr")
    Zt = sp.csr_matrix(Z.T)
    zero_dm = sp.csr_matrix((d, m))
    zero_dd = sp.csr_matrix((d, d))
    # variables: s (r), λ (m), μ (m), p1, q1, p2, q2 (d each)
    top = sp.hstack([sp.csr_matrix(B), -Zt, zero_dm, -I_d, I_d, zero_dd, zero_dd])
    mid = sp.hstack([sp.csr_matrix(-B), zero_dm, -Zt, zero_dd, zero_dd, -I_d, I_d])
    last = sp.hstack([sp.csr_matrix(u0[None, :]), sp.csr_matrix((1, 2 * m + 4 * d))])
    A_eq = sp.vstack([top, mid, last], format="csc")
    b_eq = np.zeros(2 * d + 1)
    b_eq[-1] = 1.0
    c = np.concatenate([np.zeros(r + 2 * m), np.ones(4 * d)])
    bounds = [(None, None)] * r + [(0, None)] * (2 * m + 4 * d)
    res = scipy.optimize.linprog(c, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
    if res.status != 0:  # pragma: no cover - the program is always feasible and bounded
        raise RuntimeError(f"the width LP failed: {res.message}")
    s = res.x[:r]
    norm = float(np.linalg.norm(s))
    return B @ (s / norm), float(res.fun) / norm


class HalfspaceIntersectionClassifier(ClassifierMixin, BaseEstimator):
    """Intersection of half-spaces whose normals span a small subspace (Vempala (1997) Ch. 3).

    Learns ``{x : w_i·x ≤ b_i, i = 1…m}`` (positives inside) by the algorithm of
    Vempala (1997) §3.2: dual cone of the positives (Lemma 4), the irrelevant subspace by
    minimising the projection width of the dual cone with linear programs (Lemmas 5–6,
    solved by :func:`scipy.optimize.linprog` with HiGHS), a grid ``ε₃Z^k ∩ B_k`` of
    candidate directions in the estimated relevant subspace (§3.3.3), each extended to a
    normal in the dual cone of the positives, and a greedy set cover of the negatives
    (§3.3.4, Thm 7). Theorem 6: for a non-concentrated distribution on
    the unit ball the algorithm PAC-learns with ``O(poly(n) l k^k (p/ε)^k log(1/δ))``
    time and examples. See the module docstring for the LP variant and the lift of
    §3.3.5 used with ``fit_intercept=True``.

    Every chosen half-space contains every training positive (its normal lies in the
    dual cone ``D_C`` of the training positives), hence the learner never rejects a
    training positive; training negatives may stay inside when no candidate separates
    them (``n_uncovered_``).
    The training set serves both for the dual cone and for the pruning (the thesis
    draws a fresh sample ``S_1`` for the latter).

    Parameters
    ----------
    n_halfspaces : int, default=2
        ``l``, the number of half-spaces of the target. It sets the default of
        ``subspace_dim`` and of ``max_halfspaces``.
    subspace_dim : int, optional
        ``k``, the dimension of the relevant subspace of the space the algorithm works
        in; ``None`` means ``min(n_halfspaces, n_features)``, plus one with
        ``fit_intercept`` (the lifted normals and ``e_{n+1}``), capped at that space's
        dimension.
    grid_step : float, default=0.1
        The lattice spacing ``ε₃`` of the candidate normals, in ``(0, 1]``.
    max_candidates : int, default=200_000
        Largest accepted number of grid points; a larger grid (about
        ``vol(B_k)/ε₃^k`` points) raises a ``ValueError`` — increase ``grid_step`` or
        lower ``subspace_dim``.
    n_directions : int, default=3
        Random starting directions (one width LP each) per irrelevant direction.
    max_halfspaces : int, optional
        Most half-spaces chosen by the greedy cover; ``None`` means
        ``⌈2 l ln r⌉`` with ``r = 1/tol`` (``r`` = the number of training negatives
        when ``tol = 0``), Thm 7's count, and at least ``l``.
    tol : float, default=0.0
        The cover stops once at most this fraction of the training negatives is left
        inside (the thesis's ``ε/2``), in ``[0, 1)``.
    fit_intercept : bool, default=False
        Learn non-homogeneous half-spaces ``w·x ≤ b`` through the lift of §3.3.5;
        ``False`` learns homogeneous ones ``w·x ≤ 0`` (the thesis's main case).
    pos_label : label, optional
        The class inside the intersection; ``None`` means ``classes_[1]`` (scikit-learn's
        positive class of a binary problem).
    random_state : int, RandomState or None, default=None
        Seeds the random starting directions of step 2.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    pos_label_ : label
        The class predicted inside the intersection.
    normals_ : ndarray of shape (n_chosen, n_features)
        Unit normals ``w_i`` of the chosen half-spaces, in the original space, in the
        order the greedy cover chose them.
    offsets_ : ndarray of shape (n_chosen,)
        ``b_i``: the half-spaces are ``normals_ @ x ≤ offsets_`` (zeros without
        ``fit_intercept``).
    subspace_ : ndarray of shape (k, n_features + fit_intercept)
        Orthonormal rows spanning the estimated relevant subspace of the space the
        algorithm works in (the lifted space with ``fit_intercept``); ``k`` is
        ``subspace_dim_``.
    subspace_dim_ : int
        ``k`` as used.
    widths_ : ndarray of shape (n_features + fit_intercept - k,)
        Projection widths of ``D_C ∩ [−1, 1]^d`` along the irrelevant directions found,
        in the order found.
    grid_size_ : int
        Primitive lattice points of the grid (candidate directions).
    n_candidates_ : int
        Grid candidates whose half-space contains every training positive.
    n_uncovered_ : int
        Training negatives left inside the learned intersection.
    scale_ : float
        ``R``, the largest training norm, used by the lift (1.0 without
        ``fit_intercept``).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.geometry.intersections import HalfspaceIntersectionClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(1500, 5)
    >>> X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)
    >>> W = np.array([[1.0, 1.0, 0, 0, 0], [1.0, -1.0, 0, 0, 0]])  # normals in span(e1, e2)
    >>> y = (X @ W.T <= 0).all(axis=1).astype(int)
    >>> clf = HalfspaceIntersectionClassifier(2, random_state=0).fit(X, y)
    >>> clf.subspace_.shape
    (2, 5)
    >>> bool(clf.score(X, y) > 0.95), bool(clf.predict(X[y == 1]).all())
    (True, True)
    """

    def __init__(
        self,
        n_halfspaces: int = 2,
        *,
        subspace_dim: int | None = None,
        grid_step: float = 0.1,
        max_candidates: int = 200_000,
        n_directions: int = 3,
        max_halfspaces: int | None = None,
        tol: float = 0.0,
        fit_intercept: bool = False,
        pos_label: Any = None,
        random_state: Any = None,
    ):
        self.n_halfspaces = n_halfspaces
        self.subspace_dim = subspace_dim
        self.grid_step = grid_step
        self.max_candidates = max_candidates
        self.n_directions = n_directions
        self.max_halfspaces = max_halfspaces
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.pos_label = pos_label
        self.random_state = random_state

    # ------------------------------------------------------------------ parameters
    def _check_params(self) -> None:
        check_int(self.n_halfspaces, "n_halfspaces", minimum=1)
        if self.subspace_dim is not None:
            check_int(self.subspace_dim, "subspace_dim", minimum=1)
        step = self.grid_step
        if isinstance(step, bool) or not isinstance(step, numbers.Real):
            raise TypeError(f"grid_step must be a number in (0, 1], got {type(step).__name__}")
        if not 0.0 < float(step) <= 1.0:
            raise ValueError(f"grid_step must be in (0, 1], got {step!r}")
        check_int(self.max_candidates, "max_candidates", minimum=1)
        check_int(self.n_directions, "n_directions", minimum=1)
        if self.max_halfspaces is not None:
            check_int(self.max_halfspaces, "max_halfspaces", minimum=1)
        tol = self.tol
        if isinstance(tol, bool) or not isinstance(tol, numbers.Real):
            raise TypeError(f"tol must be a number in [0, 1), got {type(tol).__name__}")
        if not 0.0 <= float(tol) < 1.0:
            raise ValueError(f"tol must be in [0, 1), got {tol!r}")
        check_bool(self.fit_intercept, "fit_intercept")

    def _lift(self, X: np.ndarray) -> np.ndarray:
        """Unit rows of the space the algorithm works in (§3.3.5 lift with an intercept)."""
        if not self.fit_intercept:
            return unit_rows(X)
        n = X.shape[1]
        Y = np.hstack([(n / self.scale_) * X, np.ones((X.shape[0], 1))])
        return unit_rows(Y)

    # ------------------------------------------------------------------ fitting
    def fit(self, X: Any, y: Any) -> HalfspaceIntersectionClassifier:
        """Learn the intersection from ``X`` and two-class labels ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training points.
        y : array-like of shape (n_samples,)
            Two classes; ``pos_label`` (default ``classes_[1]``) is the inside.

        Returns
        -------
        self : HalfspaceIntersectionClassifier
            The fitted estimator.
        """
        self._check_params()
        rng = check_random_state(self.random_state)
        X, y = validate_X_y(self, X, y, y_numeric=False)
        ell = _binary_labels(self, y)
        if self.pos_label is None:
            pos_label = self.classes_[1]
        elif self.pos_label in self.classes_.tolist():
            pos_label = self.classes_[self.classes_.tolist().index(self.pos_label)]
        else:
            raise ValueError(
                f"pos_label must be None or one of the classes {self.classes_.tolist()!r}; "
                f"got {self.pos_label!r}"
            )
        self.pos_label_ = pos_label
        positive = ell > 0 if pos_label == self.classes_[1] else ell < 0
        n_features = X.shape[1]
        norms = row_norms(X)
        self.scale_ = float(norms.max()) if self.fit_intercept and norms.max() > 0 else 1.0
        Z = self._lift(X)
        d = Z.shape[1]
        k = self._subspace_dim(n_features, d)
        # grid size first: refuse before any LP is solved
        estimate = _ball_lattice_estimate(float(self.grid_step), k)
        if estimate > 2 * self.max_candidates:
            self._grid_error(f"about {estimate:.3g}", k)
        grid = _lattice_ball(float(self.grid_step), k)
        grid = grid[np.gcd.reduce(np.abs(grid), axis=1) == 1]  # primitive: one per direction
        if grid.shape[0] > self.max_candidates:
            self._grid_error(str(grid.shape[0]), k)

        Zpos = Z[positive]
        Zpos = Zpos[np.any(Zpos != 0, axis=1)]  # the origin is in every half-space
        Zneg = Z[~positive]
        Q, widths = self._relevant_subspace(Zpos, d, k, rng)
        U, depth = self._extend(unit_rows(grid.astype(np.float64)), Q, Zpos)
        U = U[depth <= -_STRICT]  # every kept half-space contains every positive
        chosen, left = self._greedy_cover(U, Zneg)
        self.subspace_ = Q
        self.subspace_dim_ = k
        self.widths_ = widths
        self.grid_size_ = int(grid.shape[0])
        self.n_candidates_ = int(U.shape[0])
        self.n_uncovered_ = int(left)
        self._set_halfspaces(U[chosen], n_features)
        return self

    def _subspace_dim(self, n_features: int, d: int) -> int:
        if self.subspace_dim is None:
            k = min(int(self.n_halfspaces), n_features) + int(bool(self.fit_intercept))
        else:
            k = int(self.subspace_dim)
            if k > d:
                raise ValueError(
                    f"subspace_dim must be at most the dimension {d} of the "
                    f"{'lifted ' if self.fit_intercept else ''}space, got {k}"
                )
        return min(k, d)

    def _grid_error(self, size: str, k: int) -> None:
        raise ValueError(
            f"the candidate grid grid_step*Z^k ∩ B_k has {size} points for k = subspace_dim "
            f"= {k} and grid_step = {self.grid_step!r}, more than max_candidates = "
            f"{self.max_candidates}; increase grid_step (the grid has about "
            f"vol(B_k)/grid_step^k points) or lower subspace_dim (the method is meant for "
            "small k)"
        )

    def _relevant_subspace(
        self, Zpos: np.ndarray, d: int, k: int, rng: np.random.RandomState
    ) -> tuple[np.ndarray, np.ndarray]:
        """Remove ``d − k`` thin directions of the dual cone, one at a time (§3.3.2)."""
        B = np.eye(d)
        widths = []
        for _ in range(d - k):
            best_dir, best_width = None, np.inf
            for _t in range(int(self.n_directions)):
                u0 = rng.standard_normal(B.shape[1])
                u0 /= np.linalg.norm(u0)
                direction, width = _min_width_direction(Zpos, B, u0)
                if width < best_width:
                    best_dir, best_width = direction, width
            assert best_dir is not None
            widths.append(best_width)
            s = B.T @ best_dir
            B = B @ scipy.linalg.null_space(s[None, :])
        # a fixed orientation of the basis: the rows of Q are canonical up to rotation
        return B.T.copy(), np.asarray(widths, dtype=np.float64)

    @staticmethod
    def _extend(G: np.ndarray, Q: np.ndarray, Zpos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Lift grid directions of the relevant subspace to normals in ``D_C`` (§3.2, step 5).

        For each unit grid direction ``g`` (rows of ``G``, coordinates in the basis ``Q``)
        the deepest lift ``v = Qᵀg + Pᵀt`` (``P`` an orthonormal basis of the estimated
        irrelevant subspace, ``|t|_∞ ≤ 1``) minimises ``s = max_z v·z`` over the positives
        ``z``: ``s < 0`` exactly when ``g`` lies in the interior of ``D̂_C`` (the
        projection of ``D_C``; up to the bound on ``t``), and then ``v ∈ D_C`` — the
        thesis's "extend the vectors u_i to vectors in R^n". The programs of a chunk of
        candidates are solved as one block-diagonal LP.
        Returns the unit lifts ``V`` (rows) and the depths ``s``.
        """
        N = G.shape[0]
        base = G @ Q  # (N, d): Qᵀ g for each candidate
        m = Zpos.shape[0]
        if m == 0:
            return unit_rows(base), np.full(N, -1.0)
        P = scipy.linalg.null_space(Q)  # (d, r)
        r = P.shape[1]
        if r == 0:
            return unit_rows(base), (Zpos @ base.T).max(axis=0)
        ZP = Zpos @ P  # (m, r)
        fixed = Zpos @ base.T  # (m, N)
        # v·z ≥ g·Qz − ‖Pz‖₁ for |t|_∞ ≤ 1: a candidate failing this bound has no lift
        reach = np.abs(ZP).sum(axis=1)
        hopeful = np.flatnonzero((fixed - reach[:, None]).max(axis=0) <= -_STRICT)
        V = base.copy()
        depth = np.full(N, np.inf)
        per = max(1, 200_000 // m)
        for start in range(0, hopeful.size, per):
            idx = hopeful[start : start + per]
            nc = idx.size
            A = sp.hstack(
                [
                    sp.kron(sp.identity(nc, format="csr"), sp.csr_matrix(ZP)),
                    sp.kron(sp.identity(nc, format="csr"), -np.ones((m, 1))),
                ],
                format="csr",
            )
            b = -fixed[:, idx].T.ravel()
            c = np.concatenate([np.zeros(nc * r), np.ones(nc)])
            bounds = [(-1.0, 1.0)] * (nc * r) + [(-1.0, None)] * nc
            res = scipy.optimize.linprog(c, A_ub=A, b_ub=b, bounds=bounds, method="highs")
            if res.status != 0:  # pragma: no cover - always feasible and bounded
                raise RuntimeError(f"the lifting LP failed: {res.message}")
            t = res.x[: nc * r].reshape(nc, r)
            V[idx] = base[idx] + t @ P.T
            depth[idx] = res.x[nc * r :]
        # the depths of the normalised lifts, recomputed: what prediction will see
        V = unit_rows(V)
        depth[hopeful] = (Zpos @ V[hopeful].T).max(axis=0)
        return V, depth

    def _greedy_cover(self, U: np.ndarray, Zneg: np.ndarray) -> tuple[list[int], int]:
        """Greedy set cover of the negatives by the candidate half-spaces (§3.3.4)."""
        n_neg = Zneg.shape[0]
        tol = float(self.tol)
        if self.max_halfspaces is not None:
            max_m = int(self.max_halfspaces)
        else:
            r = 1.0 / tol if tol > 0 else float(max(n_neg, 2))
            max_m = max(int(self.n_halfspaces), math.ceil(2 * self.n_halfspaces * math.log(r)))
        left = np.arange(n_neg)
        chosen: list[int] = []
        while len(chosen) < max_m and left.size > tol * n_neg and U.shape[0] > 0:
            Zl = Zneg[left]
            counts = np.concatenate(
                [
                    (Zl @ U[start : start + _CHUNK].T > 0).sum(axis=0)
                    for start in range(0, U.shape[0], _CHUNK)
                ]
            )
            best = int(np.argmax(counts))
            if counts[best] == 0:
                break
            chosen.append(best)
            left = left[~(Zl @ U[best] > 0)]
        return chosen, int(left.size)

    def _set_halfspaces(self, U: np.ndarray, n_features: int) -> None:
        """Express the chosen normals (rows of ``U``) as ``w·x ≤ b`` in the original space."""
        if not self.fit_intercept:
            self.normals_ = U.copy()
            self.offsets_ = np.zeros(U.shape[0])
            return
        a, c = U[:, :-1], U[:, -1]
        norm_a = np.linalg.norm(a, axis=1)
        keep = norm_a > 1e-12  # a pure e_{n+1} normal contains all points or none
        a, c, norm_a = a[keep], c[keep], norm_a[keep]
        self.normals_ = a / norm_a[:, None]
        self.offsets_ = -c * self.scale_ / (n_features * norm_a)

    # ------------------------------------------------------------------ prediction
    def decision_function(self, X: Any) -> np.ndarray:
        """Signed distance to the boundary of the intersection, positive for ``classes_[1]``.

        ``min_i (offsets_[i] − normals_[i]·x)`` (the least margin over the chosen
        half-spaces, ``≥ 0`` inside), negated when ``pos_label_`` is ``classes_[0]``.
        With no half-space chosen (the intersection is everything) it is ``1`` for every
        point.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points to score.

        Returns
        -------
        ndarray of shape (n_samples,)
            The least margin of each point, signed so that positive means ``classes_[1]``.
        """
        check_is_fitted(self, "normals_")
        X = validate_X(self, X, reset=False)
        if self.normals_.shape[0] == 0:
            margin = np.ones(X.shape[0])
        else:
            margin = (self.offsets_[None, :] - X @ self.normals_.T).min(axis=1)
        return margin if self.pos_label_ == self.classes_[1] else -margin

    def predict(self, X: Any) -> np.ndarray:
        """``pos_label_`` inside every chosen half-space (margin ``≥ 0``), else the other class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points to classify.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted labels, from ``classes_``.
        """
        score = self.decision_function(X)
        pos = int(self.pos_label_ == self.classes_[1])
        inside = score >= 0 if pos else score <= 0
        return self.classes_[np.where(inside, pos, 1 - pos)]

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
