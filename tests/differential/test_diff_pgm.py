"""Exact log Z and single-variable marginals (kernelkit.pgm.exact) against pgmpy's variable
elimination and against enumeration written here (independent of kernelkit's
``brute_force_*`` helpers).

Models: random partial k-trees (treewidth <= k by construction) with unary, pairwise and
triple factors on variables of 2 or 3 states, and Ising grids (``kernelkit.pgm.ising``,
whose row-by-row construction takes the transfer-matrix path). pgmpy gets the same model
as a ``DiscreteMarkovNetwork`` of ``exp(table)`` factors; its unnormalised marginal of one
variable sums to Z (pgmpy's default contraction; for the large partial k-trees its classic
elimination in the k-tree's own order). Fast grid: treewidth <= 4, with enumeration. Slow
grid: treewidth 6 to 12 (grids up to 12 wide, a partial 6-tree with 3-state variables, a
partial 10-tree).
"""

from __future__ import annotations

import itertools
import math
import warnings

import networkx as nx
import numpy as np
import pytest
from scipy.special import logsumexp

from kernelkit.pgm import DiscreteModel, ising
from kernelkit.pgm.exact import elimination_order, exact_log_partition, exact_marginals

pytest.importorskip("pgmpy")

LOGZ_ATOL = 1e-9
MARGINAL_ATOL = 1e-9


# ----------------------------------------------------------------------------- models
def partial_k_tree(n: int, k: int, rng: np.random.Generator, keep: float = 0.8):
    """A random k-tree on ``n`` nodes (node ``v`` joined to a k-clique among ``0 .. v-1``)
    with each edge kept with probability ``keep``, and the (k+1)-cliques it was built from
    (every triple factor lies inside one). Eliminating the nodes from ``n - 1`` down to 0
    has induced width <= k."""
    G = nx.complete_graph(k + 1)
    cliques = [tuple(range(k + 1))]
    for v in range(k + 1, n):
        base = cliques[rng.integers(len(cliques))]
        drop = base[rng.integers(len(base))]
        attach = tuple(u for u in base if u != drop)
        G.add_edges_from((v, u) for u in attach)
        cliques.append((*attach, v))
    H = nx.Graph()
    H.add_nodes_from(G)
    H.add_edges_from(e for e in G.edges if rng.random() < keep)
    return H, cliques


