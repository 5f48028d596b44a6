"""The blockwise Gram matrix as a dask array: values, graph shape, products, bad input."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

from dask.callbacks import Callback  # noqa: E402

import kernelkit.kernels as kk  # noqa: E402
from kernelkit.kernels import (  # noqa: E402
    RBF,
    Intersection,
    Linear,
    Matern,
    White,
    gram,
    kernel_operator,
)

RNG = np.random.default_rng(0)
X = RNG.standard_normal((23, 3))
Y = RNG.standard_normal((11, 3)) + 0.5

KERNELS = {
    "rbf": RBF(lengthscale=0.7, variance=1.5),
    "matern32": Matern(lengthscale=1.3, nu=1.5),
    "sum-product": RBF(0.5) + 2.0 * Matern(nu=2.5) * Linear() + White(0.1),
}


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def _close(G, K):
    G = np.asarray(G)
    assert G.shape == K.shape
    np.testing.assert_allclose(G, K, rtol=1e-12, atol=1e-12 * np.abs(K).max())


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("chunks", [5, 23, "auto"])
def test_gram_equals_kernel_on_numpy_inputs(name, chunks):
    k = KERNELS[name]
    G = gram(k, X, chunks=chunks)
    assert isinstance(G, da.Array)
    _close(G.compute(), k(X))
    _close(gram(k, X, Y, chunks=chunks).compute(), k(X, Y))


@pytest.mark.parametrize("name", KERNELS)
def test_gram_equals_kernel_on_unevenly_chunked_dask_inputs(name):
    k = KERNELS[name]
    dX = da.from_array(X, chunks=((3, 9, 11), 3))
    dY = da.from_array(Y, chunks=((4, 7), 3))
    G = gram(k, dX)
    assert G.chunks == ((3, 9, 11), (3, 9, 11))
    _close(G.compute(), k(X))
    _close(gram(k, dX, dY).compute(), k(X, Y))
    _close(gram(k, dX, Y, chunks=6).compute(), k(X, Y))  # mixed: Y cut by chunks
    assert gram(k, dX, Y, chunks=6).chunks == ((3, 9, 11), (6, 5))


def test_gram_of_x_is_exactly_symmetric_and_white_noise_is_on_the_diagonal():
    k = RBF(0.8) + White(0.25)
    G = gram(k, X, chunks=4).compute()
    np.testing.assert_array_equal(G, G.T)
    _close(G, k(X))
    # a separate Y has no noise, as k(X, Y) with Y not X
    _close(gram(k, X, X.copy(), chunks=4).compute(), RBF(0.8)(X))


def test_gram_resolves_kernel_names_and_keeps_float32():
    _close(gram("matern32", X, chunks=7).compute(), Matern(nu=1.5)(X))
    G = gram(RBF(), X.astype(np.float32), chunks=7)
    assert G.dtype == np.float32 and G.compute().dtype == np.float32
    assert gram(RBF(), X.round().astype(int), chunks=7).dtype == np.float64


def test_gram_is_lazy_and_takes_a_copy_of_the_kernel():
    k = RBF(1.0)
    G = gram(k, X, chunks=5)
    k.lengthscale = 5.0  # after building: the graph keeps the kernel it was given
    _close(G.compute(), RBF(1.0)(X))


def _reaches(obj, target, depth=0):
    """Whether ``target`` is ``obj`` or inside it (tuples, lists, dicts, task objects)."""
    if obj is target:
        return True
    if depth > 20:
        return False
    if isinstance(obj, (tuple, list)):
        return any(_reaches(o, target, depth + 1) for o in obj)
    if isinstance(obj, dict):
        return any(_reaches(o, target, depth + 1) for o in obj.values())
    for attr in ("value", "args", "kwargs"):  # dask's task-spec objects
        if hasattr(obj, attr) and not isinstance(obj, np.ndarray):
            if _reaches(getattr(obj, attr), target, depth + 1):
                return True
    return False


@pytest.mark.parametrize("same", [True, False])
def test_kernel_is_one_key_of_the_graph(same):
    G = gram(RBF(), X, None if same else Y, chunks=4)
    graph = dict(G.__dask_graph__())
    kernels = [key for key, task in graph.items() if _kernel_in(task)]
    assert len(kernels) == 1  # one key holds the kernel...
    (kernel_key,) = kernels
    kernel = getattr(graph[kernel_key], "value", graph[kernel_key])
    assert [key for key, task in graph.items() if _reaches(task, kernel)] == [kernel_key]
    blocks = [key for key in graph if key[0] == G.name]
    assert len(blocks) == G.numblocks[0] * G.numblocks[1]
    direct = [key for key in blocks if kernel_key in repr(graph[key])]
    n_x, n_y = G.numblocks
    # ...that every computed block refers to (for Y = X the lower blocks are transposes)
    assert len(direct) == (n_x * (n_x + 1) // 2 if same else n_x * n_y)


def _kernel_in(task):
    value = getattr(task, "value", task)
    return isinstance(value, kk.Kernel)


class _BlockShapes(Callback):
    def __init__(self):
        super().__init__()
        self.shapes = []

    def _posttask(self, key, result, dsk, state, worker_id):
        if isinstance(result, np.ndarray):
            self.shapes.append(result.shape)


def test_gram_times_vector_is_blockwise_and_never_forms_k():
    n, c = len(X), 5
    k = KERNELS["sum-product"]
    v = RNG.standard_normal(n)
    V = RNG.standard_normal((n, 2))
    for dX in (X, da.from_array(X, chunks=(c, 3))):
        G = gram(k, dX, chunks=c)
        assert max(max(ch) for ch in G.chunks) == c
        with _BlockShapes() as cb:
            Kv = (G @ v).compute()
        _close(Kv, k(X) @ v)
        assert max(int(np.prod(s)) for s in cb.shapes) <= c * c  # no (n, n) array
        _close((G @ V).compute(), k(X) @ V)


# ------------------------------------------------------------------ bad input
def test_feature_chunked_dask_input_is_refused():
    dX = da.from_array(X, chunks=(5, 2))
    with pytest.raises(ValueError, match=r"X is chunked along its features.*rechunk"):
        gram(RBF(), dX)
    with pytest.raises(ValueError, match=r"Y is chunked along its features"):
        gram(RBF(), X, dX)


def test_mismatched_features_are_refused():
    with pytest.raises(ValueError, match=r"X and Y have different numbers of features \(3 and 2"):
        gram(RBF(), X, Y[:, :2])
    with pytest.raises(ValueError, match=r"different numbers of features"):
        gram(RBF(), da.from_array(X, chunks=(5, 3)), da.from_array(Y[:, :2], chunks=(5, 2)))
    with pytest.raises(ValueError, match=r"lengthscale"):  # ARD size, checked up front
        gram(RBF(lengthscale=np.ones(2)), X)


@pytest.mark.parametrize(
    "chunks, error, message",
    [
        (0, ValueError, r"chunks must be >= 1, got 0"),
        (-3, ValueError, r"chunks must be >= 1"),
        (2.5, TypeError, r"chunks must be an integer, got float"),
        (True, TypeError, r"chunks must be an integer, got bool"),
        ("big", ValueError, r"chunks must be a positive integer or 'auto', got 'big'"),
    ],
)
def test_bad_chunks_are_refused(chunks, error, message):
    with pytest.raises(error, match=message):
        gram(RBF(), X, chunks=chunks)


def test_non_vector_kernel_is_refused():
    with pytest.raises(TypeError, match=r"gram needs a kernel on vectors.*Intersection"):
        gram(Intersection(), X)


def test_bad_dask_inputs_are_refused():
    with pytest.raises(ValueError, match=r"X must be a 2-dimensional dask array"):
        gram(RBF(), da.ones(5, chunks=2))
    with pytest.raises(TypeError, match=r"Y must be real-valued"):
        gram(RBF(), X, da.ones((4, 3), chunks=(2, 3), dtype=complex))
    with pytest.raises(ValueError, match=r"X is empty"):
        gram(RBF(), da.ones((0, 3), chunks=(2, 3)))
    with pytest.raises(ValueError, match=r"X contains NaN"):  # checked when computed
        gram(RBF(), da.from_array(np.full((4, 3), np.nan), chunks=(2, 3))).compute()


def test_kernel_operator_refuses_dask_input():
    with pytest.raises(TypeError, match=r"kernel_operator takes a NumPy X.*gram\(kernel, X\) @ v"):
        kernel_operator(RBF(), da.from_array(X, chunks=(5, 3)))


def test_gram_docstring_examples():
    import kernelkit.kernels.blockwise as blockwise

    finder = doctest.DocTestFinder()
    (test,) = [t for t in finder.find(blockwise) if t.name.endswith(".gram")]
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_oversized_block_is_refused(monkeypatch):
    import kernelkit._memory as memory

    monkeypatch.setattr(memory, "memory_limit", lambda: 1000)
    with pytest.raises(ValueError, match=r"gram: a block of shape \(23, 11\).*smaller chunks"):
        gram(RBF(), X, Y, chunks=100)
