"""Intersection kernel on finite sets (assignment eq. 1.4) and precomputed Gram matrices."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelkit.kernels import RBF, Constant, Intersection, Precomputed, White

items = st.one_of(st.integers(0, 9), st.sampled_from(["a", "b", "c", ("t", 1)]))
sets = st.lists(st.frozensets(items, max_size=8), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(X=sets, Y=sets)
def test_intersection_equals_brute_force_and_is_psd(X, Y) -> None:
    k = Intersection()
    K = k(X)
    brute = np.array([[2.0 ** len(a & b) for b in X] for a in X])
    np.testing.assert_array_equal(K, brute)
    np.testing.assert_array_equal(k(X, Y), [[2.0 ** len(a & b) for b in Y] for a in X])
    np.testing.assert_array_equal(k.diag(X), [2.0 ** len(a) for a in X])
    lam = np.linalg.eigvalsh(K)
    assert lam.min() >= -1e-10 * np.trace(K)


def test_intersection_is_the_subset_feature_inner_product() -> None:
    """phi_U(A) = 1[U subset of A] over all subsets U of the ground set (eq. 1.4)."""
    ground = range(5)
    subsets = [set(c) for r in range(6) for c in itertools.combinations(ground, r)]
    rng = np.random.default_rng(0)
    X = [set(np.flatnonzero(rng.random(5) < 0.5).tolist()) for _ in range(7)]
    Phi = np.array([[float(U <= A) for U in subsets] for A in X])
    np.testing.assert_array_equal(Intersection()(X), Phi @ Phi.T)


def test_intersection_accepts_iterables_and_ignores_duplicates() -> None:
    X = [[1, 1, 2], (2, 3), list("xy"), frozenset()]
    expected = [[4, 2, 1, 1], [2, 4, 1, 1], [1, 1, 4, 1], [1, 1, 1, 1]]
    np.testing.assert_array_equal(Intersection()(X), expected)
    np.testing.assert_array_equal(Intersection().diag(X), [4, 4, 4, 1])
    # elements of Y never seen in X do not count
    np.testing.assert_array_equal(Intersection()([{1}], [{1, 99, "z"}]), [[2.0]])


def test_intersection_errors() -> None:
    k = Intersection()
    with pytest.raises(TypeError, match=r"Y\[0\] must be a set \(or another iterable\).*int"):
        k([{1}], [3])
    with pytest.raises(TypeError, match=r"X\[1\] must be a set.*got float"):
        k.diag([{1}, 2.5])
    with pytest.raises(ValueError, match="X is empty"):
        k([])
    with pytest.raises(TypeError, match="X must be a list of objects"):
        k(5)
    big = set(range(1100))
    with pytest.raises(ValueError, match="overflows"):
        k([big, big])
    with pytest.raises(ValueError, match="overflows"):
        k.diag([big])


def test_intersection_rejects_strings_and_says_how_to_pass_one() -> None:
    """A string is iterable, so "must be a set (or iterable)" was no help: say that strings
    are refused (they would be split into characters) and how to pass a set of one string."""
    k = Intersection()
    for call in (lambda: k([{1}, "abc"]), lambda: k.diag([{1}, "abc"]), lambda: k([{1}], ["abc"])):
        with pytest.raises(TypeError, match=r"\[\d\] is a string \('abc'\); strings are not "):
            call()
    with pytest.raises(TypeError, match=r"pass \{'abc'\} for the set of one string"):
        k(["abc"])
    with pytest.raises(TypeError, match=r"X\[0\] is a string \(b'ab'\)"):
        k([b"ab"])
    # what the message advises works
    np.testing.assert_array_equal(k([{"abc"}, {"abc", "d"}]), [[2.0, 2.0], [2.0, 4.0]])
    np.testing.assert_array_equal(k([set("abc")]), [[8.0]])


# --------------------------------------------------------------------------- Precomputed
@pytest.fixture
def gram():
    A = np.random.default_rng(1).standard_normal((6, 3))
    return A @ A.T


def test_precomputed_returns_sub_blocks(gram) -> None:
    k = Precomputed(gram)
    I, J = np.array([4, 0, 2]), [1, 1, 5]
    np.testing.assert_array_equal(k(I, J), gram[np.ix_(I, J)])
    np.testing.assert_array_equal(k(I), gram[np.ix_(I, I)])
    np.testing.assert_array_equal(k(I[:, None]), gram[np.ix_(I, I)])  # (n, 1) index column
    np.testing.assert_array_equal(k.diag(I), gram[I, I])
    np.testing.assert_array_equal(k(np.arange(6)), gram)


def test_precomputed_in_the_algebra(gram) -> None:
    k = Precomputed(gram)
    idx = [3, 1, 1]
    sub = gram[np.ix_(idx, idx)]
    np.testing.assert_allclose((k + Constant(2.0))(idx), sub + 2.0)
    np.testing.assert_allclose((k * k)(idx), sub * sub)
    np.testing.assert_allclose((0.5 * k + White(1.0))(idx), 0.5 * sub + np.eye(3))
    np.testing.assert_allclose((k + 1.0).diag(np.array(idx)[:, None]), np.diag(sub) + 1.0)


@pytest.mark.parametrize("bad", [[0, 6], [-1], np.array([[0, 1]])])
def test_precomputed_rejects_bad_indices(gram, bad) -> None:
    k = Precomputed(gram)
    err = TypeError if np.ndim(bad) == 2 else ValueError
    with pytest.raises(err, match="X"):
        k(bad)
    with pytest.raises(err, match="X"):  # also inside a sum (no silent wrap-around of -1)
        (k + Constant(1.0))(bad)


def test_precomputed_rejects_non_integer_indices(gram) -> None:
    with pytest.raises(TypeError, match="integer indices"):
        Precomputed(gram)([0.0, 1.0])
    with pytest.raises(TypeError, match="integer indices"):
        Precomputed(gram)("01")
    with pytest.raises(ValueError, match="Y holds indices outside"):
        Precomputed(gram)([0], [7])
    with pytest.raises(ValueError, match="X is empty"):
        Precomputed(gram)(np.array([], dtype=int))
    with pytest.raises(TypeError, match="integer indices"):  # vectors where indices belong
        (Precomputed(gram) + RBF())(np.zeros((2, 1)))


def test_precomputed_rejects_bad_gram(gram) -> None:
    asym = gram.copy()
    asym[0, 1] += 1e-3
    with pytest.raises(ValueError, match="gram must be symmetric"):
        Precomputed(asym)
    with pytest.raises(ValueError, match="gram must be square"):
        Precomputed(gram[:, :4])
    bad = gram.copy()
    bad[2, 2] = np.nan
    with pytest.raises(ValueError, match="gram contains NaN"):
        Precomputed(bad)
    k = Precomputed(gram)
    with pytest.raises(ValueError, match="gram must be symmetric"):
        k.set_params(gram=asym)
