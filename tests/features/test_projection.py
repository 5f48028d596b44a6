"""RandomProjection: unbiased inner products for every coupling, JL distortion, contract."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from sklearn.exceptions import NotFittedError

from kernelkit import _memory
from kernelkit.features import RandomProjection, jl_failure_bound, jl_min_dim
from kernelkit.features.matrices import FJLT, PROJECTION_COUPLINGS, HadamardRademacher

COUPLING_OPTIONS = [
    ("iid", {}),
    ("orthogonal", {}),
    ("hadamard", {"subsampling": "without_replacement"}),
    ("hadamard", {"subsampling": "with_replacement"}),
    ("hadamard", {"subsampling": "first"}),
    ("hadamard", {"n_blocks": 1}),
    ("hadamard", {"n_blocks": 2}),
    ("hybrid", {}),
    ("sparse", {}),
    ("sparse", {"density": "achlioptas"}),
    ("fjlt", {}),
]
IDS = [k + "".join(f"-{v}" for v in o.values()) for k, o in COUPLING_OPTIONS]

X3 = np.random.default_rng(0).standard_normal((3, 13))  # padded to 16 for Hadamard couplings
X3[1] += 0.8 * X3[0]  # a correlated pair


def _replicates(coupling: str, options: dict, m: int, n_rep: int) -> np.ndarray:
    """Estimates of X3 @ X3.T (upper triangle, diagonal included) from n_rep seeds."""
    iu = np.triu_indices(3)
    out = np.empty((n_rep, iu[0].size))
    for seed in range(n_rep):
        proj = RandomProjection(m, coupling=coupling, random_state=seed, **options).fit(X3)
        out[seed] = proj.estimate_inner(X3)[iu]
    return out


@pytest.mark.parametrize(("coupling", "options"), COUPLING_OPTIONS, ids=IDS)
def test_inner_product_estimate_unbiased(coupling, options) -> None:
    est = _replicates(coupling, options, m=4, n_rep=1000)
    truth = (X3 @ X3.T)[np.triu_indices(3)]
    se = est.std(axis=0, ddof=1) / np.sqrt(est.shape[0])
    assert np.all(np.abs(est.mean(axis=0) - truth) < 4.5 * se + 1e-12), (est.mean(0), truth, se)


def test_hybrid_halves_the_hadamard_mse() -> None:
    # Rowland (2018) Thm 6.9 (a check of the complex last block and of eq. 6.11)
    truth = (X3 @ X3.T)[np.triu_indices(3)]
    mse = {
        coupling: ((_replicates(coupling, {}, m=4, n_rep=2500) - truth) ** 2).mean(axis=0)
        for coupling in ("hadamard", "hybrid")
    }
    ratio = mse["hybrid"] / mse["hadamard"]
    assert np.all((ratio > 0.38) & (ratio < 0.65)), ratio


def test_full_hadamard_block_is_exact() -> None:
    # m = D: S D_k ... S D_1 is orthogonal, so sqrt(D/m) times it preserves inner products
    X = np.random.default_rng(1).standard_normal((5, 32))
    for coupling in ("hadamard", "hybrid"):
        G = RandomProjection(32, coupling=coupling, random_state=0).fit(X).estimate_inner(X)
        np.testing.assert_allclose(G, X @ X.T, atol=1e-10)


def _failures(coupling: str, n: int, d: int, eps: float, seeds: range) -> int:
    X = np.random.default_rng(2).standard_normal((n, d))
    iu = np.triu_indices(n, k=1)
    sq = lambda G: (np.diag(G)[:, None] + np.diag(G)[None, :] - 2 * G)[iu]  # noqa: E731
    true = sq(X @ X.T)
    m = jl_min_dim(n, eps)
    bad = 0
    for seed in seeds:
        est = sq(RandomProjection(m, coupling=coupling, random_state=seed).fit(X).estimate_inner(X))
        bad += int(np.any(np.abs(est / true - 1) > eps))
    return bad


@pytest.mark.parametrize("coupling", PROJECTION_COUPLINGS)
def test_jl_distortion_within_eps_with_the_stated_probability(coupling) -> None:
    n, d, eps, n_seeds = 40, 200, 0.5, 30
    p = jl_failure_bound(n, jl_min_dim(n, eps), eps)  # exact chi2 tail x pairs, Gaussian JLT
    assert 0 < p < 0.5
    # the number of failed draws is consistent with failure probability <= p
    allowed = stats.binom.ppf(0.999, n_seeds, p)
    assert _failures(coupling, n, d, eps, range(n_seeds)) <= allowed


def test_jl_min_dim_and_bound() -> None:
    assert jl_min_dim(1000, 0.1) == 5527  # 8 log(1000) / 0.01 = 5526.2
    assert jl_min_dim(1, 0.5) == 1
    m = jl_min_dim(500, 0.3)
    assert m > 8 * np.log(500) / 0.09 >= m - 1
    # more dimensions, smaller failure bound; bound is a probability
    assert jl_failure_bound(100, 400, 0.3) < jl_failure_bound(100, 200, 0.3) <= 1.0
    assert jl_failure_bound(100, 5, 0.1) == 1.0
    for bad in (0.0, 1.0, -0.1):
        with pytest.raises(ValueError, match="eps must be in"):
            jl_min_dim(10, bad)
    with pytest.raises(TypeError, match="eps must be a number"):
        jl_min_dim(10, "small")
    with pytest.raises(ValueError, match="n_samples must be >= 1"):
        jl_min_dim(0, 0.1)


def test_jl_min_dim_with_a_tiny_eps_is_an_error_not_an_overflow() -> None:
    # eps**2 underflows to 0 (ZeroDivisionError) or the bound to inf (OverflowError)
    for eps in (1e-300, 1e-160):
        with pytest.raises(ValueError, match=f"eps={eps!r} is too small: the bound"):
            jl_min_dim(2, eps)
    with pytest.raises(ValueError, match=r"about 10\*\*601 dimensions, beyond the float range"):
        jl_min_dim(2, 1e-300)
    assert jl_min_dim(1, 1e-300) == 1  # log(1) = 0: one point needs one dimension
    assert jl_min_dim(2, 1e-150) > 5e300  # huge but finite: an int
    assert jl_min_dim(np.int64(1000), np.float32(0.1)) == 5527


# ---------------------------------------------------------------------------- contract
@pytest.mark.parametrize("coupling", PROJECTION_COUPLINGS)
def test_projection_contract(coupling) -> None:
    X = np.random.default_rng(3).standard_normal((20, 50))
    proj = RandomProjection(16, coupling=coupling, random_state=0)
    assert proj.fit(X) is proj
    F = proj.transform(X)
    assert F.shape == (20, 16) and proj.n_features_in_ == 50
    assert np.iscomplexobj(F) == (coupling == "hybrid")
    np.testing.assert_array_equal(
        RandomProjection(16, coupling=coupling, random_state=0).fit_transform(X), F
    )
    assert not np.allclose(
        RandomProjection(16, coupling=coupling, random_state=1).fit_transform(X), F
    )
    proj.set_params(n_components=3, coupling="iid")  # transform keeps the fitted map
    np.testing.assert_array_equal(proj.transform(X), F)
    G = proj.estimate_inner(X[:4], X[:6])
    assert G.shape == (4, 6) and G.dtype == np.float64
    np.testing.assert_allclose(G, RandomProjection.inner(F[:4], F[:6]))
    with pytest.raises(ValueError, match="X has 49 features, but RandomProjection is expecting 50"):
        proj.transform(X[:, 1:])
    assert proj.n_parameter_bytes_ > 0


@pytest.mark.parametrize("coupling", ["iid", "hadamard", "sparse"])
def test_auto_n_components_from_the_jl_bound(coupling) -> None:
    X = np.random.default_rng(6).standard_normal((30, 300))
    proj = RandomProjection("auto", eps=0.5, coupling=coupling, random_state=0).fit(X)
    assert proj.n_components_ == jl_min_dim(30, 0.5) == 109
    assert proj.transform(X).shape == (30, 109)
    assert len(proj.get_feature_names_out()) == 109
    assert RandomProjection(7, coupling=coupling).fit(X).n_components_ == 7
    assert RandomProjection().get_params()["eps"] == 0.1 and RandomProjection().n_components == 100


def test_auto_n_components_refuses_a_bound_above_the_input_dimension() -> None:
    # as scikit-learn's GaussianRandomProjection: no reduction, no projection
    X = np.random.default_rng(7).standard_normal((30, 100))
    msg = (
        r"n_components='auto' with eps=0.1 and n_samples=30 gives n_components=2721 "
        r"\(jl_min_dim\), more than the 100 features of X"
    )
    with pytest.raises(ValueError, match=msg):
        RandomProjection("auto").fit(X)
    with pytest.raises(ValueError, match="n_components must be one of 'auto'"):
        RandomProjection("automatic").fit(X)
    for eps in (0.0, 1.5):
        with pytest.raises(ValueError, match="eps must be in"):
            RandomProjection("auto", eps=eps).fit(X)
    with pytest.raises(TypeError, match="eps must be a number"):
        RandomProjection(eps="small").fit(X)


def test_inner_names_the_shapes_on_a_mismatch() -> None:
    X = np.random.default_rng(8).standard_normal((5, 16))
    F = RandomProjection(8, random_state=0).fit_transform(X)
    msg = r"FX has shape \(5, 3\) and FY has shape \(5, 8\): both need the same number"
    with pytest.raises(ValueError, match=msg):
        RandomProjection.inner(F[:, :3], F)
    with pytest.raises(ValueError, match=r"FY must be a 2-D array of features .* shape \(8,\)"):
        RandomProjection.inner(F, F[0])
    with pytest.raises(TypeError, match="FX must be an array of numbers"):
        RandomProjection.inner(np.array([["a"] * 8]), F)
    np.testing.assert_allclose(RandomProjection.inner(F.tolist(), F), F @ F.T)


@pytest.mark.parametrize("coupling", ["sparse", "fjlt"])
def test_projection_refuses_densities_that_give_zero_outputs(coupling) -> None:
    # density=1e-9 used to return an all-zero projection silently
    X = np.random.default_rng(9).standard_normal((5, 8))
    with pytest.raises(ValueError, match=r"density=1e-09 gives 8e-09 expected non-zeros per row"):
        RandomProjection(4, coupling=coupling, density=1e-9).fit(X)
    F = RandomProjection(50, coupling=coupling, density=1 / 8, random_state=0).fit_transform(X)
    assert np.count_nonzero(np.abs(F).sum(axis=0)) > 25  # most outputs are not zero
    RandomProjection(4, coupling=coupling, density="achlioptas", random_state=0).fit(X)


def test_projection_refuses_sizes_beyond_the_machine(monkeypatch) -> None:
    X = np.random.default_rng(10).standard_normal((4, 16))
    with pytest.raises(ValueError, match=r"gaussian_matrix\(n_components=10000000000000, d=16\)"):
        RandomProjection(10**13).fit(X)
    with pytest.raises(
        ValueError, match=r"hadamard_rademacher\(n_components=10000000000000000, d=16"
    ):
        RandomProjection(10**16, coupling="hadamard").fit(X)
    monkeypatch.setattr(_memory, "memory_limit", lambda: 2**20)  # a 1 MiB machine
    proj = RandomProjection(2**10, coupling="hybrid", random_state=0).fit(X)
    proj.transform(X)
    proj.transform(np.vstack([X] * 16))  # exactly 1 MiB of complex128 output
    msg = r"RandomProjection.transform: an output of shape \(68, 1024\) \(complex128\)"
    with pytest.raises(ValueError, match=msg + r" would need about 1.06 MiB"):
        proj.transform(np.vstack([X] * 17))


def test_structured_couplings_store_few_parameters() -> None:
    X = np.zeros((10, 4096))
    had = RandomProjection(512, coupling="hadamard", random_state=0).fit(X)
    assert isinstance(had.matrix_, HadamardRademacher)
    assert had.n_parameter_bytes_ == 3 * 4096 + 512 * 4  # signs + kept rows
    assert had.scale_ == pytest.approx(np.sqrt(4096 / 512))
    fj = RandomProjection(512, coupling="fjlt", random_state=0).fit(X)
    assert isinstance(fj.matrix_, FJLT)
    assert fj.matrix_.q == pytest.approx(np.log(10) ** 2 / 4096)
    gauss = RandomProjection(512, coupling="iid", random_state=0).fit(X)
    assert gauss.n_parameter_bytes_ == 512 * 4096 * 8


def test_projection_float32_and_padding() -> None:
    X = np.random.default_rng(4).standard_normal((6, 100)).astype(np.float32)
    for coupling in ("hadamard", "iid"):
        F = RandomProjection(20, coupling=coupling, random_state=0).fit(X).transform(X)
        assert F.dtype == np.float32
    F = RandomProjection(300, coupling="hadamard", random_state=0).fit(X).transform(X)  # m > D
    assert F.shape == (6, 300)


# ---------------------------------------------------------------------------- bad input
def test_projection_bad_arguments() -> None:
    X = np.random.default_rng(5).standard_normal((5, 8))
    for bad in (0, -2):
        with pytest.raises(ValueError, match="n_components must be >= 1"):
            RandomProjection(bad).fit(X)
    with pytest.raises(ValueError, match="coupling must be one of 'iid', 'orthogonal'"):
        RandomProjection(4, coupling="circulant").fit(X)
    with pytest.raises(ValueError, match=r"coupling must be one of .*; got 'gaussian'"):
        RandomProjection(4, coupling="gaussian").fit(X)  # the name before issue 12
    with pytest.raises(ValueError, match="subsampling must be one of"):
        RandomProjection(4, coupling="hadamard", subsampling="random").fit(X)
    with pytest.raises(ValueError, match="n_blocks must be >= 1"):
        RandomProjection(4, coupling="hadamard", n_blocks=0).fit(X)
    with pytest.raises(ValueError, match="density applies to coupling='sparse' or 'fjlt' only"):
        RandomProjection(4, coupling="iid", density=0.1).fit(X)
    with pytest.raises(ValueError, match="density must be in"):
        RandomProjection(4, coupling="sparse", density=2.0).fit(X)
    with pytest.raises(ValueError, match="Complex data not supported"):
        RandomProjection(4).fit(X * 1j)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        RandomProjection(4).fit(Xn)
    with pytest.raises(ValueError, match=r"0 feature\(s\) \(shape=\(3, 0\)\)"):
        RandomProjection(4).fit(np.ones((3, 0)))
    with pytest.raises(NotFittedError):
        RandomProjection(4).transform(X)
    with pytest.raises(NotFittedError):
        RandomProjection(4).estimate_inner(X)
    with pytest.raises(TypeError, match="Sparse data was passed for X, but dense data is required"):
        RandomProjection(4).fit(sp.csr_matrix(X))
    proj = RandomProjection(4, random_state=0).fit(X)
    with pytest.raises(TypeError, match="Sparse data was passed for X"):
        proj.transform(sp.csr_matrix(X))
