"""The random maps on dask arrays: ``fit`` reads one row, ``transform`` maps row blocks and
gives what the array path gives; the fitted map enters the task graph once."""

import pickle

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

from dask.core import get_dependencies  # noqa: E402

from kernelkit.features import (  # noqa: E402
    AngularFeatures,
    RandomFourierFeatures,
    RandomMap,
    RandomProjection,
)

MAPS = (RandomFourierFeatures, AngularFeatures, RandomProjection)
COUPLINGS = ("iid", "orthogonal", "hadamard")
N, D = 23, 12  # 12 features (padded to 16): no warning for hadamard
#: row chunkings of N rows: even, uneven (with an empty chunk), one chunk
CHUNKINGS = ((6, 6, 6, 5), (2, 11, 0, 1, 9), (N,))


@pytest.fixture(autouse=True)
def _synchronous() -> object:
    with dask.config.set(scheduler="synchronous"):
        yield


def _data(dtype: type = np.float64) -> np.ndarray:
    return np.random.RandomState(0).randn(N, D).astype(dtype)


def _chunked(X: np.ndarray, rows: tuple[int, ...]) -> object:
    return da.from_array(X, chunks=(rows, (X.shape[1],)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("coupling", COUPLINGS)
@pytest.mark.parametrize("cls", MAPS)
def test_dask_transform_equals_array_transform(cls: type, coupling: str, dtype: type) -> None:
    X = _data(dtype)
    expected = cls(15, coupling=coupling, random_state=0).fit(X).transform(X)
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype is np.float32 else {"rtol": 1e-12, "atol": 1e-12}
    for rows in CHUNKINGS:
        Xd = _chunked(X, rows)
        fitted = cls(15, coupling=coupling, random_state=0).fit(Xd)  # fit reads one row
        assert fitted.n_features_in_ == D
        Z = fitted.transform(Xd)
        assert isinstance(Z, da.Array)
        assert Z.chunks == (rows, (15,))
        assert Z.dtype == expected.dtype
        out = Z.compute()
        assert out.dtype == expected.dtype
        np.testing.assert_allclose(out, expected, **tol)


def test_fit_transform_of_a_dask_array_is_a_dask_array() -> None:
    X = _data()
    Z = RandomFourierFeatures(8, random_state=0).fit_transform(_chunked(X, (10, 13)))
    assert isinstance(Z, da.Array)
    expected = RandomFourierFeatures(8, random_state=0).fit_transform(X)
    np.testing.assert_allclose(Z.compute(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("coupling", ["hybrid", "sparse", "fjlt"])
def test_other_projections_on_dask(coupling: str) -> None:
    """Complex features (hybrid) keep the array path's dtype; fjlt's density from
    n_samples uses the dask array's row count."""
    X = _data(np.float32)
    expected = RandomProjection(10, coupling=coupling, random_state=0).fit(X).transform(X)
    Z = RandomProjection(10, coupling=coupling, random_state=0).fit(_chunked(X, (7, 16)))
    Z = Z.transform(_chunked(X, (7, 16)))
    assert Z.dtype == expected.dtype
    np.testing.assert_allclose(Z.compute(), expected, rtol=1e-5, atol=1e-6)


def test_auto_n_components_uses_the_dask_row_count() -> None:
    X = np.random.RandomState(0).randn(40, 300)
    expected = RandomProjection("auto", eps=0.5, random_state=0).fit(X)
    fitted = RandomProjection("auto", eps=0.5, random_state=0).fit(_chunked(X, (15, 25)))
    assert fitted.n_components_ == expected.n_components_
    np.testing.assert_allclose(
        fitted.transform(_chunked(X, (15, 25))).compute(), expected.transform(X), rtol=1e-12
    )


def test_integer_dask_input_is_converted_as_arrays_are() -> None:
    X = np.random.RandomState(0).randint(-3, 4, size=(N, D))
    expected = AngularFeatures(9, random_state=0).fit(X).transform(X)
    Z = (
        AngularFeatures(9, random_state=0)
        .fit(_chunked(X, (12, 11)))
        .transform(_chunked(X, (5, 18)))
    )
    assert Z.dtype == expected.dtype == np.float64
    np.testing.assert_array_equal(Z.compute(), expected)


# ---------------------------------------------------------------------- the graph
def _holders(graph: dict, cls: type) -> list:
    """Keys of the graph nodes whose value is a ``cls`` object."""
    return [k for k, v in graph.items() if isinstance(getattr(v, "value", v), cls)]


@pytest.mark.parametrize("cls", MAPS)
def test_hadamard_transformer_enters_the_graph_once(cls: type) -> None:
    X = np.random.RandomState(0).randn(60, 64)
    fitted = cls(4096, coupling="hadamard", random_state=0).fit(X)
    Z = fitted.transform(da.from_array(X, chunks=(10, -1)))
    graph = dict(Z.__dask_graph__())
    (holder,) = _holders(graph, RandomMap)  # one node holds the parameters...
    blocks = [k for k in graph if isinstance(k, tuple) and k[0] == Z.name]
    assert len(blocks) == 6
    assert fitted.n_parameter_bytes_ >= 12 * 1024  # the O(m) signs (and norms)
    for key in blocks:  # ...every block task depends on it, and none carries them
        assert holder in get_dependencies(graph, key)
        assert len(pickle.dumps(graph[key])) < fitted.n_parameter_bytes_ / 5
    np.testing.assert_allclose(Z.compute(), fitted.transform(X), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize("cls", MAPS)
def test_dask_array_chunked_along_features_is_refused(cls: type) -> None:
    X = _data()
    fitted = cls(8, random_state=0).fit(X)
    Xd = da.from_array(X, chunks=(10, 5))
    message = r"X is chunked along its features \(3 column chunks.*X.rechunk\(\{1: -1\}\)"
    with pytest.raises(ValueError, match=message):
        fitted.transform(Xd)
    with pytest.raises(ValueError, match=message):
        cls(8, random_state=0).fit(Xd)


@pytest.mark.parametrize("cls", MAPS)
def test_wrong_number_of_features_gives_the_array_error(cls: type) -> None:
    fitted = cls(8, random_state=0).fit(_data())
    X = np.random.RandomState(1).randn(9, D + 1)
    with pytest.raises(ValueError) as array_error:
        fitted.transform(X)
    with pytest.raises(ValueError) as dask_error:
        fitted.transform(_chunked(X, (4, 5)))  # refused at once, not when computed
    assert str(dask_error.value) == str(array_error.value)
    assert "features" in str(dask_error.value)


def test_complex_dask_input_gives_the_array_error() -> None:
    fitted = RandomFourierFeatures(8, random_state=0).fit(_data())
    X = _data() + 1j
    with pytest.raises(ValueError) as array_error:
        fitted.transform(X)
    with pytest.raises(ValueError) as dask_error:
        fitted.transform(_chunked(X, (10, 13)))
    # scikit-learn's message goes on with the data: the dask path's shows its probe row
    first_line = str(array_error.value).splitlines()[0]
    assert first_line == "Complex data not supported"
    assert str(dask_error.value).splitlines()[0] == first_line


def test_unknown_chunk_sizes_are_refused() -> None:
    X = _chunked(_data(), (10, 13))
    X = X[X[:, 0] > 0]  # a boolean mask: row counts unknown until computed
    fitted = AngularFeatures(8, random_state=0).fit(_data())
    with pytest.raises(ValueError, match=r"unknown chunk sizes; call X.compute_chunk_sizes\(\)"):
        fitted.transform(X)


def test_bad_rows_are_refused_when_their_block_is_computed() -> None:
    """NaN and (for the angular map) zero rows are checked block by block, with the
    array path's errors."""
    X = _data()
    X[20] = np.nan
    Z = RandomFourierFeatures(8, random_state=0).fit(_data()).transform(_chunked(X, (10, 13)))
    with pytest.raises(ValueError, match="Input X contains NaN"):
        Z.compute()
    X = _data()
    X[20] = 0.0
    Z = AngularFeatures(8, random_state=0).fit(_data()).transform(_chunked(X, (10, 13)))
    with pytest.raises(ValueError, match="X contains a zero vector"):
        Z.compute()
