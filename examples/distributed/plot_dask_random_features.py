"""
Random-feature ridge regression on a Dask array
===============================================

:class:`~kernelkit.models.RandomFeatureRidge` solves ridge regression on ``p`` random
Fourier features in the primal, ``w = (Phi^T Phi + alpha I)^-1 Phi^T y`` (Rowland (2018)
eq. 5.5): only the ``p x p`` matrix ``Phi^T Phi`` and the vector ``Phi^T y`` are needed,
and both are sums over the rows. On a Dask array chunked along its rows, ``fit`` computes
them block by block, so the data never has to fit in memory at once, and gives the same
weights as a fit on the whole array; ``predict`` on a Dask array is lazy.

Here the data, 50 000 rows of a smooth function of 3 inputs plus noise, is generated
chunk by chunk by Dask itself, and everything runs on Dask's default scheduler for
arrays, a local thread pool. Once a ``dask.distributed.Client`` is connected (e.g. by
:func:`~kernelkit.distributed.dask_client`) the same code runs on its cluster.
"""

import dask.array as da
import matplotlib.pyplot as plt
import numpy as np

from kernelkit.kernels import RBF
from kernelkit.models import RandomFeatureRidge


def target(X):
    """The function to learn (works on NumPy blocks)."""
    return np.sin(3 * X[:, 0]) * np.cos(2 * X[:, 1]) + 0.5 * X[:, 2] ** 2


n_rows, n_inputs, chunk = 50_000, 3, 5_000
random = da.random.RandomState(0)
X = random.uniform(-1, 1, size=(n_rows, n_inputs), chunks=(chunk, n_inputs))
y = X.map_blocks(target, drop_axis=1, dtype=float) + 0.1 * random.standard_normal(
    n_rows, chunks=chunk
)
print(f"X: {X.shape}, {X.numblocks[0]} blocks of {chunk} rows (nothing computed yet)")

# %%
# Fit on the first 1 000, 10 000 and all 50 000 rows (slicing a Dask array is lazy
# too), with 200 orthogonal random features (ORF, Rowland (2018) Def. 7.6) for a
# Gaussian kernel, and measure the error against the noiseless function on 5 000 test
# points, predicted lazily block by block.

X_test = random.uniform(-1, 1, size=(5_000, n_inputs), chunks=(1_000, n_inputs))
f_test = X_test.map_blocks(target, drop_axis=1, dtype=float).compute()
settings = dict(
    kernel=RBF(lengthscale=0.5), n_components=200, coupling="orthogonal", alpha=0.1, random_state=0
)
sizes = [1_000, 10_000, n_rows]
rmse = []
for n in sizes:
    model = RandomFeatureRidge(**settings).fit(X[:n], y[:n])
    prediction = model.predict(X_test)  # a lazy dask array
    rmse.append(float(np.sqrt(np.mean((prediction.compute() - f_test) ** 2))))
    print(f"n = {n:7d}: RMSE against the noiseless function {rmse[-1]:.4f}")

# %%
# The blockwise fit is the in-memory fit: on the first 15 000 rows (three blocks), fitted
# as a Dask array and as one NumPy array, the weights agree.

on_blocks = RandomFeatureRidge(**settings).fit(X[:15_000], y[:15_000])
in_memory = RandomFeatureRidge(**settings).fit(X[:15_000].compute(), y[:15_000].compute())
print("same weights as in memory:", np.allclose(in_memory.coef_, on_blocks.coef_))

# %%
# Left: the error keeps falling as rows are added (200 features are enough for this
# function). Right: a slice of the fitted function through the first two inputs (the third at 0),
# predicted lazily on a Dask grid, against the target.

grid = np.linspace(-1, 1, 60)
g0, g1 = np.meshgrid(grid, grid)
G = np.zeros((g0.size, n_inputs))
G[:, 0], G[:, 1] = g0.ravel(), g1.ravel()
slice_prediction = model.predict(da.from_array(G, chunks=(900, n_inputs))).compute()

fig, (ax_rmse, ax_true, ax_fit) = plt.subplots(1, 3, figsize=(13, 3.8), layout="constrained")
ax_rmse.plot(sizes, rmse, "o-")
ax_rmse.set_xscale("log")
ax_rmse.set_xlabel("training rows")
ax_rmse.set_ylabel("test RMSE")
ax_rmse.set_title("random-feature ridge, 200 ORF features")
for ax, values, title in [
    (ax_true, target(G), "target, $x_3 = 0$"),
    (ax_fit, slice_prediction, "fitted on 50 000 rows"),
]:
    image = ax.imshow(
        values.reshape(g0.shape),
        extent=(-1, 1, -1, 1),
        origin="lower",
        cmap="viridis",
        vmin=-1,
        vmax=1,
    )
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_title(title)
fig.colorbar(image, ax=[ax_true, ax_fit], shrink=0.9)
plt.show()
