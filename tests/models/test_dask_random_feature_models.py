"""RandomFeatureRidge and RandomFeatureGP on dask arrays: the sufficient statistics summed
over row blocks, one primal solve, and the in-memory results to 1e-8."""

import pickle
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

from dask.core import get_dependencies  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.exceptions import DataConversionWarning  # noqa: E402

from kernelkit.features import RandomFourierFeatures  # noqa: E402
from kernelkit.models import RandomFeatureGP, RandomFeatureRidge  # noqa: E402

COUPLINGS = ("iid", "orthogonal", "hadamard")
N, D = 150, 10
#: row chunkings of N rows: even, uneven (with an empty chunk), one chunk
CHUNKINGS = ((30,) * 5, (7, 60, 0, 41, 42), (N,))
RTOL = 1e-8


@pytest.fixture(autouse=True)
def _synchronous() -> object:
    with dask.config.set(scheduler="synchronous"):
        yield


def _data(n_targets: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.RandomState(0)
    X = rng.uniform(-2, 2, size=(N, D))
    y = np.sin(X[:, 0]) + X[:, 1] + 0.1 * rng.randn(N)
    if n_targets:
        y = np.column_stack([y + k for k in range(n_targets)])
    return X, y


def _chunked(A: np.ndarray, rows: tuple[int, ...]) -> object:
    return da.from_array(A, chunks=(rows, *A.shape[1:]))


def _close(actual: object, expected: object) -> None:
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=RTOL * np.max(np.abs(expected)))


@pytest.mark.parametrize("coupling", COUPLINGS)
def test_ridge_on_dask_equals_ridge_in_memory(coupling: str) -> None:
    X, y = _data()
    params = {"n_components": 40, "alpha": 0.1, "coupling": coupling, "random_state": 0}
    expected = RandomFeatureRidge(**params).fit(X, y)
    for rows in CHUNKINGS:
        model = RandomFeatureRidge(**params).fit(_chunked(X, rows), _chunked(y, rows))
        assert model.solver_ == "primal" and model.features_fit_ is None
        assert type(model.coef_) is np.ndarray and type(model.L_) is np.ndarray
        _close(model.coef_, expected.coef_)
        _close(model.L_, expected.L_)
        pred = model.predict(_chunked(X, rows))
        assert isinstance(pred, da.Array) and pred.chunks == (rows,)
        _close(pred.compute(), expected.predict(X))
        _close(model.predict(X), expected.predict(X))  # in-memory input after a dask fit


def test_ridge_on_dask_with_several_targets_and_an_in_memory_y() -> None:
    X, Y = _data(n_targets=3)
    expected = RandomFeatureRidge(n_components=30, random_state=0).fit(X, Y)
    model = RandomFeatureRidge(n_components=30, random_state=0).fit(_chunked(X, (50, 100)), Y)
    _close(model.coef_, expected.coef_)
    pred = model.predict(_chunked(X, (50, 100)))
    assert pred.shape == (N, 3) and pred.chunks == ((50, 100), (3,))
    _close(pred.compute(), expected.predict(X))


def test_dask_fit_always_solves_the_primal() -> None:
    """More features than samples: in memory the dual, on dask the p x p primal system
    (eq. 5.5), the same weights."""
    X, y = _data()
    X, y = X[:30], y[:30]
    expected = RandomFeatureRidge(n_components=60, alpha=0.5, random_state=0).fit(X, y)
    assert expected.solver_ == "dual"
    model = RandomFeatureRidge(n_components=60, alpha=0.5, random_state=0)
    model.fit(_chunked(X, (10, 20)), _chunked(y, (10, 20)))
    assert model.solver_ == "primal" and model.L_.shape == (60, 60)
    _close(model.coef_, expected.coef_)


@pytest.mark.parametrize("normalize_y", [False, True])
@pytest.mark.parametrize("coupling", COUPLINGS)
def test_gp_on_dask_equals_gp_in_memory(coupling: str, normalize_y: bool) -> None:
    X, y = _data()
    y = 5.0 * y + 3.0
    params = {"n_components": 40, "noise": 0.1, "coupling": coupling, "random_state": 0}
    expected = RandomFeatureGP(normalize_y=normalize_y, **params).fit(X, y)
    mean, std = expected.predict(X, return_std=True, include_noise=True)
    for rows in CHUNKINGS:
        model = RandomFeatureGP(normalize_y=normalize_y, **params)
        model.fit(_chunked(X, rows), _chunked(y, rows))
        np.testing.assert_allclose(
            model.log_marginal_likelihood_value_, expected.log_marginal_likelihood_value_, RTOL
        )
        np.testing.assert_allclose(model.y_train_mean_, expected.y_train_mean_, RTOL)
        np.testing.assert_allclose(model.y_train_std_, expected.y_train_std_, RTOL)
        _close(model.coef_, expected.coef_)
        mean_d, std_d = model.predict(_chunked(X, rows), return_std=True, include_noise=True)
        assert isinstance(mean_d, da.Array) and isinstance(std_d, da.Array)
        assert mean_d.chunks == std_d.chunks == (rows,)
        _close(mean_d.compute(), mean)
        _close(std_d.compute(), std)
        _close(model.predict(_chunked(X, rows)).compute(), mean)


def test_dask_fitted_gp_pickles_clones_and_predicts_arrays() -> None:
    X, y = _data()
    model = RandomFeatureGP(n_components=20, random_state=0).fit(_chunked(X, (75, 75)), y)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    assert clone(model).get_params() == model.get_params()
    mean, std = model.predict(X[:5], return_std=True)
    assert type(mean) is np.ndarray and type(std) is np.ndarray


