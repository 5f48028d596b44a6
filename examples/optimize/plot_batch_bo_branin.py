"""
Sequential and batch Bayesian optimisation on Branin
====================================================

Minimise the two-dimensional Branin-Hoo function (:class:`~kernelkit.optimize.Branin`,
three global minima of value 0.397887) with 24 evaluations, either one at a time or in
rounds of four. A batch is proposed by the *kriging believer* heuristic
(``batch_strategy="kriging_believer"``): after each point is chosen, the surrogate is
told its posterior mean as if it had been observed, and the next point of the round is
chosen by expected improvement under that belief. Rounds of four need a quarter of the
surrogate fits, and the points of a round can be evaluated in parallel
(``run(..., client=...)`` sends them to Dask workers); the price is that the points of
a round cannot learn from each other's values, so for the same number of evaluations a
batch run usually ends with a larger regret (this single seed is no measurement of it).
"""

import matplotlib.pyplot as plt
import numpy as np

from kernelkit.optimize import BayesianOptimizer, Branin
from kernelkit.optimize.plots import plot_convergence

branin = Branin()
sequential = BayesianOptimizer(branin, random_state=0).run(24)
batch = BayesianOptimizer(branin, random_state=0).run(24, batch_size=4)
for name, res in [("one at a time", sequential), ("rounds of 4", batch)]:
    print(f"{name:14s} best value {res.y_best:.5f}, regret {res.y_best - branin.minimum:.1e}")

# %%
# Left: the simple regret (best value so far minus the minimum) per evaluation, drawn by
# :func:`~kernelkit.optimize.plots.plot_convergence`. Right: where the batch run
# evaluated, coloured by round (round 0 is the Sobol initial design), on the contours of
# the function; the crosses are the three minimisers.

fig, (ax_regret, ax_points) = plt.subplots(1, 2, figsize=(10, 4))
plot_convergence(
    [sequential, batch],
    ax=ax_regret,
    minimum=branin.minimum,
    labels=["one at a time", "rounds of 4"],
)
ax_regret.set_title("simple regret")

(x_lo, x_hi), (y_lo, y_hi) = branin.bounds
gx, gy = np.meshgrid(np.linspace(x_lo, x_hi, 200), np.linspace(y_lo, y_hi, 200))
values = branin(np.column_stack([gx.ravel(), gy.ravel()])).reshape(gx.shape)  # vectorised
ax_points.contour(gx, gy, np.log(values), levels=15, colors="0.6")
points = ax_points.scatter(
    batch.X[:, 0],
    batch.X[:, 1],
    c=batch.rounds,
    cmap="viridis",
    edgecolor="k",
    zorder=3,
    clip_on=False,
)
ax_points.plot(*branin.minimizers.T, "rx", markersize=10, mew=2, label="minimisers")
fig.colorbar(points, ax=ax_points, label="round")
ax_points.set_xlabel("$x_1$")
ax_points.set_ylabel("$x_2$")
ax_points.set_title("batch run: points by round")
ax_points.legend(loc="upper right")
fig.tight_layout()
plt.show()
