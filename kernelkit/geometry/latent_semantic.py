"""Latent semantic indexing and its random-projection speed-up (Vempala 1997, Ch. 4).

The input is the thesis's orientation: a *terms × documents* matrix ``A`` (``n`` terms,
``m`` documents), dense or scipy sparse. Rank-``k`` LSI writes ``A ≈ A_k = U_k D_k V_kᵀ``
(the truncated SVD, best rank-``k`` approximation by Eckart–Young, Vempala (1997) Thm 8)
and represents the documents by the rows of ``V_k D_k`` (Vempala (1997) §4.1): document
``j`` becomes ``U_kᵀ a_j``, the coordinates of its projection on the LSI space.

Random projection + LSI (Vempala (1997) §4.4) first maps the documents to ``l`` dimensions
with a random column-orthonormal ``n × l`` matrix ``R``, ``B = √(n/l) Rᵀ A``, then runs
rank-``k`` LSI on ``B``: ``O(m l (l + c))`` work for ``c`` non-zeros per document instead
of a decomposition of ``A`` itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.linalg import svds

from kernelkit._threads import blas_threads_for
from kernelkit._validation import check_array, check_int, check_random_state
from kernelkit.features.matrices import haar_rows, resolve_coupling, sample_matrix

__all__ = ["lsi", "project_terms", "random_projection_lsi"]


#: Dense input goes to ARPACK (:func:`scipy.sparse.linalg.svds`) when ``k`` is at most
#: ``min(A.shape) / ARPACK_RATIO``, to a full LAPACK SVD otherwise.
ARPACK_RATIO = 10
#: Random projections :func:`random_projection_lsi` can use.
RP_COUPLINGS = ("orthogonal", "iid", "sparse")


def _check_matrix(A: Any) -> np.ndarray | sp.csr_array:
    """``A`` as a float64 ndarray or CSR array (2-D, finite, non-empty)."""
    if sp.issparse(A):
        if A.ndim != 2:
            raise ValueError(f"A must be 2-dimensional (terms x documents), got shape {A.shape}")
        if not (np.issubdtype(A.dtype, np.number) or A.dtype == bool) or np.iscomplexobj(A):
            raise TypeError(f"A must hold real numbers, got dtype {A.dtype}")
        out = sp.csr_array(A, dtype=np.float64)
        if not np.isfinite(out.data).all():
            raise ValueError("A contains NaN or infinity")
    else:
        out = check_array(A, "A", dtype=np.float64)
    if min(out.shape) == 0:
        raise ValueError(f"A must have at least one term and one document, got shape {out.shape}")
    return out


def _rank_tol(sigma_max: float, shape: tuple[int, ...]) -> float:
    # numpy.linalg.matrix_rank's default threshold
    return float(sigma_max * max(shape) * np.finfo(np.float64).eps)


def _fix_signs(X: np.ndarray) -> np.ndarray:
    """Flip each column so that its entry of largest absolute value is positive."""
    rows = np.argmax(np.abs(X), axis=0)
    signs = np.sign(X[rows, np.arange(X.shape[1])])
    signs[signs == 0] = 1.0
    return X * signs


def lsi(A: Any, k: int) -> np.ndarray:
    """Rank-``k`` latent semantic indexing: the documents' coordinates ``V_k D_k``.

    Parameters
    ----------
    A : array-like or scipy sparse matrix, shape (n_terms, n_documents)
        The term × document matrix (terms as rows, documents as columns, the thesis's
        orientation; transpose a scikit-learn ``CountVectorizer`` output first).
    k : int
        The rank, ``1 <= k <= rank(A)``.

    Returns
    -------
    ndarray, shape (n_documents, k)
        Row ``j`` is document ``j`` in the LSI space: ``(V_k D_k)_j = U_kᵀ a_j``, the
        coordinates of the projection of column ``a_j`` on the span of the top ``k`` left
        singular vectors. Columns come in order of decreasing singular value; the sign of
        each column is fixed so that its entry of largest absolute value is positive (the
        SVD leaves it free), so the output is deterministic and the same for dense and
        sparse input whenever the top ``k`` singular values are distinct.

    Raises
    ------
    ValueError
        If ``A`` is not 2-D, is empty or not finite, or ``k`` exceeds ``min(A.shape)`` or
        the numerical rank of ``A`` (threshold ``σ_1 max(n, m) ε``, as
        :func:`numpy.linalg.matrix_rank`).

    Notes
    -----
    Vempala (1997) §4.1: ``A = U D Vᵀ``, ``A_k = U_k D_k V_kᵀ``; by Eckart–Young (Thm 8)
    ``A_k`` is the best rank-``k`` approximation in Frobenius norm, so the Gram matrix of
    the rows returned here is ``A_kᵀ A_k`` and ``‖A − A_k‖_F² = Σ_{i>k} σ_i²``. Dense input
    uses a full :func:`scipy.linalg.svd`; sparse input uses
    :func:`scipy.sparse.linalg.svds` (ARPACK, fixed start vector, so repeated calls give
    the same numbers) without densifying ``A``, except when ``k = min(A.shape)``, which
    ARPACK cannot do and where ``A`` is small in one direction.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[2.0, 2.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 3.0]])
    >>> np.round(lsi(A, 2), 6)
    array([[2.236068, 0.      ],
           [2.236068, 0.      ],
           [0.      , 3.      ]])
    """
    A = _check_matrix(A)
    k = check_int(k, "k", minimum=1)
    n_terms, n_documents = A.shape
    if k > min(A.shape):
        raise ValueError(
            f"k={k} is larger than min(A.shape)={min(A.shape)} (A has {n_terms} terms and "
            f"{n_documents} documents); the rank of A is at most that"
        )
    with blas_threads_for(min(A.shape)):  # one BLAS thread for small problems
        if k < min(A.shape) and (sp.issparse(A) or ARPACK_RATIO * k <= min(A.shape)):
            v0 = np.random.RandomState(0).uniform(-1.0, 1.0, size=min(A.shape))
            _, s, vt = svds(A, k=k, v0=v0, solver="arpack", return_singular_vectors="vh")
            order = np.argsort(s)[::-1]
            s, vt = s[order], vt[order]
            top = float(s[0])
            rank_note = f"the {k}-th singular value is {s[-1]:.3g}"
        else:
            dense = A.toarray() if sp.issparse(A) else A
            _, s_all, vt_all = scipy.linalg.svd(dense, full_matrices=False, check_finite=False)
            top = float(s_all[0])
            rank = int((s_all > _rank_tol(top, A.shape)).sum())
            s, vt = s_all[:k], vt_all[:k]
            rank_note = f"the rank of A is {rank}"
        if top == 0.0 or s[-1] <= _rank_tol(top, A.shape):
            raise ValueError(
                f"k={k} is larger than the rank of A ({rank_note}); choose k <= rank(A)"
            )
    return _fix_signs(vt.T * s)


def random_projection_lsi(
    A: Any, l: int, k: int, random_state: Any = None, *, coupling: str = "orthogonal"
) -> np.ndarray:
    """Random projection to ``l`` dimensions, then rank-``k`` LSI (Vempala (1997) §4.4).

    Parameters
    ----------
    A : array-like or scipy sparse matrix, shape (n_terms, n_documents)
        The term × document matrix (terms as rows). Sparse input stays sparse: only the
        projected ``l × n_documents`` matrix ``B`` is dense.
    l : int
        The projected dimension, ``k <= l <= n_terms``.
    k : int
        The LSI rank, at most the rank of the projected matrix ``B``.
    random_state : int, RandomState or None
        Seed of the random projection.
    coupling : {"orthogonal", "iid", "sparse"}, default "orthogonal"
        The random matrix (the alias ``"orf"`` means ``"orthogonal"``). ``"orthogonal"``
        is the thesis's: ``B = √(n/l) Rᵀ A`` with ``R`` an ``n × l`` column-orthonormal
        matrix spanning a uniformly random subspace (QR of a Gaussian matrix,
        :func:`kernelkit.features.matrices.haar_rows`; ``O(n l²)`` to draw). ``"iid"``
        (i.i.d. ``N(0, 1)`` entries) and ``"sparse"`` (Achlioptas's ``√3 {±1, 0}``
        entries, :func:`kernelkit.features.matrices.sparse_matrix`) skip the
        orthogonalisation: ``B = M A / √l`` with ``M`` the ``l × n`` random matrix; the
        same Johnson–Lindenstrauss guarantee up to constants, drawn in ``O(n l)``.

    Returns
    -------
    ndarray, shape (n_documents, k)
        ``lsi(B, k)``: the documents' coordinates in the rank-``k`` LSI space of ``B``,
        with the sign convention of :func:`lsi`.

    Raises
    ------
    ValueError
        As :func:`lsi`, and if ``l < k``, ``l > n_terms`` or ``coupling`` is unknown.

    Notes
    -----
    By Johnson–Lindenstrauss (Vempala (1997) Lemma 8) a unit vector's squared projection
    on a random ``l``-dimensional subspace has mean ``l/n`` and concentrates for
    ``l = Ω(log m / ε²)``, so the scaled columns of ``B`` keep the documents' pairwise
    distances and inner products within ``1 ± ε``; Thms 10–11 bound the loss of the
    spectrum. Cost: drawing ``R`` (above), ``O(nnz(A) l)`` for ``B`` and the SVD of the
    ``l × m`` matrix ``B``: ``O(m l (l + c))`` for ``c`` non-zeros per document, the
    thesis's count. The projection error of an inner product is of order
    ``‖a_i‖ ‖a_j‖ / √l``: short, sparse documents whose cosines are small need a large
    ``l`` (see the ``vempala-e3`` and ``classic3-lsi`` experiments).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.random.RandomState(0).poisson(1.0, size=(50, 8)).astype(float)
    >>> Y = random_projection_lsi(A, l=20, k=3, random_state=0)
    >>> Y.shape
    (8, 3)
    >>> bool(np.allclose(Y, random_projection_lsi(A, l=20, k=3, random_state=0)))
    True
    """
    A = _check_matrix(A)
    n_terms = A.shape[0]
    l = check_int(l, "l", minimum=1)
    k = check_int(k, "k", minimum=1)
    coupling = resolve_coupling(coupling, RP_COUPLINGS)
    if l > n_terms:
        raise ValueError(f"l={l} is larger than the number of terms n={n_terms} (rows of A)")
    if l < k:
        raise ValueError(f"l={l} must be >= k={k}: LSI of rank k needs l >= k dimensions")
    return lsi(project_terms(A, l, random_state, coupling=coupling), k)


def project_terms(
    A: Any, l: int, random_state: Any = None, *, coupling: str = "orthogonal"
) -> np.ndarray:
    """The scaled random projection ``B`` of :func:`random_projection_lsi` (no LSI).

    Parameters
    ----------
    A : array-like or scipy sparse matrix, shape (n_terms, n_documents)
        The term × document matrix.
    l : int
        The projected dimension, ``1 <= l <= n_terms``.
    random_state : int, RandomState or None
        Seed; the same seed gives the same ``B`` as :func:`random_projection_lsi` uses.
    coupling : {"orthogonal", "iid", "sparse"}, default "orthogonal"
        As in :func:`random_projection_lsi`.

    Returns
    -------
    ndarray, shape (l, n_documents)
        ``√(n/l) Rᵀ A`` (``"orthogonal"``) or ``M A / √l`` (``"iid"``, ``"sparse"``); in
        every case ``E ‖B a‖² = ‖a‖²`` for a fixed column ``a`` (Vempala (1997) Lemma 8:
        ``E ‖Rᵀ a‖² = (l/n) ‖a‖²``).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.eye(400)[:, :3]
    >>> B = project_terms(A, 100, random_state=0)
    >>> B.shape, bool(np.allclose(np.linalg.norm(B, axis=0), 1.0, atol=0.35))
    ((100, 3), True)
    """
    A = _check_matrix(A)
    n_terms = A.shape[0]
    l = check_int(l, "l", minimum=1)
    coupling = resolve_coupling(coupling, RP_COUPLINGS)
    if l > n_terms:
        raise ValueError(f"l={l} is larger than the number of terms n={n_terms} (rows of A)")
    rng = check_random_state(random_state)
    with blas_threads_for(l):  # one BLAS thread for small problems
        if coupling == "orthogonal":
            # rows of haar_rows are orthonormal: R = haar_rows(l, n).T is column-orthonormal
            M = haar_rows(l, n_terms, rng) * np.sqrt(n_terms / l)
        else:
            M = sample_matrix(coupling, l, n_terms, rng) / np.sqrt(l)
            if sp.issparse(M):  # sparse A times dense M: O(nnz(A) l), no sparse x sparse
                M = M.toarray()
        # (Aᵀ Mᵀ)ᵀ: sparse A is multiplied, never densified
        B = A.T @ M.T
    return np.ascontiguousarray((B.toarray() if sp.issparse(B) else np.asarray(B)).T)
