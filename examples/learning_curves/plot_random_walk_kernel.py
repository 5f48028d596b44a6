"""
The random walk kernel on a regular graph
=========================================

The random walk kernel ``C = (I - L/a)^p`` (Urry & Sollich 2013, eqs. 2-3;
:func:`~kernelkit.graphs.random_walk_kernel`) on a random 3-regular graph with 500
vertices, locally normalised to a unit diagonal, as a function of the distance between
two vertices. ``p / a`` is its range in steps of the walk.

A large random regular graph looks locally like the infinite 3-regular tree: few short
cycles. On the tree every vertex is alike, and the whole kernel is one profile
``C_{l,p}`` over the distance ``l`` (:func:`~kernelkit.graphs.regular_tree_kernel`, the
recursion of eq. 4). The graph's kernel follows it until the walks are long enough to
feel that the graph is finite (Fig. 1 of the paper).
"""

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
from scipy.sparse.csgraph import shortest_path

from kernelkit.graphs import random_regular_graph, random_walk_kernel, regular_tree_kernel

G = random_regular_graph(3, 500, random_state=0)
distance = shortest_path(nx.to_scipy_sparse_array(G), unweighted=True)
print(f"{G.number_of_nodes()} vertices, diameter {int(distance.max())}")

# %%
# For each ``p``: the mean (and the spread) of ``C_ij`` over the vertex pairs at each
# distance (the band holds 80 % of the pairs), against the tree's profile, which is
# exactly 0 beyond ``l = p``. Short walks (``p`` up to 10) see a tree. For ``p = 40`` the
# graph's kernel decays more slowly than the tree's: on a finite graph long walks spread
# over the whole graph and close cycles (as ``p`` grows, ``C`` tends to the constant
# matrix), while on the tree they keep escaping to ever more distant vertices.

a, l_max = 2.0, 12
fig, ax = plt.subplots(figsize=(6.5, 4))
for colour, p in zip(["C0", "C1", "C2", "C3"], [1, 5, 10, 40], strict=True):
    C = random_walk_kernel(G, a=a, p=p, normalize="local")
    ls = np.arange(int(distance.max()) + 1)
    graph_mean = np.array([C[distance == l].mean() for l in ls])
    graph_lo = np.array([np.percentile(C[distance == l], 10) for l in ls])
    graph_hi = np.array([np.percentile(C[distance == l], 90) for l in ls])
    tree = regular_tree_kernel(3, a, p, l_max)
    tree[tree == 0] = np.nan  # no line on the log scale where the profile is exactly 0
    ax.fill_between(ls, graph_lo, graph_hi, color=colour, alpha=0.2, linewidth=0)
    ax.plot(ls, graph_mean, "o", color=colour, markersize=4, label=f"graph, p = {p}")
    ax.plot(np.arange(l_max + 1), tree, "-", color=colour, label=f"tree, p = {p}")
ax.set_yscale("log")
ax.set_ylim(1e-4, 1.5)
ax.set_xlim(-0.3, l_max)
ax.set_xlabel("distance l between the vertices")
ax.set_ylabel(r"$C_{ij}$ (unit diagonal)")
ax.set_title(f"random walk kernel, a = {a:g}, on a random 3-regular graph")
ax.legend(ncols=2, fontsize=7)
fig.tight_layout()
plt.show()
