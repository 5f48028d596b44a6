"""The Fisher kernel and the diagonal-GMM model of descriptor sets (assignment eqs.
1.5-1.7, 1.11-1.14): scores against finite differences of the log-likelihood, the Fisher
information against Monte Carlo, closed forms, invariance, and the Fisher-vector encoder."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.frozen import FrozenEstimator
from sklearn.mixture import GaussianMixture

from kernelkit.features import FisherVectorEncoder
from kernelkit.kernels import DiagonalGaussianMixture, FisherKernel, FisherModel, White
from kernelkit.kernels.fisher import fisher_vectors
from kernelkit.models import KernelSVC

RAW = {"power_normalize": False, "l2_normalize": False}


def fitted_gmm(k=3, f=2, seed=0, n=300):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=3.0, size=(k, f))
    X = centres[rng.integers(k, size=n)] + rng.normal(size=(n, f))
    return GaussianMixture(k, covariance_type="diag", random_state=0).fit(X)


def make_sets(sizes=(7, 12, 3, 20), f=2, seed=1):
    rng = np.random.default_rng(seed)
    return [rng.normal(scale=2.0, size=(n, f)) for n in sizes]


def set_log_likelihood(x, weights, means, sigmas):
    """log p(X) = sum_t log sum_i pi_i N(x_t; mu_i, diag sigma_i^2), written out."""
    z = (x[:, None, :] - means[None]) / sigmas[None]
    log_comp = (
        np.log(weights)[None]
        - 0.5 * (z**2).sum(-1)
        - np.log(sigmas).sum(-1)[None]
        - 0.5 * x.shape[1] * np.log(2 * np.pi)
    )
    m = log_comp.max(axis=1, keepdims=True)
    return float((m[:, 0] + np.log(np.exp(log_comp - m).sum(axis=1))).sum())


# ------------------------------------------------------------------ the model
@pytest.mark.parametrize("include_weights", [False, True])
def test_scores_are_gradients_of_the_set_log_likelihood(include_weights):
    gmm = fitted_gmm()
    model = DiagonalGaussianMixture(gmm, include_weights=include_weights)
    x = make_sets()[1]
    w, mu, sd = gmm.weights_, gmm.means_, np.sqrt(gmm.covariances_)
    alpha = np.log(w)

    def ll(a, m, s):
        return set_log_likelihood(x, np.exp(a) / np.exp(a).sum(), m, s)

    h = 1e-6
    grads = []
    if include_weights:
        for i in range(len(w)):
            e = np.zeros_like(alpha)
            e[i] = h
            grads.append((ll(alpha + e, mu, sd) - ll(alpha - e, mu, sd)) / (2 * h))
    for which in ("mu", "sigma"):
        for i in range(mu.shape[0]):
            for j in range(mu.shape[1]):
                e = np.zeros_like(mu)
                e[i, j] = h
                if which == "mu":
                    d = ll(alpha, mu + e, sd) - ll(alpha, mu - e, sd)
                else:
                    d = ll(alpha, mu, sd + e) - ll(alpha, mu, sd - e)
                grads.append(d / (2 * h))
    np.testing.assert_allclose(model.score([x])[0], grads, rtol=1e-6, atol=1e-6)


def test_fisher_information_matches_monte_carlo_for_separated_components():
    # well separated components: posteriors are hard, where the diagonal form is exact
    k, f = 3, 2
    rng = np.random.default_rng(5)
    means = np.array([[0.0, 0.0], [20.0, 0.0], [0.0, 20.0]])
    sigmas = np.array([[1.0, 0.5], [2.0, 1.0], [0.7, 1.5]])
    weights = np.array([0.5, 0.3, 0.2])
    gmm = GaussianMixture(k, covariance_type="diag")
    gmm.weights_, gmm.means_, gmm.covariances_ = weights, means, sigmas**2
    gmm.precisions_cholesky_ = 1.0 / sigmas
    model = DiagonalGaussianMixture(gmm)
    n = 200_000
    comp = rng.choice(k, size=n, p=weights)
    x = means[comp] + sigmas[comp] * rng.normal(size=(n, f))
    g = model.score(list(x[:, None, :]))  # one descriptor per set
    F = model.fisher_information()
    # E[g] = 0 and E[g^2] = F; Monte Carlo error of a mean of n draws ~ sd / sqrt(n)
    se = g.std(axis=0) / np.sqrt(n)
    assert np.all(np.abs(g.mean(axis=0)) < 5 * se)
    np.testing.assert_allclose((g**2).mean(axis=0), F, rtol=0.03)


def test_log_likelihood_is_the_sum_over_each_set():
    gmm = fitted_gmm()
    sets = [*make_sets(), np.zeros((0, 2))]
    ll = DiagonalGaussianMixture(gmm).log_likelihood(sets)
    expected = [gmm.score_samples(x).sum() if len(x) else 0.0 for x in sets]
    np.testing.assert_allclose(ll, expected, rtol=1e-12)


def test_model_checks_its_mixture():
    with pytest.raises(TypeError, match="GaussianMixture"):
        DiagonalGaussianMixture("gmm")
    with pytest.raises(ValueError, match="not fitted"):
        DiagonalGaussianMixture(GaussianMixture(2, covariance_type="diag"))
    full = GaussianMixture(2, random_state=0).fit(np.random.default_rng(0).normal(size=(20, 2)))
    with pytest.raises(ValueError, match="covariance_type='diag'"):
        DiagonalGaussianMixture(full)
    model = DiagonalGaussianMixture(FrozenEstimator(fitted_gmm()))
    assert model.n_parameters == 2 * 3 * 2
    with pytest.raises(ValueError, match=r"width 3.*width 2"):
        model.score([np.zeros((4, 3))])


# ------------------------------------------------------------------ the kernel
@pytest.mark.parametrize("include_weights", [False, True])
def test_fisher_kernel_is_the_fisher_vector_inner_product(include_weights):
    gmm = fitted_gmm()
    sets = make_sets()
    enc = FisherVectorEncoder(gmm=FrozenEstimator(gmm), include_weights=include_weights, **RAW)
    V = enc.fit_transform(sets)
    k = FisherKernel(DiagonalGaussianMixture(gmm, include_weights=include_weights))
    np.testing.assert_allclose(k(sets), V @ V.T, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(k.diag(sets), np.sum(V * V, axis=1), rtol=1e-10)
    np.testing.assert_allclose(k(sets[:2], sets[2:]), V[:2] @ V[2:].T, rtol=1e-10, atol=1e-12)


def test_equal_set_sizes_give_g_inverse_f_g_with_the_set_information():
    # the assignment's setting (T equal for every image): k = g^T (T F_1)^-1 g'
    gmm = fitted_gmm()
    T = 9
    sets = make_sets(sizes=(T, T, T))
    model = DiagonalGaussianMixture(gmm, include_weights=True)
    g = model.score(sets)
    F = T * model.fisher_information()
    np.testing.assert_allclose(FisherKernel(model)(sets), g @ np.diag(1 / F) @ g.T, rtol=1e-10)


class GaussianMean:
    """N(mu, S) with known covariance, parameter mu: g(x) = S^-1 (x - mu), F = S^-1."""

    def __init__(self, mu, S):
        self.mu, self.S = mu, S

    def score(self, X):
        return np.linalg.solve(self.S, (np.asarray(X) - self.mu).T).T

    def fisher_information(self):
        return np.linalg.inv(self.S)


def test_full_information_gives_the_mahalanobis_closed_form():
    rng = np.random.default_rng(2)
    A = rng.normal(size=(3, 3))
    S, mu = A @ A.T + 0.5 * np.eye(3), rng.normal(size=3)
    X, Y = rng.normal(size=(5, 3)), rng.normal(size=(4, 3))
    K = FisherKernel(GaussianMean(mu, S))(X, Y)
    np.testing.assert_allclose(K, (X - mu) @ np.linalg.solve(S, (Y - mu).T), rtol=1e-10)


class Reparametrised(FisherModel):
    """The same model in parameters theta' = A theta: g' = A^-T g, F' = A^-T F A^-1."""

    def __init__(self, model, A):
        self.model, self.A = model, A

    def score(self, X):
        return np.linalg.solve(self.A.T, self.model.score(X).T).T

    def fisher_information(self):
        F = self.model.fisher_information()
        F = np.diag(F) if F.ndim == 1 else F
        Ainv = np.linalg.inv(self.A)
        return Ainv.T @ F @ Ainv

    def sample_size(self, X):
        return self.model.sample_size(X)


