"""Graph kernels (WL, Gram matrices, cosine normalisation) on extreme input: sizes beyond
the machine are refused up front, values beyond the float range are a clear error, and
scale-invariant results do not depend on the scale of the input."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from scipy import sparse

from kernelkit.graphs import WeisfeilerLehman, gram, normalize_rows, wl_colours, wl_kernel

BEYOND = r"would need about [\d.e+]+ [KMGTPE]iB of memory, more than this machine has"
GRAPHS = [nx.path_graph(4), nx.cycle_graph(5)]


@pytest.mark.parametrize("n_iter", [10**12, 10**300])
def test_wl_with_a_huge_number_of_iterations_is_refused_up_front(n_iter):
    with pytest.raises(ValueError, match=BEYOND) as info:
        wl_kernel(GRAPHS, n_iter=n_iter, node_label=None)
    assert "WeisfeilerLehman(n_iter=" in str(info.value)
    with pytest.raises(ValueError, match=BEYOND):
        WeisfeilerLehman(n_iter=n_iter, node_label=None).fit(GRAPHS)
    with pytest.raises(ValueError, match=BEYOND) as info:
        wl_colours(GRAPHS, n_iter=n_iter, node_label=None)
    assert "wl_colours(n_iter=" in str(info.value)


def test_wl_on_an_edgeless_and_a_one_vertex_graph():
    K = wl_kernel([nx.empty_graph(1), nx.empty_graph(3)], n_iter=2, node_label=None,
                  normalize=False)  # fmt: skip
    # every vertex keeps degree 0: one colour per iteration, counted 1 and 3 times
    np.testing.assert_array_equal(K, 3 * np.array([[1.0, 3.0], [3.0, 9.0]]))


def test_gram_whose_entries_overflow_raises_naming_the_rows():
    X = sparse.csr_matrix(np.array([[1e200, 1e200], [1.0, 0.0]]))
    with pytest.raises(OverflowError, match="row 0 of X and row 0 of X is beyond the float64"):
        gram(X)
    Y = sparse.csr_matrix(np.array([[0.0, 1e300]]))
    with pytest.raises(OverflowError, match="of Y is beyond the float64"):
        gram(X, Y)
    np.testing.assert_allclose(gram(X * 1e-100), [[2e200, 1.0], [1.0, 1e-200]], rtol=1e-15)


@pytest.mark.parametrize("scale", [1e-320, 1e-300, 1.0, 1e300, 4e307])
def test_normalize_rows_does_not_depend_on_the_scale(scale):
    X = sparse.csr_matrix(np.array([[3.0, 4.0, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]))
    got = normalize_rows(X * scale).toarray()
    ref = np.array([[0.6, 0.8, 0.0], [0.0, 0.0, 0.0], [3**-0.5] * 3])
    np.testing.assert_allclose(got, ref, rtol=1e-12 if scale > 1e-310 else 1e-3, atol=0)


def test_normalize_rows_refuses_non_finite_rows():
    with pytest.raises(ValueError, match="X contains NaN or infinity"):
        normalize_rows(sparse.csr_matrix(np.array([[np.inf, 1.0]])))
