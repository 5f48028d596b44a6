"""
Gaussian-process regression in one dimension
=============================================

Fit a :class:`~kernelkit.models.GaussianProcessRegressor` with an RBF kernel to noisy
samples of a smooth function, then plot the predictive mean with a band of two predictive
standard deviations. The kernel's lengthscale and variance and the noise variance are
fitted by maximising the log marginal likelihood (analytic gradients, L-BFGS-B).
"""

import matplotlib.pyplot as plt
import numpy as np

from kernelkit.kernels import RBF
from kernelkit.models import GaussianProcessRegressor


def f(x):
    return x * np.sin(x)


rng = np.random.default_rng(0)
X = np.sort(rng.uniform(0, 10, size=30))[:, None]
y = f(X[:, 0]) + 0.5 * rng.standard_normal(30)

gp = GaussianProcessRegressor(RBF(lengthscale=1.0), noise=0.1, normalize_y=True)
gp.fit(X, y)
print(f"fitted lengthscale: {gp.kernel_.lengthscale:.2f}")
# with normalize_y the noise variance is on the standardised scale of y
print(f"fitted noise std:   {np.sqrt(gp.noise_) * gp.y_train_std_:.2f} (true: 0.5)")

# %%
# The predictive mean and standard deviation of ``f`` on a grid (the band is for the
# function, not for a new noisy observation): narrow where the observations are dense,
# widening towards the prior's beyond them.

grid = np.linspace(-1, 11, 400)[:, None]
mean, std = gp.predict(grid, return_std=True)

fig, ax = plt.subplots(figsize=(7, 3.5))
ax.plot(grid[:, 0], f(grid[:, 0]), "k:", label=r"$f(x) = x \sin x$")
ax.plot(grid[:, 0], mean, color="C0", label="predictive mean")
ax.fill_between(
    grid[:, 0], mean - 2 * std, mean + 2 * std, color="C0", alpha=0.25, label="mean ± 2 std"
)
ax.plot(X[:, 0], y, "o", color="C1", markersize=4, label="observations")
ax.set_xlabel("x")
ax.set_ylabel("y")
ax.legend(loc="upper left")
fig.tight_layout()
plt.show()
