"""
Gram-matrix error of random Fourier features: theory and simulation
===================================================================

Approximate the Gaussian kernel matrix of 100 wines (the packaged UCI *Wine Quality*
data, 11 standardised features, lengthscale by the median heuristic of Rowland (2018)
§7.6) by ``Z Z^T`` with random Fourier features ``Z``
(:class:`~kernelkit.features.RandomFourierFeatures`, cos/sin pairs of eq. 7.2) drawn
with ``m`` i.i.d. frequencies, orthogonal ones (ORF, Def. 7.6) or structured
Hadamard-Rademacher ones (SORF, ``S D_3 S D_2 S D_1``, §7.6).

Every entry of ``Z Z^T`` is an unbiased estimate of ``k(x_i, x_j)`` whose mean squared
error depends only on the distance ``|x_i - x_j|``, so the mean squared error over the
off-diagonal entries is the average of the exact pointwise MSEs over the pairs:
:func:`~kernelkit.features.theory.mse_rff_iid` (Prop. 7.17, eq. 7.49) for i.i.d.
frequencies and :func:`~kernelkit.features.theory.mse_rff_orthogonal` (Prop. 7.15) for
ORF. SORF has no closed form; it is applied in ``O(m log d)`` instead of ``O(m d)``
operations per input, and the simulation places it between the two (the comparison of
§7.6).
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy.spatial.distance import pdist

from kernelkit.datasets import load_uci
from kernelkit.features import RandomFourierFeatures
from kernelkit.features.theory import mse_rff_iid, mse_rff_orthogonal
from kernelkit.kernels import RBF, median_heuristic

wine = load_uci("wine")
rng = np.random.default_rng(0)
X = wine.X[rng.choice(len(wine.X), size=100, replace=False)]
X = (X - wine.X.mean(axis=0)) / wine.X.std(axis=0)
n, d = X.shape

lengthscale = median_heuristic(X)
kernel = RBF(lengthscale=lengthscale)
K = kernel(X)
upper = np.triu_indices(n, k=1)  # the off-diagonal entries (the diagonal is exact)
print(f"n = {n} wines, d = {d} features, lengthscale {lengthscale:.2f}")

# %%
# The exact MSE of one entry at scaled distance ``z = |x_i - x_j| / lengthscale``,
# averaged over the 4950 pairs, for ``m`` from ``d/2`` to ``8 d`` frequencies (the
# feature map has ``2 m`` columns). Blocks of ``d`` orthogonal directions are stacked
# beyond ``m = d`` (Def. 7.1); the formulas account for it.

n_frequencies = np.array([d // 2, d, 2 * d, 4 * d, 8 * d])
z = pdist(X) / lengthscale
theory = {
    "IID": [mse_rff_iid("rbf", z, m).mean() for m in n_frequencies],
    "ORF": [mse_rff_orthogonal("rbf", z, m, d=d).mean() for m in n_frequencies],
}

# %%
# Monte Carlo: the same mean squared error, averaged over 20 independent feature maps
# per coupling and ``m`` (seeds 0-19).

n_draws = 20
couplings = {"IID": "iid", "ORF": "orthogonal", "SORF": "hadamard"}
simulated = {name: [] for name in couplings}
for name, coupling in couplings.items():
    for m in n_frequencies:
        errors = []
        for seed in range(n_draws):
            features = RandomFourierFeatures(
                2 * m, kernel=kernel, coupling=coupling, random_state=seed
            )
            Z = features.fit_transform(X)
            errors.append(np.mean((Z @ Z.T - K)[upper] ** 2))
        simulated[name].append(np.mean(errors))
for name in couplings:
    ratio = np.array(simulated[name]) / np.array(theory["IID"])
    print(f"{name:4s} simulated MSE / IID theory: {np.round(ratio, 2)}")

# %%
# Lines are the exact MSEs, markers the simulation. Both decay as ``1/m``. ORF's gain
# over IID grows up to ``m = d``, as more pairs of frequencies are coupled by the one
# orthogonal block, and is a constant factor beyond, where blocks of ``d`` are independent
# of each other. SORF (the input padded to ``D = 16`` dimensions) catches up with ORF as
# ``m`` grows.

fig, ax = plt.subplots(figsize=(6, 4))
colours = {"IID": "C0", "ORF": "C1", "SORF": "C2"}
for name, values in theory.items():
    ax.plot(n_frequencies / d, values, "-", color=colours[name], label=f"{name} theory")
for name, values in simulated.items():
    ax.plot(n_frequencies / d, values, "o", color=colours[name], label=f"{name} simulated")
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("frequencies per dimension, m / d")
ax.set_ylabel("mean squared error of the Gram entries")
ax.set_title("Gaussian kernel on 100 wines: random Fourier features")
ax.legend(ncols=2)
fig.tight_layout()
plt.show()
