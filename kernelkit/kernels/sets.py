"""Kernels on non-vector objects: finite sets, and precomputed Gram matrices."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from scipy import sparse

from kernelkit._validation import check_array
from kernelkit.kernels.base import Kernel
from kernelkit.kernels.parameters import parameter

__all__ = ["Intersection", "Precomputed"]


def _incidence(sets: Any, vocab: dict[Any, int], name: str, grow: bool) -> sparse.csr_matrix:
    """Binary sparse matrix with one row per set and one column per element of ``vocab``."""
    indptr = [0]
    indices: list[int] = []
    for i, s in enumerate(sets):
        _as_iterable(s, name, i)
        cols = set()
        for item in s:
            j = vocab.get(item)
            if j is None and grow:
                j = vocab[item] = len(vocab)
            if j is not None:
                cols.add(j)
        indices.extend(cols)
        indptr.append(len(indices))
    data = np.ones(len(indices))
    return sparse.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, len(vocab)))


class Intersection(Kernel):
    """Intersection kernel on subsets of a finite set: ``k(A, B) = 2^|A ∩ B|``.

    The assignment's eq. 1.4: the feature map indexes all subsets ``U`` of the ground set,
    ``phi_U(A) = 1[U ⊆ A]``, so ``<phi(A), phi(B)>`` counts the common subsets. Inputs are
    lists of Python sets (or any iterables of hashable items). The counts ``|A ∩ B|`` come
    from one sparse matrix product.
    """

    requires_vector_input = False

    def _counts(self, X: Any, Y: Any) -> np.ndarray:
        vocab: dict[Any, int] = {}
        A = _incidence(X, vocab, "X", grow=True)
        B = A if Y is X else _incidence(Y, vocab, "Y", grow=False)
        A.resize((A.shape[0], len(vocab)))
        return np.asarray((A @ B.T).todense())

    def _bound(self, X: Any, Y: Any) -> float:
        return 2.0**1023  # larger intersections are an error in _to_kernel

    def _to_kernel(self, counts: np.ndarray) -> np.ndarray:
        if counts.size and counts.max() > 1023:
            raise ValueError(
                "sets share more than 1023 elements; 2^|A ∩ B| overflows float64 "
                "(consider a normalised kernel)"
            )
        return np.ldexp(1.0, counts.astype(np.int64))

    def _gram(self, X: Any, Y: Any) -> np.ndarray:
        return self._to_kernel(self._counts(X, Y))

    def _diag(self, X: Any) -> np.ndarray:
        sizes = np.array([len(set(_as_iterable(s, "X", i))) for i, s in enumerate(X)])
        return self._to_kernel(sizes)


def _as_iterable(s: Any, name: str, i: int) -> Iterable[Any]:
    if isinstance(s, (str, bytes)):
        raise TypeError(
            f"{name}[{i}] is a string ({s!r}); strings are not accepted as sets, since they "
            f"would be split into characters: pass {{{s!r}}} for the set of one string, or "
            f"set({s!r}) for its characters"
        )
    if not isinstance(s, Iterable):
        raise TypeError(
            f"{name}[{i}] must be a set (or another iterable) of hashable items, "
            f"got {type(s).__name__}"
        )
    return s


class Precomputed(Kernel):
    """A kernel given by its Gram matrix on a fixed, indexed collection of objects.

    ``k(I, J)`` for integer index arrays returns ``gram[I][:, J]``, so a precomputed
    matrix (a graph kernel, a string kernel, ...) takes part in the kernel algebra and in
    every estimator like any other kernel.

    Parameters
    ----------
    gram : array of shape (n, n)
        Symmetric Gram matrix.
    """

    requires_vector_input = False

    gram: Any = parameter()

    def _check_params(self) -> None:
        G = check_array(self.gram, "gram")
        if G.shape[0] != G.shape[1]:
            raise ValueError(f"gram must be square, got shape {G.shape}")
        if not np.allclose(G, G.T, rtol=1e-10, atol=1e-12 * max(1.0, float(np.abs(G).max()))):
            raise ValueError("gram must be symmetric")
        self._G = G

    def _bound(self, X: Any, Y: Any) -> float:
        return float(np.abs(self._G).max())

    def _check_input(self, X: Any, name: str = "X") -> np.ndarray:
        if isinstance(X, (str, bytes)):
            raise TypeError(f"{name} must be an array of integer indices into gram")
        idx = np.asarray(X)
        if idx.ndim == 2 and idx.shape[1] == 1:
            idx = idx[:, 0]
        if idx.ndim != 1 or not (np.issubdtype(idx.dtype, np.integer) or idx.size == 0):
            raise TypeError(f"{name} must be a 1-D array of integer indices into gram")
        if idx.size == 0:
            raise ValueError(f"{name} is empty; at least one index is required")
        n = self._G.shape[0]
        if idx.min() < 0 or idx.max() >= n:
            raise ValueError(f"{name} holds indices outside [0, {n}) of the precomputed gram")
        return idx

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        # inside a sum or product the indices arrive checked but unconverted (list, (n, 1))
        X, Y = np.asarray(X).reshape(-1), np.asarray(Y).reshape(-1)
        return self._G[np.ix_(X, Y)]

    def _diag(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X).reshape(-1)
        return self._G[X, X]
