"""
Bayesian optimisation of a one-dimensional function
====================================================

Minimise the Forrester et al. (2008) function ``(6x - 2)^2 sin(12x - 4)`` on ``[0, 1]``
(:class:`~kernelkit.optimize.Forrester`: a global minimum at ``x = 0.757`` and a local
one near 0.14) with :class:`~kernelkit.optimize.BayesianOptimizer`: a GP surrogate
(Matérn-5/2, hyperparameters refitted at every step) and expected improvement (eqs.
2.15-2.16 of the assignment), maximised by multi-start L-BFGS-B. Each panel pair is the
assignment's Figure 3, drawn by :func:`~kernelkit.optimize.plots.plot_step`: the surrogate
with its ``mu ± sigma`` band above, the acquisition that chose the next point below.
"""

import matplotlib.pyplot as plt

from kernelkit.optimize import BayesianOptimizer, Forrester
from kernelkit.optimize.plots import plot_step

objective = Forrester()
opt = BayesianOptimizer(objective, n_initial=3, exploit_every=None, random_state=0)
result = opt.run(9)
print(f"best x = {result.x_best[0]:.4f}, f = {result.y_best:.4f} (true minimum -6.0207 at 0.7572)")
print("how each point was chosen:", result.source)

# %%
# The first and the last step chosen by the acquisition. After the three initial points
# the surrogate is vague and EI explores; by the end the points cluster on the global
# minimum and EI has little left to gain anywhere.

steps = opt.acquisition_steps
fig, axes = plt.subplots(2, 2, figsize=(9, 4.5), sharex=True, gridspec_kw={"height_ratios": [2, 1]})
for column, step in enumerate([steps[0], steps[-1]]):
    plot_step(opt, step, axes=(axes[0, column], axes[1, column]))
    axes[0, column].set_title(f"evaluation {step + 1}")
fig.tight_layout()
plt.show()
