"""Competition-style models for ``benchmarks/uai.py``: generated, seeded, with evidence.

Four families, after the UAI 2014 PR/MAR/MAP sets:

* ``grid``: binary ``L x L`` grids (the UAI "Grids" models): fields ``U(-1, 1)``,
  couplings ``U(-C, C)`` in the ``pm1`` parametrisation; no determinism. Induced width
  ``L``.
* ``pedigree``: genetic linkage of one biallelic locus on a pedigree of ``n``
  individuals over several generations (the "Pedigree" / "linkage" models): a genotype
  variable per individual (3 values: 0, 1, 2 copies of the allele), Hardy-Weinberg
  priors for the founders, Mendelian transmission tables for the others (zeros: a child
  of two ``0`` parents cannot carry the allele), and a binary phenotype per individual
  with a penetrance table. Spouses are drawn from the same population, so marriages
  between relatives close loops. Evidence: the phenotypes of a random subset, sampled
  from the model (so ``P(e) > 0``).
* ``csp``: random constraint networks (the "CSP" models): ``n`` variables of domain
  ``d``, binary and ternary constraints forbidding a fraction ``t`` of their tuples
  (zeros) with random positive weights on the others. May be infeasible (``PR = -inf``).
* ``bnlearn``: the bnlearn networks bundled with pgmpy, their CPDs converted to factors
  (see :func:`bnlearn` for why not through pgmpy's ``UAIWriter``); evidence on a random
  subset of variables, sampled exactly (so ``P(e) > 0``).

Each generator returns a :class:`Case`: a name, the model, the evidence and its family.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

from kernelkit.pgm import DiscreteModel, apply_evidence, ising

#: The bnlearn networks of the issue, bundled with pgmpy 1.x.
BNLEARN = (
    "alarm",
    "child",
    "insurance",
    "water",
    "hailfinder",
    "hepar2",
    "win95pts",
    "andes",
)


@dataclass
class Case:
    name: str
    family: str
    model: DiscreteModel
    evidence: dict[int, int] = field(default_factory=dict)

    @cached_property
    def conditioned(self) -> DiscreteModel:
        """The model with the evidence applied (computed once)."""
        return apply_evidence(self.model, self.evidence).model


def ising_grid(L: int, coupling: float, rng: np.random.Generator) -> DiscreteModel:
    """An L x L Ising grid of +-1 spins, fields U(-1, 1) and couplings U(-C, C)."""
    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(L, L))
    return ising(
        G,
        fields=rng.uniform(-1.0, 1.0, G.number_of_nodes()),
        couplings=rng.uniform(-coupling, coupling, G.number_of_edges()),
        spins="pm1",
    )


def grid(L: int, coupling: float, seed: int) -> Case:
    rng = np.random.default_rng([L, int(coupling * 100), seed])
    return Case(f"grid{L}x{L}-C{coupling:g}-s{seed}", "grid", ising_grid(L, coupling, rng))


def load_network(name: str) -> Any:
    """The bnlearn network ``name`` from the BIF file bundled with pgmpy (offline; pgmpy's
    newer ``load_model`` downloads it instead)."""
    import gzip

    import pgmpy
    from pgmpy.readwrite import BIFReader

    path = Path(pgmpy.__file__).parent / "utils" / "example_models" / f"{name}.bif.gz"
    return BIFReader(string=gzip.decompress(path.read_bytes()).decode("utf-8")).get_model()


def _mendel() -> np.ndarray:
    """``T[f, m, c] = P(child has c copies | father f, mother m copies)``."""
    t = np.array([0.0, 0.5, 1.0])  # probability a parent with k copies transmits the allele
    T = np.zeros((3, 3, 3))
    for f in range(3):
        for m in range(3):
            a, b = t[f], t[m]
            T[f, m] = [(1 - a) * (1 - b), a * (1 - b) + (1 - a) * b, a * b]
    return T


def pedigree(n: int, seed: int, observed: float = 0.5) -> Case:
    """``n`` individuals in generations of about 12; the first generation founders."""
    rng = np.random.default_rng([n, seed, 7])
    p = rng.uniform(0.1, 0.4)  # allele frequency
    prior = np.array([(1 - p) ** 2, 2 * p * (1 - p), p**2])
    penetrance = np.array([[0.95, 0.05], [0.8, 0.2], [0.1, 0.9]])  # P(phenotype | genotype)
    T = _mendel()
    gen_size = 12
    generation = np.arange(n) // gen_size
    parents: list[tuple[int, int] | None] = []
    for i in range(n):
        if generation[i] == 0:
            parents.append(None)
            continue
        pool = np.flatnonzero(generation < generation[i])
        pool = pool[pool >= max(0, (generation[i] - 2) * gen_size)]  # the last two generations
        if rng.random() < 0.2 or pool.size < 2:  # a founder marrying in
            parents.append(None)
            continue
        f, m = rng.choice(pool, size=2, replace=False)
        parents.append((int(f), int(m)))
    cards = [3] * n + [2] * n  # genotypes 0..n-1, phenotypes n..2n-1
    factors: list[tuple[tuple[int, ...], np.ndarray]] = []
    with np.errstate(divide="ignore"):
        for i, pa in enumerate(parents):
            if pa is None:
                factors.append(((i,), np.log(prior)))
            else:
                factors.append(((pa[0], pa[1], i), np.log(T)))
            factors.append(((i, n + i), np.log(penetrance)))
    model = DiscreteModel(cards, factors)
    # forward sample for evidence on the phenotypes
    g = np.empty(n, dtype=int)
    for i, pa in enumerate(parents):
        probs = prior if pa is None else T[g[pa[0]], g[pa[1]]]
        g[i] = rng.choice(3, p=probs)
    ph = np.array([rng.choice(2, p=penetrance[g[i]]) for i in range(n)])
    seen = np.flatnonzero(rng.random(n) < observed)
    evidence = {int(n + i): int(ph[i]) for i in seen}
    return Case(f"pedigree{n}-s{seed}", "pedigree", model, evidence)


def csp(n: int, domain: int, n_constraints: int, tightness: float, seed: int) -> Case:
    rng = np.random.default_rng([n, domain, n_constraints, int(tightness * 100), seed])
    factors = []
    for _ in range(n_constraints):
        arity = 2 if rng.random() < 0.7 else 3
        scope = tuple(int(v) for v in rng.choice(n, size=arity, replace=False))
        table = rng.normal(0, 0.5, size=(domain,) * arity)
        table[rng.random(table.shape) < tightness] = -np.inf
        factors.append((scope, table))
    for v in range(n):  # unary preferences
        factors.append(((v,), rng.normal(0, 0.5, size=domain)))
    return Case(
        f"csp{n}-d{domain}-c{n_constraints}-t{tightness:g}-s{seed}",
        "csp",
        DiscreteModel([domain] * n, factors),
    )


def bnlearn(name: str, seed: int, observed: float = 0.1) -> Case:
    """A bnlearn network as a model (one factor per CPD, the child last in its scope, as the
    UAI ``BAYES`` format orders it), with forward-sampled evidence on a fraction
    ``observed`` of its variables. Variables are the network's nodes in sorted order.

    pgmpy's ``UAIWriter`` is not used: it writes each table with the child varying
    slowest, against the format (the last scope variable varies fastest), and its
    ``UAIReader`` reads them back the same way; any reader that follows the format sees
    other (unnormalised) tables. We convert the CPDs ourselves."""
    import logging

    logging.getLogger("pgmpy").setLevel(logging.ERROR)
    net = load_network(name)
    names = sorted(net.nodes())
    index = {v: i for i, v in enumerate(names)}
    cards = [int(net.get_cardinality(v)) for v in names]
    factors = []
    with np.errstate(divide="ignore"):
        for cpd in net.get_cpds():
            scope = cpd.variables  # child first, then its parents
            table = np.asarray(cpd.get_values()).reshape([cards[index[v]] for v in scope])
            factors.append(
                (tuple(index[v] for v in [*scope[1:], scope[0]]), np.log(np.moveaxis(table, 0, -1)))
            )
    model = DiscreteModel(cards, factors)
    rng = np.random.default_rng([model.n_variables, seed])
    chosen = np.flatnonzero(rng.random(model.n_variables) < observed)
    evidence = sample_evidence(model, chosen, rng)
    return Case(f"{name}-s{seed}", "bnlearn", model, evidence)


def sample_evidence(
    model: DiscreteModel, variables: np.ndarray, rng: np.random.Generator
) -> dict[int, int]:
    """Values of ``variables`` drawn exactly from the model's joint marginal, one variable
    at a time, each from its exact marginal given the values drawn before (so the evidence
    has ``P(e) > 0``)."""
    from kernelkit.pgm import apply_evidence, exact_marginals

    drawn: dict[int, int] = {}
    for v in variables:
        c = apply_evidence(model, drawn)
        p = c.to_original_marginals(exact_marginals(c.model).marginals)[int(v)]
        drawn[int(v)] = int(rng.choice(p.size, p=p / p.sum()))
    return drawn