def test_fisher_kernel_is_invariant_under_linear_reparametrisation():
    gmm = fitted_gmm()
    sets = make_sets()
    model = DiagonalGaussianMixture(gmm)
    A = np.random.default_rng(4).normal(size=(model.n_parameters,) * 2) + 3 * np.eye(12)
    np.testing.assert_allclose(
        FisherKernel(Reparametrised(model, A))(sets), FisherKernel(model)(sets), rtol=1e-8
    )


def test_fisher_kernel_works_in_the_kernel_algebra_and_an_svm():
    gmm = fitted_gmm(k=2)
    rng = np.random.default_rng(0)
    sets = [rng.normal(loc=c, size=(15, 2)) for c in (-2.0, 2.0) * 10]
    y = np.array([0, 1] * 10)
    k = FisherKernel(DiagonalGaussianMixture(gmm))
    np.testing.assert_allclose((k + White(0.5))(sets), k(sets) + 0.5 * np.eye(20))
    clf = KernelSVC(k, C=10.0).fit(sets, y)
    assert clf.score(sets, y) == 1.0


def test_fisher_kernel_clones_pickles_and_compares_by_value():
    k = FisherKernel(DiagonalGaussianMixture(fitted_gmm()))
    sets = make_sets()
    again = pickle.loads(pickle.dumps(k))
    assert again == k and k.clone() == k
    np.testing.assert_allclose(again(sets), k(sets))
    assert FisherKernel(DiagonalGaussianMixture(fitted_gmm(seed=1))) != k


def test_fisher_vectors_give_zero_for_empty_samples():
    G = fisher_vectors(np.ones((2, 2)), np.ones(2), np.array([0.0, 4.0]))
    np.testing.assert_allclose(G, [[0.0, 0.0], [0.5, 0.5]])


class Broken:
    def __init__(self, F, rows=None):
        self.F, self.rows = F, rows

    def score(self, X):
        return np.ones((self.rows or len(X), 2))

    def fisher_information(self):
        return self.F


@pytest.mark.parametrize(
    ("model", "error", "match"),
    [
        (object(), TypeError, "score"),
        (Broken(np.array([1.0, -1.0])), ValueError, "positive on the diagonal"),
        (Broken(np.ones(3)), ValueError, "3 entries"),
        (Broken(np.array([[1.0, 2.0], [2.0, 1.0]])), ValueError, "not positive definite"),
        (Broken(np.array([[1.0, 0.5], [0.0, 1.0]])), ValueError, "symmetric"),
        (Broken(np.ones((2, 2, 2))), ValueError, "1-D"),
        (Broken(np.array([1.0, np.nan])), ValueError, "NaN"),
        (Broken(np.ones(2), rows=5), ValueError, "one row per sample"),
    ],
)
def test_bad_models_get_clear_errors(model, error, match):
    with pytest.raises(error, match=match):
        FisherKernel(model)(np.zeros((3, 2)))
