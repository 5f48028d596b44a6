"""RandomFourierFeatures and AngularFeatures: unbiasedness (seeded Monte Carlo with the
estimator's own standard error), frequency laws, the transformer contract, bad input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline

from kernelkit import _memory
from kernelkit.features import AngularFeatures, RandomFourierFeatures
from kernelkit.kernels import RBF, Angular, Laplace, Matern, RationalQuadratic, median_heuristic

KERNELS = [("rbf", None), ("matern", 1.5), ("matern", 2.5), ("laplace", None)]
D = 6
X4 = np.random.default_rng(0).standard_normal((4, D)) * 0.6


def _kernel(name: str, nu: float | None, lengthscale: float = 1.0, variance: float = 1.0):
    if name == "rbf":
        return RBF(lengthscale=lengthscale, variance=variance)
    if name == "laplace":
        return Laplace(lengthscale=lengthscale, variance=variance)
    return Matern(lengthscale=lengthscale, variance=variance, nu=nu)


def _rff(m: int, features: str = "cos_sin", **kw) -> RandomFourierFeatures:
    """Random Fourier features with ``m`` frequencies (output width 2m for cos/sin)."""
    width = 2 * m if features == "cos_sin" else m
    return RandomFourierFeatures(width, features=features, **kw)


def _group_estimates(Z: np.ndarray, m: int, features: str, group: int) -> np.ndarray:
    """Per-group kernel estimates for every pair of rows: shape (n_groups, n_pairs).

    Stacked blocks (of ``group`` frequencies) are independent, so their estimates are
    i.i.d. replicates of the estimator with ``group`` frequencies.
    """
    i, j = np.triu_indices(Z.shape[0], k=1)
    if features == "cos_sin":
        terms = Z[i, :m] * Z[j, :m] + Z[i, m:] * Z[j, m:]
    else:
        terms = Z[i] * Z[j]
    terms = terms * m  # each term estimates k(x, y) (variance included)
    return terms.T.reshape(m // group, group, -1).mean(axis=1)


def _assert_unbiased(
    est: np.ndarray, truth: np.ndarray, slack: float = 0.0, k: float = 4.5
) -> None:
    se = est.std(axis=0, ddof=1) / np.sqrt(est.shape[0])
    err = np.abs(est.mean(axis=0) - truth)
    assert np.all(err < k * se + slack), (est.mean(axis=0), truth, se)


# ---------------------------------------------------------------------------- unbiasedness
@pytest.mark.parametrize(("kernel", "nu"), KERNELS)
@pytest.mark.parametrize("coupling", ["iid", "orthogonal"])
@pytest.mark.parametrize("features", ["cos_sin", "cos_bias"])
def test_rff_unbiased(kernel, nu, coupling, features) -> None:
    ls, var = 1.3, 2.0
    m = D * 3000
    k = _kernel(kernel, nu, ls, var)
    rff = _rff(m, features, kernel=k, coupling=coupling, random_state=1)
    Z = rff.fit_transform(X4)
    assert rff.n_frequencies_ == m
    est = _group_estimates(Z, m, features, group=D)
    i, j = np.triu_indices(4, k=1)
    truth = k(X4)[i, j]
    _assert_unbiased(est, truth)
    # the diagonal is exact for cos/sin features
    if features == "cos_sin":
        np.testing.assert_allclose(np.sum(Z**2, axis=1), var)


@pytest.mark.parametrize(("kernel", "nu"), [("rbf", None), ("matern", 1.5), ("laplace", None)])
def test_rff_hadamard_nearly_unbiased(kernel, nu) -> None:
    # SORF is not exactly unbiased (Hadamard directions are not uniform on the sphere);
    # at d = 32 its bias is below 0.01 (documented), far below the IID error at m = d
    d = 32
    X = np.random.default_rng(1).standard_normal((4, d)) / np.sqrt(d) * 1.5
    m = d * 2000
    Z = _rff(m, kernel=_kernel(kernel, nu), coupling="hadamard", random_state=2).fit_transform(X)
    est = _group_estimates(Z, m, "cos_sin", group=d)
    i, j = np.triu_indices(4, k=1)
    _assert_unbiased(est, _kernel(kernel, nu)(X)[i, j], slack=0.01)


def test_rff_orthogonal_beats_iid_for_the_gaussian_kernel() -> None:
    # Yu et al. (2016) / Rowland (2018) Thm 7.9: lower MSE in high dimensions
    d = 32
    X = np.random.default_rng(2).standard_normal((3, d)) / np.sqrt(d)
    truth = RBF()(X)[np.triu_indices(3, k=1)]
    mse = {}
    for coupling in ("iid", "orthogonal"):
        Z = _rff(d * 1500, coupling=coupling, random_state=3).fit_transform(X)
        est = _group_estimates(Z, d * 1500, "cos_sin", group=d)
        mse[coupling] = ((est - truth) ** 2).mean(axis=0)
    assert np.all(mse["orthogonal"] < 0.8 * mse["iid"]), mse


@pytest.mark.parametrize("coupling", ["iid", "orthogonal"])
def test_angular_features_unbiased(coupling) -> None:
    m = D * 3000
    Z = AngularFeatures(m, coupling=coupling, random_state=4).fit_transform(X4)
    est = _group_estimates(Z, m, "cos_bias", group=D)
    truth = Angular()(X4)[np.triu_indices(4, k=1)]
    _assert_unbiased(est, truth)
    np.testing.assert_allclose(np.abs(Z), 1 / np.sqrt(m))


def test_angular_features_hadamard_nearly_unbiased() -> None:
    d = 32
    X = np.random.default_rng(5).standard_normal((4, d))
    m = d * 2000
    Z = AngularFeatures(m, coupling="hadamard", random_state=6).fit_transform(X)
    est = _group_estimates(Z, m, "cos_bias", group=d)
    _assert_unbiased(est, Angular()(X)[np.triu_indices(4, k=1)], slack=0.01)


def test_angular_mse_iid_matches_lemma_7_4_and_orthogonal_is_lower() -> None:
    d, reps = 8, 4000
    X = np.random.default_rng(7).standard_normal((2, d))
    cosang = X[0] @ X[1] / np.linalg.norm(X[0]) / np.linalg.norm(X[1])
    theta = np.arccos(cosang)
    truth = 1 - 2 * theta / np.pi
    mse = {}
    for coupling in ("iid", "orthogonal"):
        Z = AngularFeatures(d * reps, coupling=coupling, random_state=8).fit_transform(X)
        est = _group_estimates(Z, d * reps, "cos_bias", group=d)[:, 0]
        mse[coupling] = np.mean((est - truth) ** 2)
    lemma = 4 * theta * (np.pi - theta) / (d * np.pi**2)  # Lemma 7.4, m = d
    assert abs(mse["iid"] / lemma - 1) < 0.1
    assert mse["orthogonal"] < 0.9 * mse["iid"]  # Thm 7.5


# ---------------------------------------------------------------------------- frequency laws
@pytest.mark.parametrize(("kernel", "nu"), KERNELS)
@pytest.mark.parametrize("coupling", ["iid", "orthogonal", "hadamard"])
def test_frequency_norms_follow_rho_k(kernel, nu, coupling) -> None:
    # Gaussian: |w|^2 l^2 ~ chi2_d; Matérn-nu: |w|^2 l^2 / d ~ F(d, 2 nu) (multivariate t,
    # Table 7.1 with exponent -nu - d/2); Laplace: nu = 1/2
    d, ls = 16, 0.7
    rff = _rff(4000, kernel=_kernel(kernel, nu, ls), coupling=coupling, random_state=9)
    rff.fit(np.zeros((2, d)))
    sq = np.sum((rff.get_frequencies() * ls) ** 2, axis=1)
    if kernel == "rbf":
        law = stats.chi2(d)
    else:
        law = stats.f(d, 2 * (0.5 if kernel == "laplace" else nu))
        sq = sq / d
    assert stats.kstest(sq, law.cdf).pvalue > 1e-3
    # a wrong law is rejected: one more dimension (Gaussian), one more dof (Matérn)
    wrong = stats.chi2(d + 1) if kernel == "rbf" else stats.f(d, law.args[1] + 2)
    assert stats.kstest(sq, wrong.cdf).pvalue < 1e-3


@pytest.mark.parametrize("coupling", ["iid", "orthogonal", "hadamard"])
@pytest.mark.parametrize("features", ["cos_sin", "cos_bias"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rff_transform_matches_explicit_formula(coupling, features, dtype) -> None:
    X = np.random.default_rng(10).standard_normal((50, 20)).astype(dtype)
    rff = _rff(
        70, features, kernel=RBF(lengthscale=0.8, variance=1.7), coupling=coupling, random_state=0
    ).fit(X)
    Z = rff.transform(X)
    assert Z.dtype == dtype
    P = X.astype(np.float64) @ rff.get_frequencies().T
    if features == "cos_sin":
        ref = np.sqrt(1.7 / 70) * np.hstack([np.cos(P), np.sin(P)])
    else:
        ref = np.sqrt(2 * 1.7 / 70) * np.cos(P + rff.offsets_)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(Z, ref, atol=tol)
    assert rff.n_components_ == Z.shape[1] == (140 if features == "cos_sin" else 70)
    assert rff.n_frequencies_ == rff.get_frequencies().shape[0] == 70


@pytest.mark.parametrize("coupling", ["iid", "orthogonal", "hadamard"])
def test_ard_lengthscale_equals_scaling_the_inputs(coupling) -> None:
    X = np.random.default_rng(11).standard_normal((10, 20))
    ls = np.linspace(0.5, 2.0, 20)
    for k in (RBF(ls), Matern(ls, nu=1.5), Laplace(ls)):
        a = RandomFourierFeatures(128, kernel=k, coupling=coupling, random_state=3).fit(X)
        k1 = clone(k).set_params(lengthscale=1.0)
        b = RandomFourierFeatures(128, kernel=k1, coupling=coupling, random_state=3).fit(X / ls)
        np.testing.assert_allclose(a.transform(X), b.transform(X / ls), atol=1e-12)
        np.testing.assert_array_equal(a.lengthscale_, ls)


@pytest.mark.parametrize("coupling", ["iid", "orthogonal", "hadamard"])
def test_ard_features_estimate_the_ard_kernel(coupling) -> None:
    # Monte Carlo against the kernel object's own Gram matrix, one lengthscale per feature
    d = 16
    X = np.random.default_rng(17).standard_normal((4, d)) * 0.3
    k = Matern(lengthscale=np.linspace(0.5, 3.0, d), variance=1.5, nu=2.5)
    m = d * 2000
    Z = _rff(m, kernel=k, coupling=coupling, random_state=5).fit_transform(X)
    est = _group_estimates(Z, m, "cos_sin", group=d)
    i, j = np.triu_indices(4, k=1)
    _assert_unbiased(est, k(X)[i, j], slack=0.01 if coupling == "hadamard" else 0.0)
    np.testing.assert_allclose(np.sum(Z**2, axis=1), 1.5)


@pytest.mark.parametrize("coupling", ["iid", "orthogonal"])
def test_median_lengthscale_features_are_scale_invariant_on_huge_data(coupling) -> None:
    # the median heuristic's kernel on X * 1e300 gives the features of X (were all NaN)
    X = np.random.default_rng(12).standard_normal((30, 5))

    def features(X: np.ndarray) -> np.ndarray:
        k = RBF(median_heuristic(X))
        return RandomFourierFeatures(10, kernel=k, coupling=coupling, random_state=0).fit_transform(
            X
        )

    Zh = features(X * 1e300)
    assert np.all(np.isfinite(Zh))
    np.testing.assert_allclose(Zh, features(X), atol=1e-12)


# ---------------------------------------------------------------------------- storage
def test_hadamard_coupling_stores_o_m_parameters() -> None:
    X = np.zeros((2, 256))
    rff = RandomFourierFeatures(2048, coupling="hadamard", random_state=0).fit(X)
    assert rff.frequencies_ is None
    # 4 stacked blocks x 3 diagonals x 256 int8 signs + 1024 float64 norms
    assert rff.n_parameter_bytes_ == 4 * 3 * 256 + 8 * 1024
    dense = RandomFourierFeatures(2048, coupling="orthogonal", random_state=0).fit(X)
    assert dense.n_parameter_bytes_ == 8 * 1024 * 256
    ang = AngularFeatures(1024, coupling="hadamard", random_state=0).fit(X + 1.0)
    assert ang.n_parameter_bytes_ == 4 * 3 * 256


# ---------------------------------------------------------------------------- contract
@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: RandomFourierFeatures(40, coupling="hadamard", **kw),
        lambda **kw: RandomFourierFeatures(40, kernel="matern", coupling="orthogonal", **kw),
        lambda **kw: AngularFeatures(40, coupling="orthogonal", **kw),
    ],
    ids=["rff-hadamard", "rff-orthogonal", "angular"],
)
def test_transformer_contract(make) -> None:
    X = np.random.default_rng(13).standard_normal((15, 20))
    est = make(random_state=0)
    assert est.fit(X) is est
    Z = est.transform(X)
    assert Z.shape[0] == 15 and est.n_features_in_ == 20
    np.testing.assert_array_equal(make(random_state=0).fit_transform(X), Z)
    assert not np.allclose(make(random_state=1).fit(X).transform(X), Z)
    # transform uses the fitted state, not the (changed) constructor arguments
    est.set_params(n_components=5, random_state=7)
    np.testing.assert_array_equal(est.transform(X), Z)
    # cloning gives an unfitted copy with the same parameters
    c = clone(est)
    assert c.get_params() == est.get_params()
    with pytest.raises(NotFittedError):
        c.transform(X)
    with pytest.raises(ValueError, match=r"X has 3 features, but .* is expecting 20 features"):
        est.transform(X[:, :3])
    # n_jobs does not change the numbers
    np.testing.assert_allclose(make(random_state=0, n_jobs=2).fit(X).transform(X), Z, atol=1e-15)


def test_rff_in_a_pipeline_and_transform_of_new_points() -> None:
    rng = np.random.default_rng(14)
    X = rng.uniform(-2, 2, (200, 1))
    y = np.sin(2 * X[:, 0])
    model = make_pipeline(
        RandomFourierFeatures(600, kernel=RBF(0.5), random_state=0), Ridge(alpha=1e-3)
    ).fit(X, y)
    Xt = np.linspace(-1.5, 1.5, 7)[:, None]
    assert np.max(np.abs(model.predict(Xt) - np.sin(2 * Xt[:, 0]))) < 0.05


def test_refit_changes_input_dimension() -> None:
    rff = RandomFourierFeatures(10, random_state=0)
    rff.fit(np.ones((3, 4)))
    rff.fit(np.ones((3, 7)))
    assert rff.transform(np.ones((2, 7))).shape == (2, 10)


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("cls", [RandomFourierFeatures, AngularFeatures])
def test_bad_n_components_coupling_blocks(cls) -> None:
    X = np.ones((3, 4)) + np.arange(4)
    for bad in (0, -3):
        with pytest.raises(ValueError, match="n_components must be >= 1"):
            cls(bad).fit(X)
    with pytest.raises(TypeError, match="n_components must be an integer"):
        cls(2.5).fit(X)
    with pytest.raises(ValueError, match="coupling must be one of"):
        cls(4, coupling="random").fit(X)
    with pytest.raises(ValueError, match="n_blocks must be >= 1"):
        cls(4, coupling="hadamard", n_blocks=0).fit(X)
    with pytest.raises(ValueError, match="n_jobs must be"):
        cls(4, n_jobs=0).fit(X)


@pytest.mark.parametrize("cls", [RandomFourierFeatures, AngularFeatures])
def test_bad_inputs_X(cls) -> None:
    # scikit-learn's validate_data and its messages
    X = np.random.default_rng(15).standard_normal((5, 3))
    with pytest.raises(ValueError, match="Complex data not supported"):
        cls(4).fit(X + 1j)
    Xn = X.copy()
    Xn[1, 1] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        cls(4).fit(Xn)
    with pytest.raises(ValueError, match=r"0 feature\(s\) \(shape=\(3, 0\)\)"):
        cls(4).fit(np.ones((3, 0)))
    with pytest.raises(ValueError, match=r"0 sample\(s\) \(shape=\(0, 3\)\)"):
        cls(4).fit(np.ones((0, 3)))
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
        cls(4).fit(np.ones(3))
    with pytest.raises(TypeError, match="Sparse data was passed for X, but dense data is required"):
        cls(4).fit(sp.csr_matrix(X))
    with pytest.raises(NotFittedError):
        cls(4).transform(X)
    est = cls(4).fit(X)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        est.transform(Xn)
    with pytest.raises(ValueError, match="Complex data not supported"):
        est.transform(X + 1j)
    with pytest.raises(TypeError, match="Sparse data was passed for X"):
        est.transform(sp.csr_matrix(X))
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
        est.transform(X[0])


def test_rff_bad_kernel_and_features() -> None:
    X = np.ones((3, 2)) + np.arange(2)
    accepted = "'rbf', 'gaussian', 'laplace', 'matern12', 'matern32', 'matern52', 'matern'"
    with pytest.raises(ValueError, match=f"kernel must be a Kernel object or one of {accepted}"):
        RandomFourierFeatures(4, kernel="polynomial").fit(X)
    with pytest.raises(ValueError, match="; got 'angular'"):  # a kernel, but no Fourier form
        RandomFourierFeatures(4, kernel="angular").fit(X)
    for bad in (Angular(), RBF() + Matern(), RBF() * 2.0, RationalQuadratic()):
        with pytest.raises(TypeError, match=r"kernel must be a RBF, Matern kernel object"):
            RandomFourierFeatures(4, kernel=bad).fit(X)
    with pytest.raises(TypeError, match="kernel must be a kernelkit Kernel object"):
        RandomFourierFeatures(4, kernel=3.0).fit(X)
    with pytest.raises(ValueError, match=r"lengthscale must be a scalar or have one entry per "):
        RandomFourierFeatures(4, kernel=RBF([1.0, 2.0, 3.0])).fit(X)
    with pytest.raises(ValueError, match="features must be one of 'cos_sin', 'cos_bias'"):
        RandomFourierFeatures(4, features="sin").fit(X)


def test_rff_n_components_is_the_output_width() -> None:
    # as scikit-learn's RBFSampler: n_components columns; an odd cos/sin width ends with
    # one random-phase column (tests/features/test_fourier_width.py)
    X = np.random.default_rng(18).standard_normal((5, 3))
    cases = (
        (8, "cos_sin", 4, None),
        (7, "cos_sin", 4, 1),
        (1, "cos_sin", 1, 1),
        (2, "cos_sin", 1, None),
        (7, "cos_bias", 7, 7),
    )
    for width, features, m, n_phases in cases:
        rff = RandomFourierFeatures(width, features=features, random_state=0).fit(X)
        assert rff.transform(X).shape == (5, width) and rff.n_components_ == width
        assert rff.n_frequencies_ == m == rff.frequencies_.shape[0]
        assert len(rff.get_feature_names_out()) == width
        if n_phases is None:
            assert rff.offsets_ is None
        else:
            assert rff.offsets_.shape == (n_phases,)
    # the frequencies do not depend on the form of the features
    a = RandomFourierFeatures(8, random_state=1).fit(X).get_frequencies()
    b = RandomFourierFeatures(4, features="cos_bias", random_state=1).fit(X).get_frequencies()
    np.testing.assert_array_equal(a, b)


def test_rff_takes_its_hyperparameters_from_the_kernel() -> None:
    X = np.random.default_rng(19).standard_normal((6, 4))
    k = Matern(lengthscale=0.7, variance=2.5, nu=1.5)
    rff = RandomFourierFeatures(10, kernel=k, random_state=0).fit(X)
    assert rff.kernel is k and rff.kernel_ == k and rff.kernel_ is not k  # a copy as fitted
    assert rff.lengthscale_ == 0.7 and rff.variance_ == 2.5
    np.testing.assert_allclose(np.sum(rff.transform(X) ** 2, axis=1), 2.5)
    # names are built with unit lengthscale and variance by kernels.resolve_kernel
    pairs = [("rbf", RBF()), ("matern32", Matern(nu=1.5)), ("laplace", Laplace())]
    pairs += [("matern", Matern(nu=2.5)), ("Matern-5/2", Matern(nu=2.5))]
    for name, obj in pairs:
        a = RandomFourierFeatures(10, kernel=name, random_state=0).fit_transform(X)
        b = RandomFourierFeatures(10, kernel=obj, random_state=0).fit_transform(X)
        np.testing.assert_array_equal(a, b)
    # the Laplace kernel is the Matérn kernel with nu = 1/2; nu = inf is the RBF kernel
    for x, y in ((Laplace(0.7), Matern(0.7, nu=0.5)), (Matern(nu=np.inf), RBF())):
        a = RandomFourierFeatures(10, kernel=x, random_state=0).fit_transform(X)
        np.testing.assert_array_equal(
            a, RandomFourierFeatures(10, kernel=y, random_state=0).fit_transform(X)
        )
    # a changed kernel takes effect at the next fit (fit reads it, transform uses the fit)
    Z = rff.transform(X)
    k.set_params(variance=1.0)
    np.testing.assert_array_equal(rff.transform(X), Z)
    assert rff.kernel_.variance == 2.5
    np.testing.assert_allclose(np.sum(rff.fit(X).transform(X) ** 2, axis=1), 1.0)


@pytest.mark.filterwarnings("ignore:coupling='hadamard' with:UserWarning")
@pytest.mark.parametrize("coupling", ["iid", "hadamard"])
def test_angular_features_reject_zero_vectors_as_the_angular_kernel_does(coupling) -> None:
    # one rule for the kernel and its features: the angle to 0 is undefined
    X = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    message = "X contains a zero vector; the angular kernel needs x != 0"
    with pytest.raises(ValueError, match=message):
        Angular()(X)
    with pytest.raises(ValueError, match=message):
        AngularFeatures(4, coupling=coupling, random_state=0).fit(X)
    est = AngularFeatures(4, coupling=coupling, random_state=0).fit(X[:1])
    with pytest.raises(ValueError, match=message):
        est.transform(X)
    with pytest.raises(ValueError, match=message):
        est.transform(X.astype(np.float32)[::-1])
    # a tiny but non-zero vector has a direction and is accepted
    Z = est.transform(np.array([[1e-300, 0.0, 0.0]]))
    assert np.all(np.abs(Z) == 0.5)


@pytest.mark.parametrize("cls", [RandomFourierFeatures, AngularFeatures])
def test_sizes_beyond_the_machine_are_refused_up_front(cls, monkeypatch) -> None:
    X = np.random.default_rng(16).standard_normal((3, 32))
    name = cls.__name__
    with pytest.raises(
        ValueError,
        match=rf"{name}\(n_components=10000000000000, coupling='iid'\) on 32 features would "
        r"need about .* PiB of memory, more than this machine has .*coupling='hadamard'",
    ):
        cls(10**13).fit(X)
    with pytest.raises(ValueError, match=r"coupling='hadamard'\) on 32 features would need"):
        cls(10**15, coupling="hadamard").fit(X)
    monkeypatch.setattr(_memory, "memory_limit", lambda: 2**20)  # a 1 MiB machine
    est = cls(1000, random_state=0).fit(X)  # 1000 columns (500 cos/sin pairs for RFF)
    width = 1000
    with pytest.raises(
        ValueError,
        match=rf"{name}.transform: an output of shape \(200, {width}\) \(float64\) would "
        r"need about .* MiB of memory, more than this machine has \(1 MiB\); transform fewer",
    ):
        est.transform(np.vstack([X] * 67)[:200])
    assert est.transform(X).shape == (3, width)


def test_hadamard_coupling_warns_in_few_dimensions() -> None:
    with pytest.warns(UserWarning, match="biased"):
        RandomFourierFeatures(4, coupling="hadamard").fit(np.ones((2, 5)))


# ---------------------------------------------------------------------------- doctests
@pytest.mark.parametrize(
    "module",
    ["walsh_hadamard", "base", "matrices", "fourier", "angular", "projection"],
)
def test_docstring_examples(module, run_doctests) -> None:
    import importlib

    mod = importlib.import_module(f"kernelkit.features.{module}")
    result = run_doctests(mod)  # without Dask, the docstrings that need it are left out
    assert result.attempted > 0
    assert result.failed == 0
