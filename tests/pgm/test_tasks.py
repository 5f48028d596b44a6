"""``pgm.solve`` and ``kernelkit pgm solve``: UAI tasks with evidence, exact or bounded."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
from scipy.special import logsumexp

from kernelkit import cli
from kernelkit.pgm import (
    DiscreteModel,
    brute_force_log_partition,
    brute_force_map,
    brute_force_marginals,
    ising,
    read_answer,
    solve,
    write_uai,
)


def small_model(seed: int, zeros: float = 0.0) -> DiscreteModel:
    """Six variables of domains 2-3, pairwise and triple factors; ``zeros``: the fraction
    of table entries forbidden (determinism)."""
    rng = np.random.default_rng(seed)
    cards = rng.integers(2, 4, size=6).tolist()
    scopes = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0), (0, 2, 4), (1,)]
    factors = []
    for sc in scopes:
        t = rng.normal(0, 1, size=[cards[v] for v in sc])
        t[rng.random(t.shape) < zeros] = -np.inf
        factors.append((sc, t))
    return DiscreteModel(cards, factors)


def scores(model: DiscreteModel) -> tuple[np.ndarray, np.ndarray]:
    X = np.array(list(itertools.product(*(range(c) for c in model.cardinalities))))
    return X, model.score(X)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("zeros", [0.0, 0.3])
def test_pr_with_evidence_is_log_of_the_consistent_sum(seed: int, zeros: float) -> None:
    m = small_model(seed, zeros)
    X, s = scores(m)
    evidence = {1: 1, 4: 0}
    keep = (X[:, 1] == 1) & (X[:, 4] == 0)
    want = logsumexp(s[keep]) if np.isfinite(s[keep]).any() else -np.inf
    sol = solve(m, "PR", evidence=evidence)
    assert sol.exact and sol.evidence == evidence
    assert sol.log_partition == pytest.approx(want, rel=1e-10, abs=1e-12)
    assert sol.lower == sol.upper == sol.log_partition and sol.gap == 0.0
    assert sol.answer().log10_partition == pytest.approx(want / math.log(10), abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_mar_and_map_with_evidence_equal_enumeration(seed: int) -> None:
    m = small_model(seed, 0.2)
    X, s = scores(m)
    evidence = {2: 0}
    keep = X[:, 2] == 0
    if not np.isfinite(s[keep]).any():
        pytest.skip("the evidence forbids every assignment for this seed")
    p = np.exp(s[keep] - logsumexp(s[keep]))
    sol = solve(m, "MAR", evidence=evidence)
    assert sol.exact and len(sol.marginals) == m.n_variables
    for v, c in enumerate(m.cardinalities):
        want = np.bincount(X[keep, v], weights=p, minlength=c)
        np.testing.assert_allclose(sol.marginals[v], want, atol=1e-10)
    sol = solve(m, "MAP", evidence=evidence)
    assert sol.exact and sol.assignment[2] == 0
    assert sol.score == pytest.approx(s[keep].max(), rel=1e-12)
    assert m.score(sol.assignment) == pytest.approx(sol.score, rel=1e-12)


def test_mmap_equals_enumeration_of_the_query() -> None:
    m = small_model(5, 0.1)
    X, s = scores(m)
    query = (0, 3)
    best = -np.inf
    for values in itertools.product(*(range(m.cardinalities[v]) for v in query)):
        keep = (X[:, 0] == values[0]) & (X[:, 3] == values[1])
        if np.isfinite(s[keep]).any():
            best = max(best, logsumexp(s[keep]))
    sol = solve(m, "MMAP", query=list(query))
    assert sol.exact and sol.query == query
    assert sol.score == pytest.approx(best, rel=1e-10)
    keep = (X[:, 0] == sol.assignment[0]) & (X[:, 3] == sol.assignment[1])
    assert logsumexp(s[keep]) == pytest.approx(best, rel=1e-10)
    assert sol.answer().query == {0: int(sol.assignment[0]), 3: int(sol.assignment[1])}


def test_every_assignment_forbidden_gives_pr_minus_inf_not_a_crash() -> None:
    m = DiscreteModel([2, 2], [((0, 1), np.array([[0.0, -np.inf], [-np.inf, 0.0]]))])
    sol = solve(m, "PR", evidence={0: 0, 1: 1})
    assert sol.exact and sol.log_partition == -np.inf
    assert sol.answer().log10_partition == -np.inf
    sol = solve(m, "MAP", evidence={0: 0, 1: 1})
    assert sol.assignment is None and "forbidden" in sol.message
    sol = solve(m, "MAR", evidence={0: 0, 1: 1})
    assert sol.marginals is None and "forbidden" in sol.message


def test_results_do_not_depend_on_the_memory_cap_when_exact_fits() -> None:
    m = small_model(2, 0.1)
    a = solve(m, "PR")
    b = solve(m, "PR", memory_limit=2**26)
    assert a.exact and b.exact and a.log_partition == b.log_partition


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(task="XYZ"), "task must be one of PR, MAR, MAP, MMAP"),
        (dict(task="PR", time_limit=0), "time_limit must be > 0"),
        (dict(task="PR", time_limit=-1.0), "time_limit must be > 0"),
        (dict(task="PR", memory_limit=0), "memory_limit must be > 0"),
        (dict(task="PR", memory_limit=float("nan")), "memory_limit must be finite"),
        (dict(task="PR", evidence={9: 0}), "9"),
        (dict(task="PR", evidence={0: 5}), "5"),
        (dict(task="MMAP"), "needs query"),
        (dict(task="MMAP", query=[7]), "variable 7, not in 0..5"),
        (dict(task="MMAP", query=[1], evidence={1: 0}), "which the evidence observes"),
        (dict(task="MMAP", query=[1, 1]), "twice"),
        (dict(task="MAP", query=[1]), "MMAP' only"),
    ],
)
def test_bad_arguments_are_named(kwargs: dict, match: str) -> None:
    m = small_model(0)
    task = kwargs.pop("task")
    with pytest.raises(ValueError, match=match):
        solve(m, task, **kwargs)


# -- the command -------------------------------------------------------------------------------


@pytest.fixture
def grid_file(tmp_path):
    rng = np.random.RandomState(3)
    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(3, 3))
    m = ising(G, fields=rng.uniform(-1, 1, 9), couplings=rng.uniform(-1, 1, 12))
    path = tmp_path / "grid.uai"
    write_uai(m, path)
    return path, m


@pytest.mark.parametrize("task", ["PR", "MAR", "MAP"])
def test_the_command_writes_the_uai_answer_with_the_evidence_beside(
    capsys, tmp_path, grid_file, task
) -> None:
    path, m = grid_file
    (tmp_path / "grid.uai.evid").write_text("1 4 1\n")
    out_file = tmp_path / f"grid.{task}"
    code = cli.main(["pgm", "solve", str(path), "--task", task, "--out", str(out_file)])
    out = capsys.readouterr().out
    assert code == 0 and "found beside the model" in out and "exact" in out
    answer = read_answer(out_file)
    X, s = scores(m)
    keep = X[:, 4] == 1
    if task == "PR":
        want = logsumexp(s[keep]) / math.log(10)
        assert answer.log10_partition == pytest.approx(want, rel=1e-10)
    elif task == "MAR":
        p = np.exp(s[keep] - logsumexp(s[keep]))
        np.testing.assert_allclose(
            answer.marginals[0], np.bincount(X[keep, 0], weights=p, minlength=2), atol=1e-10
        )
        np.testing.assert_allclose(answer.marginals[4], [0.0, 1.0])
    else:
        assert m.score(answer.assignment) == pytest.approx(s[keep].max(), rel=1e-12)


def test_the_command_mmap_reads_the_query_file(capsys, tmp_path, grid_file) -> None:
    path, m = grid_file
    (tmp_path / "grid.uai.query").write_text("2 0 8\n")
    out_file = tmp_path / "grid.MMAP"
    code = cli.main(["pgm", "solve", str(path), "--task", "mmap", "--out", str(out_file)])
    assert code == 0
    got = read_answer(out_file).query
    assert set(got) == {0, 8}
    want = solve(m, "MMAP", query=[0, 8])
    assert got == {0: int(want.assignment[0]), 8: int(want.assignment[1])}


@pytest.mark.parametrize(
    "argv, match",
    [
        (["--task", "PR", "--time-limit", "0"], "--time-limit must be a positive number"),
        (["--task", "PR", "--memory-limit", "-2"], "--memory-limit must be a positive number"),
        (["--task", "MMAP"], "needs --query"),
        (["--task", "PR", "--query", "q"], "--query is for --task MMAP only"),
    ],
)
def test_the_command_names_bad_flags(capsys, grid_file, argv, match) -> None:
    path, _ = grid_file
    code = cli.main(["pgm", "solve", str(path), "--evid", "none", *argv])
    assert code == 2 and match in capsys.readouterr().err


def test_brute_force_references_agree_with_the_enumeration_helper() -> None:
    # the helpers above enumerate by hand; the library's references agree with them
    m = small_model(1, 0.2)
    _, s = scores(m)
    assert brute_force_log_partition(m) == pytest.approx(logsumexp(s), rel=1e-12)
    assert brute_force_map(m).score == pytest.approx(s.max(), rel=1e-12)
    assert len(brute_force_marginals(m).marginals) == m.n_variables


# -- beyond exact: bounds ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def wide_grid():
    """A 12 x 12 grid (width 12): exact fits in a few MiB, so a smaller cap forces bounds
    and exact inference checks them."""
    rng = np.random.RandomState(7)
    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(12, 12))
    m = ising(G, fields=rng.uniform(-1, 1, 144), couplings=rng.uniform(-1.5, 1.5, 264), spins="pm1")
    return m


def test_pr_beyond_the_memory_cap_is_bounded_and_says_so(wide_grid) -> None:
    exact = solve(wide_grid, "PR", evidence={5: 1})
    sol = solve(wide_grid, "PR", evidence={5: 1}, memory_limit=2**15, time_limit=3, random_state=0)
    assert exact.exact and not sol.exact
    assert "not exact: variable elimination would need" in sol.message
    assert "memory cap" in sol.message
    assert sol.lower <= exact.log_partition <= sol.upper
    assert sol.lower <= sol.log_partition <= sol.upper
    assert sol.gap > 0 and sol.log10_gap == pytest.approx(sol.gap / math.log(10))
    assert 0 < sol.confidence <= 1
    again = solve(
        wide_grid, "PR", evidence={5: 1}, memory_limit=2**15, time_limit=3, random_state=0
    )
    assert again.upper == sol.upper  # the upper bound is deterministic


def test_map_and_mar_beyond_the_memory_cap(wide_grid) -> None:
    exact = solve(wide_grid, "MAP")
    sol = solve(wide_grid, "MAP", memory_limit=2**15, time_limit=3)
    assert sol.lower - 1e-9 <= exact.score <= sol.upper + 1e-9
    assert wide_grid.score(sol.assignment) == pytest.approx(sol.score, rel=1e-12)
    assert sol.score == sol.lower > -np.inf
    mar = solve(wide_grid, "MAR", memory_limit=2**15)
    assert not mar.exact and mar.method in ("loopy BP", "mean field")
    assert len(mar.marginals) == wide_grid.n_variables
    for p in mar.marginals:
        assert np.all(np.isfinite(p)) and p.sum() == pytest.approx(1.0)


def test_the_command_prints_the_bounds_when_not_exact(capsys, tmp_path, wide_grid) -> None:
    path = tmp_path / "g.uai"
    write_uai(wide_grid, path)
    out_file = tmp_path / "g.PR"
    argv = ["pgm", "solve", str(path), "--task", "PR", "--memory-limit", str(2**15 / 2**30)]
    code = cli.main([*argv, "--time-limit", "3", "--out", str(out_file)])
    out = capsys.readouterr().out
    assert code == 0 and "not exact" in out and "bounds (log10): [" in out and "gap" in out
    exact = solve(wide_grid, "PR").log_partition / math.log(10)
    got = read_answer(out_file).log10_partition
    lo, hi = (float(x) for x in out.split("bounds (log10): [")[1].split("]")[0].split(","))
    assert lo <= exact <= hi and lo <= got <= hi