def test_predict_graph_holds_the_model_once() -> None:
    X, y = _data()
    model = RandomFeatureGP(n_components=20, random_state=0).fit(X, y)
    mean, _ = model.predict(_chunked(X, (30,) * 5), return_std=True)
    graph = dict(mean.__dask_graph__())
    holders = [k for k, v in graph.items() if isinstance(getattr(v, "value", v), RandomFeatureGP)]
    assert len(holders) == 1
    blocks = [k for k in graph if holders[0] in get_dependencies(graph, k)]
    assert len(blocks) == 5  # one task per row block


def test_feature_map_object_on_dask() -> None:
    """A feature map given as an object is fitted on the dask array and applied to its
    blocks."""
    X, y = _data()
    fm = RandomFourierFeatures(30, coupling="orthogonal", random_state=1)
    expected = RandomFeatureRidge(fm, alpha=0.1).fit(X, y)
    model = RandomFeatureRidge(fm, alpha=0.1).fit(_chunked(X, (50, 100)), _chunked(y, (50, 100)))
    _close(model.coef_, expected.coef_)


# ---------------------------------------------------------------------- bad input
def test_mismatched_row_chunks_are_refused() -> None:
    X, y = _data()
    message = (
        r"the row chunks of X \[50, 100\] and y \[100, 50\] differ; rechunk one like the "
        r"other: y = y.rechunk\(\{0: X.chunks\[0\]\}\)"
    )
    for cls in (RandomFeatureRidge, RandomFeatureGP):
        with pytest.raises(ValueError, match=message):
            cls(n_components=10).fit(_chunked(X, (50, 100)), _chunked(y, (100, 50)))


def test_dask_x_chunked_along_features_is_refused() -> None:
    X, y = _data()
    Xd = da.from_array(X, chunks=(50, 5))
    with pytest.raises(ValueError, match=r"X is chunked along its features \(2 column chunks"):
        RandomFeatureRidge(n_components=10).fit(Xd, _chunked(y, (50, 50, 50)))
    model = RandomFeatureGP(n_components=10).fit(X, y)
    with pytest.raises(ValueError, match="X is chunked along its features"):
        model.predict(Xd)


def test_rows_of_x_and_y_must_agree() -> None:
    X, y = _data()
    with pytest.raises(ValueError, match="X has 150 rows but y has 100"):
        RandomFeatureRidge(n_components=10).fit(_chunked(X, (50, 100)), _chunked(y[:100], (100,)))
    with pytest.raises(ValueError, match="y has 100 rows, but X has 150 samples"):
        RandomFeatureRidge(n_components=10).fit(_chunked(X, (50, 100)), y[:100])


def test_wrong_number_of_features_at_predict_gives_the_array_error() -> None:
    X, y = _data()
    for model in (
        RandomFeatureRidge(n_components=10).fit(X, y),
        RandomFeatureGP(n_components=10).fit(X, y),
    ):
        Xt = np.ones((8, D + 2))
        with pytest.raises(ValueError) as array_error:
            model.predict(Xt)
        with pytest.raises(ValueError) as dask_error:
            model.predict(_chunked(Xt, (4, 4)))
        assert str(dask_error.value) == str(array_error.value)


def test_gp_column_vector_y_is_raveled_with_a_warning() -> None:
    X, y = _data()
    expected = RandomFeatureGP(n_components=10, random_state=0).fit(X, y)
    with pytest.warns(DataConversionWarning, match="A column-vector y was passed"):
        model = RandomFeatureGP(n_components=10, random_state=0).fit(
            _chunked(X, (50, 100)), _chunked(y[:, None], (50, 100))
        )
    _close(model.coef_, expected.coef_)
    with pytest.raises(ValueError, match=r"y must have shape \(n_samples,\), got shape"):
        RandomFeatureGP(n_components=10).fit(
            _chunked(X, (50, 100)), _chunked(np.column_stack([y, y]), (50, 100))
        )


def test_gp_return_cov_on_dask_is_refused() -> None:
    X, y = _data()
    model = RandomFeatureGP(n_components=10).fit(X, y)
    with pytest.raises(ValueError, match="return_cov=True is not available for a dask array"):
        model.predict(_chunked(X, (50, 100)), return_cov=True)


def test_non_finite_blocks_are_refused_when_reduced() -> None:
    X, y = _data()
    X[120, 3] = np.inf
    with pytest.raises(ValueError, match="X contains NaN or infinity"):
        RandomFeatureRidge(n_components=10).fit(_chunked(X, (50, 100)), _chunked(y, (50, 100)))


# ---------------------------------------------------------------------- a real cluster
def test_ridge_fit_on_a_two_worker_local_cluster() -> None:
    """DISTRIBUTED (about 5-10 s): the ridge fit on two worker processes equals the
    in-memory fit."""
    distributed = pytest.importorskip("dask.distributed")
    X, y = _data()
    expected = RandomFeatureRidge(n_components=30, coupling="hadamard", random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the cluster's own start-up chatter
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        )
    with cluster, distributed.Client(cluster):
        model = RandomFeatureRidge(n_components=30, coupling="hadamard", random_state=0)
        model.fit(_chunked(X, (30,) * 5), _chunked(y, (30,) * 5))
        pred = model.predict(_chunked(X, (30,) * 5)).compute()
    _close(model.coef_, expected.coef_)
    _close(pred, expected.predict(X))


def test_random_features_docstring_examples() -> None:
    """The Examples of kernelkit.models.random_features (the dask ones included) run."""
    import doctest

    import kernelkit.models.random_features as module

    with dask.config.set(scheduler="threads"):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
