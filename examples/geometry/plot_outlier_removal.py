"""
Outlier removal with a certificate
==================================

:func:`~kernelkit.geometry.remove_outliers` (Vempala 1997, Ch. 2, Thm 2 and §2.2) removes
points until no direction has a maximum far above its average: for the kept set ``S'``,
``max_{x in S'} (w·x)^2 <= beta E_{S'}[(w·x)^2]`` for every direction ``w`` (Lemma 2
(ii)). It works by whitening: with ``M`` the second moment of the current points (here
centred on their mean, ``centred=True``), a point's whitened squared norm ``x^T M^-1 x``
is its worst ratio over all directions, so dropping the points above ``beta`` and
repeating until none is left gives an exact certificate.

The data: 400 points of a correlated, heavy-tailed (Student-t, 2 degrees of freedom)
cloud in the plane, whose few extreme points dominate its second moment.
"""

import matplotlib.pyplot as plt
import numpy as np

from kernelkit.geometry import remove_outliers

rng = np.random.default_rng(0)
X = rng.standard_t(df=2, size=(400, 2)) @ np.array([[2.0, 0.0], [1.2, 0.6]])

beta = 20.0
result = remove_outliers(X, beta, centred=True)
print(
    f"removed {result.removed.size} of {len(X)} points in {result.n_rounds} rounds; "
    f"certificate {result.certificate:.2f} <= beta = {beta:g}"
)

# %%
# Left: the data, with the removed points in red and the ellipse ``(x - c)^T M^-1 (x - c)
# = beta`` of the kept points, which contains every one of them: that is the certificate.
# Right: the same points in the kept points' whitened coordinates ``z = (x - c) W``
# (``result.whitening``), where the kept set has identity second moment and the ellipse
# becomes the circle ``|z|^2 = beta``; the removed points lie outside it (some far beyond
# the axes' limits).

kept, removed = X[result.mask], X[~result.mask]
angles = np.linspace(0, 2 * np.pi, 200)
circle = np.sqrt(beta) * np.column_stack([np.cos(angles), np.sin(angles)])
ellipse = result.centre + circle @ np.linalg.inv(result.whitening)

fig, (ax_data, ax_white) = plt.subplots(1, 2, figsize=(10, 4.5))
ax_data.plot(*kept.T, ".", color="C0", label=f"kept ({len(kept)})")
ax_data.plot(*removed.T, "x", color="C3", label=f"removed ({len(removed)})")
ax_data.plot(*ellipse.T, "k-", linewidth=1, label=r"$(x - c)^T M^{-1} (x - c) = \beta$")
ax_data.set_xlim(-25, 25)
ax_data.set_ylim(-15, 15)
ax_data.set_title("data (zoomed in: some removed points are far out)")
ax_data.legend(loc="upper left")

Z = (X - result.centre) @ result.whitening
ax_white.plot(*Z[result.mask].T, ".", color="C0", label="kept")
ax_white.plot(*Z[~result.mask].T, "x", color="C3", label="removed")
ax_white.plot(*circle.T, "k-", linewidth=1, label=r"$|z|^2 = \beta$")
ax_white.set_xlim(-10, 10)
ax_white.set_ylim(-10, 10)
ax_white.set_aspect("equal")
ax_white.set_title("whitened by the kept points")
ax_white.legend(loc="upper left")
fig.tight_layout()
plt.show()