def random_model(n: int, k: int, seed: int, cards=(2, 3), scale: float = 1.0) -> DiscreteModel:
    """Unary factors on every variable, pairwise on the edges of a partial k-tree, and
    ``n // 3`` triple factors inside its cliques (k >= 2); tables ~ N(0, scale^2)."""
    rng = np.random.default_rng(seed)
    G, cliques = partial_k_tree(n, k, rng)
    card = rng.choice(cards, size=n)
    factors = [((i,), rng.normal(scale=scale, size=card[i])) for i in range(n)]
    for u, v in G.edges:
        factors.append(((u, v), rng.normal(scale=scale, size=(card[u], card[v]))))
    if k >= 2:
        for _ in range(n // 3):
            c = cliques[rng.integers(len(cliques))]
            scope = tuple(int(x) for x in rng.choice(c, size=3, replace=False))
            factors.append((scope, rng.normal(scale=scale, size=tuple(card[list(scope)]))))
    return DiscreteModel(card, factors)


def ising_grid(rows: int, cols: int, seed: int, scale: float = 0.5) -> DiscreteModel:
    rng = np.random.default_rng(seed)
    G = nx.grid_2d_graph(rows, cols)
    return ising(
        G,
        fields=rng.normal(scale=scale, size=rows * cols),
        couplings=rng.normal(scale=scale, size=G.number_of_edges()),
        spins="pm1",
    )


# ----------------------------------------------------------------------------- references
def enumerate_model(model: DiscreteModel) -> tuple[float, list[np.ndarray]]:
    """log Z and the marginals by summing over every assignment."""
    cards = [int(c) for c in model.cardinalities]
    assignments = np.indices(cards, dtype=np.int8).reshape(len(cards), -1)
    score = np.zeros(assignments.shape[1])
    for f in model.factors:
        score += np.asarray(f.table)[tuple(assignments[list(f.scope)])]
    log_z = float(logsumexp(score))
    p = np.exp(score - log_z)
    marginals = [np.bincount(assignments[i], weights=p, minlength=c) for i, c in enumerate(cards)]
    return log_z, marginals


def pgmpy_network(model: DiscreteModel):
    from pgmpy.factors.discrete import DiscreteFactor
    from pgmpy.models import DiscreteMarkovNetwork

    names = [f"x{i}" for i in range(model.n_variables)]
    net = DiscreteMarkovNetwork()
    net.add_nodes_from(names)
    for f in model.factors:
        net.add_edges_from(itertools.combinations([names[v] for v in f.scope], 2))
    net.add_factors(
        *[
            DiscreteFactor(
                [names[v] for v in f.scope],
                [int(model.cardinalities[v]) for v in f.scope],
                np.exp(f.table),
            )
            for f in model.factors
        ]
    )
    return net, names


def pgmpy_exact(model: DiscreteModel, marginals: bool = True, order: list[int] | None = None):
    """pgmpy's log Z and (normalised) marginals, by variable elimination: its default
    (one ``opt_einsum`` contraction, greedy path), or its classic elimination in ``order``
    (variable indices; given for the partial k-trees, where the greedy contraction path
    of pgmpy 1.1.2 asks for tables of 2^30 entries at k = 10)."""
    from pgmpy.inference import VariableElimination

    net, names = pgmpy_network(model)

    def query(i: int) -> np.ndarray:
        kw = {}
        if order is not None:
            kw["elimination_order"] = [names[v] for v in order if v != i]
        phi = ve.query([names[i]], show_progress=False, **kw)
        return np.asarray(phi.values, dtype=float)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        ve = VariableElimination(net)
        log_z = float(np.log(np.sum(query(0))))
        if not marginals:
            return log_z, None
        # one query per variable: pgmpy's query(names, joint=False) contracts to the joint
        # table of all of them first (2^n entries)
        out = [v / v.sum() for v in map(query, range(model.n_variables))]
    return log_z, out


def _compare(model: DiscreteModel, label: str, enumerate_too: bool, order=None) -> None:
    width = elimination_order(model).induced_width
    log_z = exact_log_partition(model)
    mar = exact_marginals(model)
    ref_z, ref_mar = pgmpy_exact(model, order=order)
    lines = [f"PGM {label}: n={model.n_variables} width={width} log Z={log_z:.10f}"]
    lines.append(f"|dlogZ| pgmpy {abs(log_z - ref_z):.2e}")
    assert mar.log_partition == pytest.approx(log_z, abs=LOGZ_ATOL)
    assert abs(log_z - ref_z) <= LOGZ_ATOL * max(1.0, abs(ref_z))
    assert ref_mar is not None
    dm = max(float(np.abs(p - q).max()) for p, q in zip(mar.marginals, ref_mar, strict=True))
    lines.append(f"max |dmarginal| pgmpy {dm:.2e}")
    assert dm <= MARGINAL_ATOL
    if enumerate_too:
        bz, bmar = enumerate_model(model)
        dm = max(float(np.abs(p - q).max()) for p, q in zip(mar.marginals, bmar, strict=True))
        lines.append(f"|dlogZ| enumeration {abs(log_z - bz):.2e} max |dmarginal| {dm:.2e}")
        assert abs(log_z - bz) <= LOGZ_ATOL * max(1.0, abs(bz))
        assert dm <= MARGINAL_ATOL
    print(", ".join(lines))


# ----------------------------------------------------------------------------- fast grid
@pytest.mark.parametrize(("k", "seed"), [(1, 0), (2, 1), (3, 2), (4, 3), (4, 4)])
def test_random_partial_k_trees_equal_pgmpy_and_enumeration(k, seed):
    _compare(random_model(n=12, k=k, seed=seed), f"partial {k}-tree seed {seed}", True)


@pytest.mark.parametrize(("rows", "cols"), [(4, 4), (3, 6)])
def test_small_ising_grids_equal_pgmpy_and_enumeration(rows, cols):
    _compare(ising_grid(rows, cols, seed=rows * 10 + cols), f"ising {rows}x{cols}", True)


def test_strong_potentials_and_zero_entries():
    """Potentials ~ N(0, 3^2) and some zero-probability entries (-inf log potentials)."""
    model = random_model(n=10, k=3, seed=7, scale=3.0)
    rng = np.random.default_rng(8)
    factors = []
    for f in model.factors:
        table = np.array(f.table, dtype=float)
        if f.arity == 2:
            table[rng.random(table.shape) < 0.15] = -np.inf
        factors.append((f.scope, table))
    model = DiscreteModel(model.cardinalities, factors)
    assert math.isfinite(exact_log_partition(model))
    _compare(model, "strong potentials with zeros", enumerate_too=True)


# ----------------------------------------------------------------------------- slow grid
@pytest.mark.slow
@pytest.mark.parametrize(
    ("rows", "cols"), [(6, 6), (8, 8), (10, 10), (12, 12), (12, 20)], ids=lambda v: str(v)
)
def test_ising_grids_up_to_treewidth_12_equal_pgmpy(rows, cols):
    # the printed width is that of kernelkit's elimination order (the grid's treewidth is
    # min(rows, cols)); a grid built row by row is also solved by transfer matrices
    _compare(ising_grid(rows, cols, seed=rows * 100 + cols), f"ising {rows}x{cols}", False)


@pytest.mark.slow
@pytest.mark.parametrize(("n", "k", "cards"), [(30, 6, (2, 3)), (40, 10, (2,))])
def test_random_partial_k_trees_of_large_width_equal_pgmpy(n, k, cards):
    model = random_model(n=n, k=k, seed=n + k, cards=cards, scale=0.7)
    order = list(range(n - 1, -1, -1))  # induced width <= k
    _compare(model, f"partial {k}-tree n={n}", enumerate_too=False, order=order)
