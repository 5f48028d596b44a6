"""Outlier removal by iterative whitening (Vempala 1997, Ch. 2, Lemmas 2–3, Thm 2).

A point ``x`` of a set ``S`` is an outlier (with ratio ``beta``) when some direction ``w``
has ``(w·x)² > beta · E_S[(w·x)²]`` (Vempala (1997) Lemma 2 (ii)). With the second-moment
matrix ``M = E_S[x xᵀ] = XᵀX / |S|`` the largest ratio over all directions is, by
Cauchy–Schwarz, ``xᵀ M⁻¹ x = |z|²`` for the whitened point ``z = A⁻¹x`` (``A² = M``):

    max_w (w·x)² / E_S[(w·x)²] = xᵀ M⁻¹ x = |S| · h(x),

where ``h(x)`` is the leverage score of ``x`` (the diagonal of the hat matrix of ``X``).
So the set has no outliers exactly when ``max_{x∈S} |S| h(x) ≤ beta``: an exact, cheap
certificate. The leverages sum to the rank ``n`` of ``X``, so the mean of ``|z|²`` is
``n`` and ``beta ≥ n`` is necessary.

The algorithm (§2.2) restricts to the span of the points (rank-deficient data are whitened
inside their span, as the thesis does), whitens, drops the points with a large whitened
norm, recomputes ``M`` on the survivors and repeats until the certificate holds.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernelkit._validation import check_array, check_bool

__all__ = ["OutlierRemovalResult", "remove_outliers"]


@dataclass(frozen=True)
class OutlierRemovalResult:
    """The survivors of :func:`remove_outliers` and their certificate.

    Attributes
    ----------
    kept : ndarray of int
        Sorted indices of the kept points ``S'``.
    mask : ndarray of bool
        ``mask[i]`` is True when point ``i`` is kept.
    removed : ndarray of int
        Sorted indices of the removed points.
    n_rounds : int
        Number of whitening rounds that removed points (0 when the input already satisfies
        the certificate).
    certificate : float
        ``max_{x∈S'} (x − c)ᵀ M⁻¹ (x − c)`` with ``M = (1/|S'|) Σ_{S'} (x − c)(x − c)ᵀ``
        restricted to the span of the (centred) survivors, ``c`` their mean when
        ``centred`` and 0 otherwise; equals ``|S'|`` times the largest leverage score.
        It is ``≤ beta``, and equals the largest ratio ``(w·(x−c))² / E_{S'}[(w·(x−c))²]``
        over points and directions (Lemma 2 (ii)).
    rank : int
        Dimension of the span of the (centred) survivors.
    beta : float
        The ratio asked for.
    threshold : float
        Whitened squared norm above which points were dropped in each round.
    centre : ndarray of shape (n_features,)
        ``c``: the mean of the survivors when ``centred``, else zeros.
    whitening : ndarray of shape (n_features, rank)
        ``W`` with ``z = (x − c) W`` the whitened coordinates inside the span of the
        survivors: ``E_{S'}[z zᵀ] = I`` and ``|z|² = (x − c)ᵀ M⁻¹ (x − c)``.
    """

    kept: np.ndarray
    mask: np.ndarray
    removed: np.ndarray
    n_rounds: int
    certificate: float
    rank: int
    beta: float
    threshold: float
    centre: np.ndarray
    whitening: np.ndarray


def _whiten(Y: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Whitened squared norms ``m · h`` of the rows of ``Y``, the whitening map, and the rank.

    From the thin SVD ``Y = U Σ Vᵀ`` (no pseudo-inverse is formed): the leverage of row
    ``i`` is ``|U_{i,:r}|²`` and ``W = √m V_r Σ_r⁻¹`` whitens, ``(Y W)ᵀ (Y W) / m = I``.
    """
    m, d = Y.shape
    U, s, Vt = np.linalg.svd(Y, full_matrices=False)
    tol = (s[0] if s.size else 0.0) * max(m, d) * np.finfo(float).eps
    r = int(np.sum(s > tol))
    if r == 0:
        return np.zeros(m), np.zeros((d, 0)), 0
    lev = np.einsum("ij,ij->i", U[:, :r], U[:, :r])
    W = np.sqrt(m) * Vt[:r].T / s[:r]
    return m * lev, W, r


def remove_outliers(
    X: Any, beta: float, *, centred: bool = False, threshold: float | None = None
) -> OutlierRemovalResult:
    """Remove outliers by iterative whitening until no direction has max/mean above ``beta``.

    Vempala (1997) Thm 2 and §2.2: restrict to the span of the current points, whiten them
    with ``M = XᵀX / |S|`` (the uncentred second moment; with ``centred=True`` the
    covariance about the survivors' mean), drop every point whose whitened squared norm
    ``xᵀM⁻¹x`` exceeds ``threshold``, and repeat on the survivors until the exact
    certificate ``max_{S'} xᵀM⁻¹x ≤ beta`` holds — which is Lemma 2 (ii),
    ``max_{S'} (w·x)² ≤ beta E_{S'}[(w·x)²]`` for every ``w``.

    Whitened norms are computed from the SVD of the survivors (leverage scores), never by
    inverting ``M``. The removed set depends only on the column space of the data, so it
    is invariant under invertible linear maps ``x ↦ Ax`` (and, with ``centred=True``,
    under affine maps ``x ↦ Ax + b``).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The points (rows).
    beta : float
        The largest allowed ratio of the maximum to the mean of ``(w·x)²``. The mean of
        ``xᵀM⁻¹x`` over the points is the rank ``n`` of the data (``n_features`` for
        full-rank data), so ``beta ≥ n`` is necessary; a smaller ``beta`` raises. The
        thesis's constants (``β = 36n³/α``, Thm 2) are far larger than needed in practice.
    centred : bool, default=False
        Centre on the survivors' mean in each round (affine instead of linear invariance).
    threshold : float, optional
        Drop points with ``xᵀM⁻¹x > threshold`` in each round; ``rank ≤ threshold ≤
        beta``. ``None`` means ``beta``: only the current violators are dropped, the
        smallest removal per round. Thm 2's rule is ``threshold = n²/α = beta / (36 n)``
        (the text of §2.2 says ``beta / (144 n)``, a misprint), which removes more per
        round.

    Returns
    -------
    OutlierRemovalResult
        Kept and removed indices, the rounds, the certificate (``≤ beta``), the rank and
        the whitening map of the survivors.

    Raises
    ------
    ValueError
        If ``beta`` is smaller than the rank of the data (no subset can then satisfy the
        certificate unless it loses dimensions), or ``threshold`` is outside
        ``[rank, beta]``.

    Notes
    -----
    Every round removes at least one point; with ``threshold ≥ rank`` at least one point
    survives each round (the mean of ``|z|²`` is the rank), and ``d`` linearly independent
    points have ``|z|² = d``, so the loop ends with a non-empty set after at most
    ``n_samples`` rounds.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.geometry.outliers import remove_outliers
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.randn(200, 2), [[40.0, 0.0], [0.0, -50.0]]])
    >>> res = remove_outliers(X, beta=10.0)
    >>> res.removed.tolist()[-2:]
    [200, 201]
    >>> bool(res.certificate <= 10.0), res.rank
    (True, 2)
    """
    X = check_array(X, "X")
    centred = check_bool(centred, "centred")
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real):
        raise TypeError(f"beta must be a number, got {type(beta).__name__}")
    beta = float(beta)
    if not np.isfinite(beta) or beta <= 0:
        raise ValueError(f"beta must be a finite number > 0, got {beta!r}")
    m = X.shape[0]
    idx = np.arange(m)

    def moments(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        c = X[ids].mean(axis=0) if centred else np.zeros(X.shape[1])
        z2, W, r = _whiten(X[ids] - c)
        return z2, W, c, r

    z2, W, c, r = moments(idx)
    if beta < r:
        raise ValueError(
            f"beta must be >= the rank of the data ({r}): the whitened squared norms "
            f"x^T M^-1 x average exactly the rank over the points, so their maximum is at "
            f"least {r}; got beta={beta!r}"
        )
    if threshold is None:
        thr = beta
    else:
        if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
            raise TypeError(f"threshold must be a number or None, got {type(threshold).__name__}")
        thr = float(threshold)
        if not r <= thr <= beta:
            raise ValueError(
                f"threshold must be in [rank, beta] = [{r}, {beta!r}] (below the rank a round "
                f"can remove every point; above beta the loop need not end); got {threshold!r}"
            )
    # relative slack for rounding: leverages of points exactly at the threshold
    slack = 1e-9 * max(thr, 1.0)
    n_rounds = 0
    while z2.size and z2.max() > beta + slack:
        keep = z2 <= thr + slack
        idx = idx[keep]
        n_rounds += 1
        z2, W, c, r = moments(idx)
    mask = np.zeros(m, dtype=bool)
    mask[idx] = True
    return OutlierRemovalResult(
        kept=idx,
        mask=mask,
        removed=np.flatnonzero(~mask),
        n_rounds=n_rounds,
        certificate=float(z2.max()) if z2.size else 0.0,
        rank=r,
        beta=beta,
        threshold=thr,
        centre=c,
        whitening=W,
    )
