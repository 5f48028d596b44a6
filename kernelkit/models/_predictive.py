"""What the Gaussian regressors share: target standardisation and the Gaussian predictive.

:class:`~kernelkit.models.GaussianProcessRegressor` and
:class:`~kernelkit.models.RandomFeatureGP` differ only in how they compute the latent
predictive mean and (co)variance; turning those into the public ``predict`` (adding the
noise for noisy targets, undoing the standardisation of ``y``) is written once here.
"""

from __future__ import annotations

from typing import Any, Literal, overload

import numpy as np

from kernelkit._validation import check_int, check_random_state
from kernelkit.models._linalg import cholesky_jitter

#: What :meth:`GaussianPredictor._latent_predictive` is asked for besides the mean.
Spread = Literal["mean", "var", "cov"]


def target_scaling(y: np.ndarray, normalize: bool) -> tuple[float, float]:
    """``(mean, std)`` that standardise ``y`` when ``normalize`` (std 1 for constant ``y``),
    else ``(0, 1)``."""
    if not normalize:
        return 0.0, 1.0
    # on y / max|y|, so that squares cannot overflow (|y| up to ~1e308 stays finite)
    top = float(np.max(np.abs(y)))
    if not top > 0:
        return 0.0, 1.0
    z = y / top
    mean, std = float(np.mean(z)) * top, float(np.std(z)) * top
    return mean, std if std > 0 else 1.0


class GaussianPredictor:
    """Mixin: ``predict`` from a subclass's latent predictive on the standardised scale.

    A subclass implements ``_latent_predictive(X, what)`` returning ``(mean, spread,
    noise)``: the latent mean of ``f(X)``, its variances (``what="var"``), covariance
    (``"cov"``) or ``None`` (``"mean"``), and the noise variance, all on the scale of
    the standardised targets; ``y_train_mean_`` and ``y_train_std_`` (when fitted) map
    them back.
    """

    def _latent_predictive(
        self, X: Any, what: Spread
    ) -> tuple[np.ndarray, np.ndarray | None, float]:
        raise NotImplementedError

    def _prior_variance(self, X: Any) -> np.ndarray:
        """Prior variance of ``f`` at each of ``X`` (normalised scale): the scale of the
        jitter :meth:`sample_y` may need."""
        raise NotImplementedError

    def sample_y(self, X: Any, n_samples: int = 1, random_state: Any = None) -> np.ndarray:
        """Draw functions ``f(X)`` from the posterior (for a GP, the prior before ``fit``).

        Samples are ``mean + L z`` with ``L`` the Cholesky factor of the predictive
        covariance of ``f(X)`` and ``z`` standard normal. Posterior covariances are
        routinely singular to round-off, so jitter (from ``1e-10`` up to ``1e-4`` times the
        mean prior variance) is added silently when needed.

        Parameters
        ----------
        X : array of shape (m, n_features) or list of objects
        n_samples : int, default=1
        random_state : int, RandomState or None, default=None

        Returns
        -------
        ndarray of shape (m, n_samples)
        """
        check_int(n_samples, "n_samples", minimum=1)
        mean, cov = self.predict(X, return_cov=True)
        scale = getattr(self, "y_train_std_", 1.0)
        prior_var = float(np.mean(self._prior_variance(X))) * scale**2
        L = cholesky_jitter(
            cov,
            name="the predictive covariance",
            warn=False,
            jitter_scale=prior_var if prior_var > 0 else None,
        )
        rng = check_random_state(random_state)
        Z = rng.standard_normal((mean.shape[0], n_samples))
        return mean[:, None] + L @ Z

    @overload
    def predict(
        self,
        X: Any,
        return_std: Literal[False] = ...,
        return_cov: Literal[False] = ...,
        include_noise: bool = ...,
    ) -> np.ndarray: ...

    @overload
    def predict(
        self,
        X: Any,
        return_std: Literal[True],
        return_cov: Literal[False] = ...,
        include_noise: bool = ...,
    ) -> tuple[np.ndarray, np.ndarray]: ...

    @overload
    def predict(
        self,
        X: Any,
        return_std: bool = ...,
        *,
        return_cov: Literal[True],
        include_noise: bool = ...,
    ) -> tuple[np.ndarray, np.ndarray]: ...

    @overload
    def predict(
        self,
        X: Any,
        return_std: bool = ...,
        return_cov: bool = ...,
        include_noise: bool = ...,
    ) -> np.ndarray | tuple[np.ndarray, np.ndarray]: ...

    def predict(
        self,
        X: Any,
        return_std: bool = False,
        return_cov: bool = False,
        include_noise: bool = False,
    ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Predictive mean, and optionally standard deviation or covariance.

        Parameters
        ----------
        X : array of shape (n_test, n_features) or list of objects
            Test inputs, of the kind ``fit`` took.
        return_std, return_cov : bool
            At most one of them.
        include_noise : bool, default=False
            Predict noisy targets ``y*`` rather than ``f(x*)``: adds the noise variance to
            the variances / the covariance diagonal.

        Returns
        -------
        mean : ndarray of shape (n_test,)
        std : ndarray of shape (n_test,)
            If ``return_std``.
        cov : ndarray of shape (n_test, n_test)
            If ``return_cov``.
        """
        if return_std and return_cov:
            raise ValueError("return_std and return_cov cannot both be true")
        what: Spread = "cov" if return_cov else "var" if return_std else "mean"
        mean, spread, noise = self._latent_predictive(X, what)
        scale = getattr(self, "y_train_std_", 1.0)
        mean = mean * scale + getattr(self, "y_train_mean_", 0.0)
        if spread is None:
            return mean
        if return_cov:
            if include_noise:
                spread[np.diag_indices_from(spread)] += noise
            return mean, spread * scale**2
        var = np.maximum(spread, 0.0)
        if include_noise:
            var = var + noise
        return mean, np.sqrt(var) * scale
