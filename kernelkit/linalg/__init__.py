"""Linear algebra of kernel matrices: the two ways the estimators solve with ``K + noise I``.

* :mod:`~kernelkit.linalg.cholesky` — the dense way: Cholesky with jitter escalation
  (:func:`cholesky_jitter`, :func:`jittered_cholesky`), ``O(n^2)`` memory, ``O(n^3)`` time;
* :mod:`~kernelkit.linalg.krylov` — the matrix-free way: batched preconditioned conjugate
  gradients (mBCG), Lanczos, stochastic Lanczos quadrature for ``log det`` and Hutchinson
  traces, ``O(n * block)`` memory (Gardner et al. 2018);
* :mod:`~kernelkit.linalg.operator` — ``K + noise I`` as blockwise products that never form
  ``K``, with the contractions of its hyperparameter gradient;
* :mod:`~kernelkit.linalg.preconditioners` — low-rank-plus-noise preconditioners for the
  Krylov solvers: pivoted Cholesky, Nyström, and random features.

This floor sits between :mod:`kernelkit.features` (whose maps serve as preconditioners) and
:mod:`kernelkit.models` (whose estimators only choose a solver).
"""

from __future__ import annotations

from kernelkit._lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "cholesky": [
            "JitteredCholesky",
            "NumericalWarning",
            "check_symmetric",
            "cholesky_jitter",
            "cholesky_or_none",
            "jittered_cholesky",
        ],
        "krylov": [
            "CGResult",
            "LanczosResult",
            "LogdetEstimate",
            "NotPositiveDefiniteError",
            "lanczos",
            "lanczos_quadrature",
            "mbcg",
            "probe_vectors",
            "slq_logdet",
        ],
        "operator": ["KernelOperator"],
        "preconditioners": [
            "select_centres",
            "pivoted_cholesky",
            "Nystrom",
            "PivotedCholesky",
            "Preconditioner",
            "RandomFeaturePreconditioner",
        ],
    },
)
