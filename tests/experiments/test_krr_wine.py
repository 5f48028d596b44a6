"""Kernel ridge regression on wine: agrees with scikit-learn and beats the trivial baselines."""

from __future__ import annotations

from kernelkit.experiments import run_experiment


def test_krr_wine_quick(tmp_path):
    res = run_experiment("krr-wine", quick=True, out=tmp_path, random_state=0).results
    s = res["summary"]
    assert res["max_abs_diff_vs_sklearn"] < 1e-8
    assert abs(s["rmse_kernelkit"][0] - s["rmse_sklearn"][0]) < 1e-8
    # An RBF kernel machine beats predicting the mean and a linear model on this data.
    assert s["rmse_kernelkit"][0] < s["rmse_linear_ridge"][0] < s["rmse_mean"][0]
    assert 0.4 < s["rmse_kernelkit"][0] < 0.75  # quality points; published SVR figures ~0.6
    assert (tmp_path / "krr-wine" / "krr_wine.png").exists()


def test_krr_wine_is_reproducible(tmp_path):
    a = run_experiment("krr-wine", quick=True, out=tmp_path / "a", random_state=5).results
    b = run_experiment("krr-wine", quick=True, out=tmp_path / "b", random_state=5).results
    assert a["summary"] == b["summary"]
