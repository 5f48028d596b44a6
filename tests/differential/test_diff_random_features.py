"""Random Fourier features (kernelkit.features) and scikit-learn's RBFSampler against the
closed-form error theory (kernelkit.features.theory), on rows of the packaged cpu_act table.

For each map, ``S`` independent fits (``random_state = 0 .. S-1``) estimate the Gram matrix
``Z Z^T`` of ``N_ROWS`` standardised rows; the squared errors against the exact kernel,
averaged over seeds, estimate each pair's mean squared error (MSE). Compared with theory:

* the ratio ``sum_pairs MSE_hat / sum_pairs MSE_theory`` is 1 within ``K_SE`` standard
  errors, the standard error taken from ``N_BATCHES`` batch means over the seeds (the
  seeds are independent; the pairs within one seed are not);
* ``MSE_hat(m) / MSE_hat(16 m)`` matches the theory's ratio (16 for i.i.d. frequencies:
  the MSE scales as ``1 / n_components``) within the same kind of bound.

The i.i.d. and orthogonal couplings have exact MSEs (``mse_rff_iid``,
``mse_rff_orthogonal``; Rowland (2018) Prop. 7.17, Prop. 7.15), scikit-learn's RBFSampler
is the i.i.d. random-phase map (``features="cos_bias"``). The Hadamard coupling (SORF) has
no closed form and a small bias, so for it the checks are that stacked independent blocks
divide the variance by their number (``Var(m) / Var(16 m) = 16``) and that the bias is
below 0.01 (the documented bound for inputs padded to 32 dimensions and more).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from differential_data import standardise, subsample
from sklearn.kernel_approximation import RBFSampler

from kernelkit.datasets import load_uci
from kernelkit.features import RandomFourierFeatures
from kernelkit.features import theory as th
from kernelkit.kernels import RBF, Matern, median_heuristic

N_ROWS = 10
N_SEEDS = 400
N_BATCHES = 20
K_SE = 4.5  # a seeded check: 4.5 standard errors is a two-sided 7e-6 tail for a normal mean


@functools.cache
def _rows() -> np.ndarray:
    """``N_ROWS`` rows of cpu_act (21 features), standardised over the whole table."""
    X = standardise(load_uci("cpu_act").X)
    return X[subsample(X.shape[0], N_ROWS, random_state=3)]


def _kernel(name: str):
    X = _rows()
    ls = median_heuristic(X)
    return RBF(lengthscale=ls) if name == "rbf" else Matern(lengthscale=ls, nu=2.5)


def _pairs():
    X = _rows()
    i, j = np.triu_indices(X.shape[0], k=1)
    return i, j, np.linalg.norm(X[i] - X[j], axis=1)


def _estimates(make, n_seeds: int = N_SEEDS) -> np.ndarray:
    """Gram estimates of every pair for each seed: shape ``(n_seeds, n_pairs)``."""
    X = _rows()
    i, j, _ = _pairs()
    out = np.empty((n_seeds, i.size))
    for s in range(n_seeds):
        Z = make(s).fit_transform(X)
        out[s] = np.einsum("pk,pk->p", Z[i], Z[j])
    return out


def _batched(stat, *arrays: np.ndarray) -> tuple[float, float]:
    """``stat`` on all seeds, and its standard error from ``N_BATCHES`` batch means."""
    full = stat(*arrays)
    batches = np.array_split(np.arange(len(arrays[0])), N_BATCHES)
    parts = [stat(*(a[b] for a in arrays)) for b in batches]
    return full, float(np.std(parts, ddof=1) / np.sqrt(N_BATCHES))


def _mse_ratio(err2: np.ndarray, theory: np.ndarray) -> tuple[float, float]:
    return _batched(lambda e: float(e.mean(axis=0).sum() / theory.sum()), err2)


def _map(kernel_name: str, coupling: str, features: str, m: int):
    """A factory ``seed -> map`` with ``m`` frequencies: kernelkit's, or scikit-learn's
    RBFSampler for ``coupling="sklearn"``."""
    k = _kernel(kernel_name)
    if coupling == "sklearn":
        gamma = 0.5 / float(k.lengthscale) ** 2
        return lambda s: RBFSampler(gamma=gamma, n_components=m, random_state=s)
    width = 2 * m if features == "cos_sin" else m
    return lambda s: RandomFourierFeatures(
        width, kernel=k, coupling=coupling, features=features, random_state=s
    )


def _theory(kernel_name: str, coupling: str, features: str, m: int) -> np.ndarray:
    k = _kernel(kernel_name)
    _, _, z = _pairs()
    if coupling == "orthogonal":
        return np.asarray(th.mse_rff_orthogonal(k, z, m, _rows().shape[1], features=features))
    return np.asarray(th.mse_rff_iid(k, z, m, features=features))


CASES = [
    ("rbf", "iid", "cos_sin"),
    ("rbf", "iid", "cos_bias"),
    ("rbf", "orthogonal", "cos_sin"),
    ("rbf", "orthogonal", "cos_bias"),
    ("rbf", "sklearn", "cos_bias"),
    ("matern52", "iid", "cos_sin"),
    ("matern52", "orthogonal", "cos_sin"),
]
M0 = 8  # frequencies; 16 * M0 = 128 spans several stacked orthogonal blocks of d = 21


@pytest.mark.parametrize(
    ("kernel_name", "coupling", "features"), CASES, ids=["-".join(c) for c in CASES]
)
def test_gram_mse_matches_theory_and_scales_as_one_over_m(kernel_name, coupling, features):
    i, j, _ = _pairs()
    exact = _kernel(kernel_name)(_rows())[i, j]
    mse, theory = {}, {}
    for m in (M0, 16 * M0):
        est = _estimates(_map(kernel_name, coupling, features, m))
        err2 = (est - exact) ** 2
        theory[m] = _theory(kernel_name, coupling, features, m)
        ratio, se = _mse_ratio(err2, theory[m])
        mse[m] = err2
        print(
            f"RFF {kernel_name} {coupling} {features} m={m}: MSE_hat / MSE_theory = "
            f"{ratio:.4f} +- {se:.4f} (theory mean MSE {theory[m].mean():.3e})"
        )
        assert abs(ratio - 1.0) <= K_SE * se, (m, ratio, se)
    # the decay from M0 to 16 M0 frequencies, against the theory's
    expected = float(theory[M0].sum() / theory[16 * M0].sum())
    decay, se = _batched(
        lambda a, b: float(a.mean(axis=0).sum() / b.mean(axis=0).sum()), mse[M0], mse[16 * M0]
    )
    print(
        f"RFF {kernel_name} {coupling} {features}: MSE(m)/MSE(16m) = {decay:.3f} +- {se:.3f}, "
        f"theory {expected:.3f}"
    )
    if coupling in ("iid", "sklearn"):
        assert expected == pytest.approx(16.0, rel=1e-12)
    assert abs(decay - expected) <= K_SE * se


def test_hadamard_variance_falls_as_one_over_the_number_of_blocks():
    X = _rows()
    d_pad = 32  # cpu_act's 21 features, zero-padded to a power of two
    assert X.shape[1] <= d_pad
    k = _kernel("rbf")
    i, j, _ = _pairs()
    exact = k(X)[i, j]
    blocks = {1: None, 16: None}
    for b in blocks:
        make = lambda s, b=b: RandomFourierFeatures(  # noqa: E731
            2 * b * d_pad, kernel=k, coupling="hadamard", random_state=s
        )
        blocks[b] = _estimates(make)
    var1, var16 = (blocks[b].var(axis=0, ddof=1) for b in (1, 16))
    ratio, se = _batched(
        lambda a, c: float(a.var(axis=0, ddof=1).sum() / c.var(axis=0, ddof=1).sum()),
        blocks[1],
        blocks[16],
    )
    bias = blocks[16].mean(axis=0) - exact
    bias_se = np.sqrt(var16 / N_SEEDS)
    orth = np.asarray(th.mse_rff_orthogonal(k, _pairs()[2], d_pad, X.shape[1]))
    print(
        f"SORF rbf: Var(1 block)/Var(16 blocks) = {ratio:.3f} +- {se:.3f} (expected 16); "
        f"max |bias| {np.abs(bias).max():.2e} (max se {bias_se.max():.1e}); "
        f"mean MSE of one block {np.mean(var1 + (blocks[1].mean(axis=0) - exact) ** 2):.3e} vs "
        f"orthogonal theory at m={d_pad} {orth.mean():.3e}"
    )
    assert abs(ratio - 16.0) <= K_SE * se
    assert np.all(np.abs(bias) <= 0.01 + K_SE * bias_se)
