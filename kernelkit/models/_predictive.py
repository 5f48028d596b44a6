"""What the Gaussian regressors share: target standardisation and the Gaussian predictive.

:class:`~kernelkit.models.GaussianProcessRegressor` and
:class:`~kernelkit.models.RandomFeatureGP` differ only in how they compute the latent
predictive mean and (co)variance; turning those into the public ``predict`` (adding the
noise for noisy targets, undoing the standardisation of ``y``) is written once here.
"""

from __future__ import annotations

import functools
from typing import Any, Literal, overload

import numpy as np

from kernelkit._dask import import_dask, is_dask_array
from kernelkit._memory import check_memory
from kernelkit._validation import check_int, check_random_state
from kernelkit.linalg.cholesky import cholesky_jitter
from kernelkit.models._common import n_objects

#: What :meth:`GaussianPredictor._latent_predictive` is asked for besides the mean.
Spread = Literal["mean", "var", "cov"]


def target_scaling(y: Any, normalize: bool) -> tuple[float, float]:
    """``(mean, std)`` that standardise ``y`` when ``normalize`` (std 1 for constant ``y``),
    else ``(0, 1)``. A dask array ``y`` is reduced blockwise (two passes: ``max|y|``, then
    the mean and the standard deviation together)."""
    if not normalize:
        return 0.0, 1.0
    # on y / max|y|, so that squares cannot overflow (|y| up to ~1e308 stays finite)
    top = float(np.max(np.abs(y)))
    if not top > 0:
        return 0.0, 1.0
    z = y / top
    moments = (np.mean(z), np.std(z))
    if is_dask_array(z):
        moments = import_dask("normalize_y of a dask array").compute(*moments)
    mean, std = float(moments[0]) * top, float(moments[1]) * top
    return mean, std if std > 0 else 1.0


class GaussianPredictor:
    """Mixin: ``predict`` from a subclass's latent predictive on the standardised scale.

    A subclass implements ``_latent_predictive(X, what)`` returning ``(mean, spread,
    noise)``: the latent mean of ``f(X)``, its variances (``what="var"``), covariance
    (``"cov"``) or ``None`` (``"mean"``), and the noise variance, all on the scale of
    the standardised targets; ``y_train_mean_`` and ``y_train_std_`` (when fitted) map
    them back.
    """

    #: Whether ``predict`` maps a dask array block by block (a subclass whose prediction
    #: of a row needs no other test row, and whose fitted state is small enough to ship).
    _blockwise_predict: bool = False

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
            Seeds the standard normal draws ``z``.

        Returns
        -------
        ndarray of shape (m, n_samples)
        """
        check_int(n_samples, "n_samples", minimum=1)
        m = n_objects(X) if hasattr(X, "shape") or hasattr(X, "__len__") else 0
        # the covariance and its factor, the normal draws and the samples
        check_memory(
            8 * (2 * m * m + 2 * m * int(n_samples)),
            f"{type(self).__name__}.sample_y({m} points, n_samples={n_samples})",
            "draw fewer samples at a time, or at fewer points",
        )
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
            Test inputs, of the kind ``fit`` took. :class:`RandomFeatureGP
            <kernelkit.models.RandomFeatureGP>` also takes a dask array chunked along
            rows (not with ``return_cov``), predicted block by block.
        return_std, return_cov : bool
            At most one of them.
        include_noise : bool, default=False
            Predict noisy targets ``y*`` rather than ``f(x*)``: adds the noise variance to
            the variances / the covariance diagonal.

        Returns
        -------
        mean : ndarray or dask array of shape (n_test,)
            A dask array (the row chunks of ``X``) for a dask ``X``, computed when asked
            for; the fitted model enters its task graph once.
        std : ndarray or dask array of shape (n_test,)
            If ``return_std``.
        cov : ndarray of shape (n_test, n_test)
            If ``return_cov``.
        """
        if return_std and return_cov:
            raise ValueError("return_std and return_cov cannot both be true")
        if self._blockwise_predict and is_dask_array(X):
            return self._predict_dask(X, return_std, return_cov, include_noise)
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

    def _predict_dask(self, X: Any, return_std: bool, return_cov: bool, include_noise: bool) -> Any:
        """``predict`` of every row block of the dask array ``X``, lazily: dask arrays
        with ``X``'s row chunks. One row of ones goes through ``predict`` first, so that
        what the array path refuses (a wrong number of features) is refused now."""
        from kernelkit._dask import check_row_chunked, map_row_blocks, shipping_copy

        if return_cov:
            raise ValueError(
                "return_cov=True is not available for a dask array X: the covariance of "
                "all the test points is one (n_test, n_test) matrix, not a blockwise "
                "result; use return_std=True, or pass X.compute()"
            )
        check_row_chunked(X)
        probe = self.predict(np.ones((1, X.shape[1]), dtype=X.dtype), return_std=return_std)
        what = f"{type(self).__name__}.predict of a dask array"
        model = shipping_copy(self)
        if not return_std:
            dtype = np.asarray(probe).dtype
            return map_row_blocks(_predict_mean, X, model, n_columns=None, dtype=dtype, what=what)
        func = functools.partial(_predict_mean_std, include_noise=include_noise)
        both = map_row_blocks(func, X, model, n_columns=2, dtype=probe[0].dtype, what=what)
        return both[:, 0], both[:, 1]


def _predict_mean(X: np.ndarray, model: GaussianPredictor) -> np.ndarray:
    """The predictive mean of one row block (the array path of ``predict``)."""
    return np.asarray(model.predict(X))


def _predict_mean_std(X: np.ndarray, model: GaussianPredictor, include_noise: bool) -> np.ndarray:
    """The predictive mean and standard deviation of one row block, as two columns."""
    mean, std = model.predict(X, return_std=True, include_noise=include_noise)
    return np.stack([mean, std], axis=1)
