"""Rowland (2018) random projection / random feature reproductions (quick runs, shared per
module) and the helpers they use."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.experiments import run_experiment
from kernelkit.experiments._random_features import (
    bootstrap_se,
    gram_error_kernel,
    gram_error_linear,
    random_pairs,
    real_features,
)
from kernelkit.kernels import RBF

# Monte Carlo tolerance for simulated vs closed-form MSEs, in standard errors
Z_TOL = 5.0


def _quick(tmp_path_factory, name):
    out = tmp_path_factory.mktemp(name)
    return out / name, run_experiment(name, quick=True, out=out, random_state=0).results


@pytest.fixture(scope="module")
def fig63(tmp_path_factory):
    return _quick(tmp_path_factory, "rowland-fig-6.3")


@pytest.fixture(scope="module")
def fig75(tmp_path_factory):
    return _quick(tmp_path_factory, "rowland-fig-7.5")


@pytest.fixture(scope="module")
def table72(tmp_path_factory):
    return _quick(tmp_path_factory, "rowland-table-7.2")


def _assert_theory_within_mc(r, label):
    sim, se, th = (np.asarray(r[k], dtype=float) for k in ("mse", "mse_se", "theory"))
    known = np.isfinite(th)
    assert np.all(se[known] > 0), label
    z = np.abs(sim - th)[known] / se[known]
    assert np.all(z < Z_TOL), (label, z)


def _figures_exist(folder, res):
    assert res["figures"]
    for name in res["figures"]:
        assert (folder / name).stat().st_size > 10_000
    assert (folder / "results.json").exists()


# ---------------------------------------------------------------------- Fig. 6.3
def test_fig63_orthogonal_projections_beat_jlt(fig63):
    folder, res = fig63
    _figures_exist(folder, res)
    r = res["results"]
    for key in ("mse", "gram"):
        assert r["G_ort"][key][-1] < r["JLT"][key][-1]
        assert r["HR k=3"][key][-1] < r["JLT"][key][-1]
        # Thm 6.11: with replacement is worse at the largest m (factor (D-1)/(D-m))
        assert r["HR with repl."][key][-1] > r["HR k=3"][key][-1]
    assert "G_ort/JLT" in res["headline"]


def test_fig63_hybrid_halves_the_mse(fig63):
    _, res = fig63
    r = res["results"]
    ratio = np.asarray(r["Hybrid"]["mse"]) / np.asarray(r["HR k=3"]["mse"])
    assert np.all(ratio < 0.75)  # Thm 6.9: exactly 1/2 in expectation
    np.testing.assert_allclose(
        np.asarray(r["Hybrid"]["theory"]) / np.asarray(r["HR k=3"]["theory"]), 0.5
    )
    big = np.asarray(res["m"]) >= res["d"] / 4
    assert np.all(np.asarray(r["Hybrid"]["gram"])[big] < np.asarray(r["HR k=3"]["gram"])[big])


def test_fig63_simulation_matches_closed_forms(fig63):
    _, res = fig63
    for name, r in res["results"].items():
        _assert_theory_within_mc(r, name)
    assert res["theory_max_abs_z"] < Z_TOL


def test_fig63_findings_are_computed(fig63):
    _, res = fig63
    f = res["findings"]
    assert len(f) == 12
    assert all(v["reproduced"] in ("yes", "no") for v in f.values())
    # the robust ones (large effects in theory) reproduce even in the quick run
    assert f["hybrid consistently better (pointwise MSE)"]["reproduced"] == "yes"
    assert f["orthogonal beats iid (pointwise MSE)"]["reproduced"] == "yes"
    table = res["tables"]["Thesis findings (§6.5) checked on these numbers"]
    assert [row[3] for row in table["rows"]] == [v["reproduced"] for v in f.values()]


# ---------------------------------------------------------------------- Fig. 7.5
def test_fig75_orthogonal_features_beat_iid_for_the_gaussian_kernel(fig75):
    folder, res = fig75
    _figures_exist(folder, res)
    g = res["results"]["wine"]["Gaussian"]
    iid = np.asarray(g["IID"]["mse"])
    assert np.all(np.asarray(g["ORF"]["mse"]) < iid)
    assert np.all(np.asarray(g["SORF"]["mse"]) < iid)
    assert g["ORF"]["gram"][-1] < g["IID"]["gram"][-1]
    # MSE decreases with m for every kernel and coupling
    for per in res["results"]["wine"].values():
        if isinstance(per, dict):
            for r in per.values():
                assert r["mse"][-1] < r["mse"][0]
                assert r["gram"][-1] < r["gram"][0]


def test_fig75_simulation_matches_theory(fig75):
    _, res = fig75
    wine = res["results"]["wine"]
    for kernel in ("Gaussian", "Matérn-5/2", "Laplace", "angular"):
        for coupling in ("IID", "ORF"):
            _assert_theory_within_mc(wine[kernel][coupling], f"{kernel}/{coupling}")
        assert all(np.isnan(v) for v in np.asarray(wine[kernel]["SORF"]["theory"], dtype=float))
    assert res["theory_max_abs_z"] < Z_TOL
    assert "ORF/IID" in res["headline"]


# ---------------------------------------------------------------------- Table 7.2
def test_table72_kl_positive_and_decreasing(table72):
    folder, res = table72
    _figures_exist(folder, res)
    for kernel, a in res["results"].items():
        assert a["noise"] >= 1e-2 - 1e-12
        for coupling in ("IID", "ORF", "SORF"):
            kl = np.asarray(a[coupling]["kl"])
            assert np.all(kl > 0), (kernel, coupling)
            assert np.all(np.asarray(a[coupling]["kl_exact_approx"]) > 0)
            rmse = np.asarray(a[coupling]["rmse"])
            assert np.all((rmse > 0) & (rmse < 1.0))  # better than predicting the mean
        assert np.all(np.diff(a["IID"]["kl"]) < 0), kernel
        assert 0 < a["exact_rmse"] < 0.7


def test_table72_orderings_and_thesis_columns(table72):
    _, res = table72
    # the orderings of the thesis's own numbers, computed by the same code
    t = res["orderings_thesis"]
    assert t["Gaussian: ORF < IID (KL) at every m/d"] == "yes"
    assert t["Gaussian: SORF < IID (KL) at every m/d"] == "no"  # 108.9 > 104.2 at m/d = 1
    assert set(res["orderings"]) == set(t)
    kl_table = next(v for k, v in res["tables"].items() if k.startswith("KL"))
    assert "m/d=1 (thesis)" in kl_table["columns"]
    gaussian_iid = kl_table["rows"][0]
    assert gaussian_iid[:2] == ["Gaussian", "IID"] and gaussian_iid[3] == "104.2"


# ---------------------------------------------------------------------- helpers
def test_gram_errors_match_direct_computation():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((40, 6))
    F = rng.standard_normal((40, 4))
    K = X @ X.T
    direct = np.linalg.norm(K - F @ F.T) / np.linalg.norm(K)
    assert gram_error_linear(X, F, float(np.sum(K * K))) == pytest.approx(direct, rel=1e-10)
    Kr = RBF()(X)
    direct = np.linalg.norm(Kr - F @ F.T) / np.linalg.norm(Kr)
    assert gram_error_kernel(Kr, F, float(np.sum(Kr * Kr))) == pytest.approx(direct, rel=1e-10)
    C = F[:, :2] + 1j * F[:, 2:]
    R = real_features(C)
    np.testing.assert_allclose(R @ R.T, (np.conj(C) @ C.T).real)


def test_bootstrap_se_and_pairs():
    v = np.random.RandomState(1).standard_normal(400)
    assert bootstrap_se(v, n_boot=2000) == pytest.approx(v.std() / 20, rel=0.1)
    assert bootstrap_se([3.0]) == 0.0
    i, j = random_pairs(5, 1000, np.random.RandomState(2))
    assert np.all(i != j) and set(np.unique(j)) == set(range(5))
