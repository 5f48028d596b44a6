"""Urry & Sollich (2013) Figs. 6-9 reproductions (quick runs, one per module) and their
helpers."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.experiments import run_experiment
from kernelkit.experiments.urry_fig6 import NUS, histogram, ks_critical, summary
from kernelkit.experiments.urry_fig7_8 import rise
from kernelkit.experiments.urry_fig9 import largest_at_start, peak_nu, vertex_variance
from kernelkit.learning_curves import LearningCurve

# Fig. 6, quick sizes (V = 300, 4 x 4 data sets, population 1000): the means of the two
# samples agree within this relative tolerance (the means are carried by rare large
# variances, e.g. isolated vertices without data, so they are the noisiest statistic) ...
MEAN_RTOL = 0.25
# ... the medians within this one ...
MEDIAN_RTOL = 0.10
# ... and the KS distance stays below this bound: 1000 cavity samples alone give a 1%
# critical value of 0.05, and V = 300 is far from the large-graph limit.
KS_BOUND = 0.15


def _quick(tmp_path_factory, name):
    out = tmp_path_factory.mktemp(name)
    return out / name, run_experiment(name, quick=True, out=out, random_state=0).results


@pytest.fixture(scope="module")
def fig6(tmp_path_factory):
    return _quick(tmp_path_factory, "urry-fig6")


@pytest.fixture(scope="module")
def fig78(tmp_path_factory):
    return _quick(tmp_path_factory, "urry-fig7-8")


@pytest.fixture(scope="module")
def fig9(tmp_path_factory):
    return _quick(tmp_path_factory, "urry-fig9")


def _figures_exist(folder, res):
    assert res["figures"]
    for name in res["figures"]:
        assert (folder / name).stat().st_size > 10_000
    assert (folder / "results.json").exists()


# ---------------------------------------------------------------------- Fig. 6
def test_fig6_cavity_matches_simulated_distribution(fig6):
    folder, res = fig6
    _figures_exist(folder, res)
    assert res["noise"] == 0.1 and "our choice" in res["noise_source"]
    assert [r["nu"] for r in res["per_nu"].values()] == list(NUS)
    for r in res["per_nu"].values():
        sim, cav = r["simulation"], r["cavity"]
        assert cav["mean"] == pytest.approx(sim["mean"], rel=MEAN_RTOL)
        assert cav["q50"] == pytest.approx(sim["q50"], rel=MEDIAN_RTOL)
        assert 0 < r["ks_distance"] < KS_BOUND
        # the pooled vertex values average to the simulated Bayes error
        assert sim["mean"] == pytest.approx(r["epsilon_simulation"], rel=1e-10)
        assert r["epsilon_cavity"] == pytest.approx(sim["mean"], rel=MEAN_RTOL)
        # the cavity pools the samples of the sweeps of its averaging window
        sizes = res["sizes"]
        assert r["n_simulation"] == 300 * 4 * 4
        assert r["n_cavity"] == sizes["population"] * (sizes["sweeps"] // 2)
    # more data, smaller posterior variances
    low, high = res["per_nu"].values()
    assert high["simulation"]["q50"] < 0.5 * low["simulation"]["q50"]
    assert "KS" in res["headline"]


def test_fig6_histograms_are_normalised(fig6):
    _, res = fig6
    for h in res["histograms"].values():
        assert len(h["edges"]) == len(h["simulation"]) + 1
        assert np.all(np.diff(h["edges"]) > 0)
        assert sum(h["simulation"]) == pytest.approx(1.0)
        assert sum(h["cavity"]) == pytest.approx(1.0)


def test_fig6_helpers():
    x = np.random.RandomState(0).standard_normal(2001)
    s = summary(x)
    assert s["mean"] == pytest.approx(x.mean()) and s["q50"] == pytest.approx(np.median(x))
    assert s["q05"] < s["q25"] < s["q50"] < s["q75"] < s["q95"]
    # the asymptotic critical value: a KS distance above it is rare for one law
    from scipy import stats

    rng = np.random.RandomState(1)
    hits = sum(
        stats.ks_2samp(rng.rand(400), rng.rand(300)).statistic > ks_critical(400, 300)
        for _ in range(400)
    )
    assert hits < 40  # 5 % expected
    h = histogram([0.0, 1e-3, 0.5], [1.0])
    assert h["simulation"][0] == pytest.approx(2 / 3)  # zero goes to the first bin


# ---------------------------------------------------------------------- Figs. 7-8
def test_fig78_mismatch_has_a_maximum_matched_does_not(fig78):
    folder, res = fig78
    _figures_exist(folder, res)
    found = []
    for fig_name, panels in res["results"].items():
        for key, per_noise in panels.items():
            for label, r in per_noise.items():
                mis, mat = r["mismatched"], r["matched"]
                # a matched learning curve falls (the Bayes error decreases with nu)
                assert not mat["non_monotonic"], (fig_name, key, label)
                assert np.all(np.diff(mat["epsilon"]) < 0)
                if mis["non_monotonic"]:
                    assert mis["interior"]
                    assert mis["nu_dip"] < mis["nu_max"] < res["nus"][-1]
                    assert mis["max_over_dip"] > 1.05
                    found.append((fig_name, key, label, mis["nu_max"]))
    assert found
    # the paper: the error increases "as nu approaches unity"
    assert all(0.2 < nu < 3.0 for *_, nu in found)
    assert res["n_non_monotonic"] == len(found)
    assert res["n_matched_monotone"] == res["n_curves"] == 8


def test_fig78_noise_dependence(fig78):
    """At ``sigma^2 = 1e-1`` no mismatched curve rises; every curve starts near the
    prior variance 1 and falls far below it by ``nu = 10``."""
    _, res = fig78
    assert res["noises"] == [0.1, 1e-4]
    for panels in res["results"].values():
        for per_noise in panels.values():
            assert not per_noise["1e-01"]["mismatched"]["non_monotonic"]
            for r in per_noise.values():
                eps = np.asarray(r["mismatched"]["epsilon"])
                assert 0.85 < eps[0] < 1.0 and eps[-1] < 0.1 * eps[0]


def test_rise_detects_a_bump_and_ignores_noise():
    nus = np.logspace(-2, 1, 6)
    rng = np.random.RandomState(0)

    def curve(eps, spread):
        errors = eps[None, None, :] + spread * rng.standard_normal((8, 2, eps.size))
        return LearningCurve(
            nus, errors.mean(axis=(0, 1)), np.zeros(6), errors, errors[..., None], 0.1, False, 8, 2
        )

    bump = rise(curve(np.array([1.0, 0.8, 0.4, 0.7, 0.2, 0.05]), 0.01))
    assert bump["non_monotonic"] and bump["interior"]
    assert bump["nu_dip"] == pytest.approx(nus[2]) and bump["nu_max"] == pytest.approx(nus[3])
    falling = rise(curve(np.array([1.0, 0.8, 0.4, 0.2, 0.1, 0.05]), 0.01))
    assert not falling["non_monotonic"]
    # a rise buried in graph-to-graph noise does not count
    noisy = rise(curve(np.array([1.0, 0.8, 0.4, 0.45, 0.2, 0.05]), 0.5))
    assert not noisy["non_monotonic"]


# ---------------------------------------------------------------------- Fig. 9
def test_fig9_local_rises_then_falls(fig9):
    folder, res = fig9
    _figures_exist(folder, res)
    nus = np.asarray(res["nus"])
    assert nus[0] == 0.0
    for key, panel in res["results"].items():
        loc = panel["local"]
        sim = np.asarray(loc["simulation"])
        assert sim[0] == pytest.approx(0.0, abs=1e-20)  # local: every prior variance is 1
        assert loc["rises_then_falls"], key
        k = int(np.argmax(sim))
        assert 1 < k < nus.size - 1
        assert sim[k] > 3 * sim[1] and sim[k] > 3 * sim[-1]
        # the paper: a peak at nu ~ 0.2 (our grid: 0.133 and 0.316 around it)
        assert 0.05 < loc["peak_nu"] < 0.5, key
        assert 0.05 < loc["peak_nu_cavity"] < 0.5, key
        # the cavity follows the simulation near the peak
        assert loc["cavity"][k] == pytest.approx(sim[k], rel=0.3)


def test_fig9_global_is_largest_at_the_start_and_decays(fig9):
    """The paper: with global normalisation the error variance 'is largest at nu = 0 and
    decays'. In the quick run on Erdos-Renyi graphs it first rises by a few per cent
    (at nu ~ 0.02, significant on 4 graphs), so we check what holds at these sizes: no
    interior peak like the local one (the maximum is within 15 % of the value at
    ``nu = 0`` and lies below the local peak's ``nu``), then a decay to nearly 0."""
    _, res = fig9
    nus = np.asarray(res["nus"])
    for key, panel in res["results"].items():
        glo, loc = panel["global"], panel["local"]
        sim = np.asarray(glo["simulation"])
        assert sim.max() <= 1.15 * sim[0], key
        assert nus[int(np.argmax(sim))] < loc["peak_nu"], key
        assert sim[-1] < 1e-3 * sim[0]
        # global normalisation spreads the prior variances: the variance at nu = 0 is
        # larger than the local curve's peak
        assert sim[0] > np.max(loc["simulation"])
    assert any(p["global"]["largest_at_start"] for p in res["results"].values())
    assert "paper ~0.2" in res["headline"]


def test_fig9_helpers():
    rng = np.random.RandomState(0)
    v = rng.rand(3, 2, 4, 5)
    curve = LearningCurve(
        np.arange(4.0), v.mean(axis=(0, 1, 3)), np.zeros(4), v.mean(axis=3), v, 0.1, True, 3, 2
    )
    mean, se, per_graph = vertex_variance(curve)
    np.testing.assert_allclose(per_graph[1, 2], np.mean([np.var(v[1, d, 2]) for d in range(2)]))
    np.testing.assert_allclose(mean, per_graph.mean(axis=0))
    np.testing.assert_allclose(se, per_graph.std(axis=0, ddof=1) / np.sqrt(3))
    # a peak at the end of the grid is not refined
    nus = np.array([0.0, 0.1, 1.0, 10.0])
    assert peak_nu(nus, np.array([0.0, 1.0, 2.0, 3.0])) == (10.0, 10.0)
    assert peak_nu(nus, np.array([9.0, 1.0, 3.0, 2.0]))[0] == 1.0  # nu = 0 skipped
    flat = np.array([[1.0, 1.05, 0.5], [1.0, 0.95, 0.4]])
    assert largest_at_start(flat.mean(axis=0), flat)["largest_at_start"]
    rising = np.array([[1.0, 1.5, 0.5], [1.0, 1.6, 0.4]])
    assert not largest_at_start(rising.mean(axis=0), rising)["largest_at_start"]
