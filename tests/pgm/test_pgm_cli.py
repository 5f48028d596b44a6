"""``kernelkit pgm infer`` and ``kernelkit pgm solve`` on small UAI files."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from kernelkit import cli
from kernelkit.pgm import (
    DiscreteModel,
    apply_evidence,
    exact_log_partition,
    exact_map,
    exact_marginals,
    ising,
    read_answer,
    write_uai,
)


@pytest.fixture
def grid(tmp_path):
    """A 3x3 Ising grid with weak fields and strong couplings: the K heuristic reroots it."""
    rng = np.random.RandomState(1)
    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(3, 3))
    m = ising(
        G,
        fields=rng.uniform(-0.1, 0.1, 9),
        couplings=rng.uniform(-8, 8, G.number_of_edges()),
        spins="pm1",
    )
    path = tmp_path / "grid.uai"
    write_uai(m, path)
    return path, DiscreteModel(m.cardinalities, [(f.scope, f.table) for f in m.factors])


def run(capsys, *argv):
    code = cli.main(["pgm", "infer", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def read_results(path):
    lines = path.read_text().split("\n")
    res = {}
    for key in ("PR", "MAR", "MAP"):
        if key in lines:
            res[key] = [float(t) for t in lines[lines.index(key) + 1].split()]
    return res


@pytest.mark.parametrize("reroot", ["none", "auto"])
def test_exact_results_match_the_library(capsys, tmp_path, grid, reroot):
    path, m = grid
    out_file = tmp_path / "res.txt"
    code, out, _ = run(capsys, path, "--method", "exact", "--reroot", reroot, "--out", out_file)
    assert code == 0
    if reroot == "auto":
        assert "rerooted at variable" in out
    res = read_results(out_file)
    assert res["PR"][0] * math.log(10) == pytest.approx(exact_log_partition(m), rel=1e-10)
    mar = np.array(res["MAR"][1:]).reshape(9, 3)[:, 1:]
    np.testing.assert_allclose(mar, exact_marginals(m).marginals, atol=1e-10)
    mpe = np.array(res["MAP"][1:], dtype=int)
    assert m.score(mpe) == pytest.approx(exact_map(m).score, rel=1e-12)


def test_lp_map_through_rerooting(capsys, grid):
    path, m = grid
    code, out, _ = run(capsys, path, "--method", "lp", "--level", "L3", "--reroot", "auto")
    assert code == 0 and "integral" in out
    score = float(out.split("MAP score = ")[1].split()[0])
    assert score == pytest.approx(exact_map(m).score, rel=1e-9)


def test_fractional_lp_reports_its_bound_and_a_rounded_assignment(capsys, tmp_path):
    # the frustrated triangle: L2 has a gap. The LP value is an upper bound on the MAP
    # score and the rounded assignment a lower one; both are reported, the file written
    m = ising(nx.cycle_graph(3), couplings=-1.0, spins="pm1")
    path = tmp_path / "tri.uai"
    write_uai(m, path)
    out_file = tmp_path / "tri.MAP"
    code, out, _ = run(capsys, path, "--method", "lp", "--out", out_file)
    assert code == 0 and "not tight" in out and "upper bound" in out
    value = float(out.split("its value ")[1].split()[0])
    answer = read_answer(out_file)
    best = exact_map(m).score
    assert value >= best - 1e-9
    assert m.score(answer.assignment) <= best + 1e-12


def test_evidence_beside_the_model_is_announced_and_used(capsys, grid, tmp_path):
    path, m = grid
    beside = path  # the fixture's model, in tmp_path
    (tmp_path / (path.name + ".evid")).write_text("2 0 1 4 0\n")
    out_file = tmp_path / "r.txt"
    code, out, _ = run(capsys, beside, "--task", "logz", "--out", out_file)
    assert code == 0 and "found beside the model" in out
    want = exact_log_partition(apply_evidence(m, {0: 1, 4: 0}).model)
    assert read_answer(out_file).log10_partition * math.log(10) == pytest.approx(want, rel=1e-10)
    code, out, _ = run(capsys, beside, "--task", "logz", "--evid", "none", "--out", out_file)
    assert "found beside" not in out
    got = read_answer(out_file).log10_partition * math.log(10)
    assert got == pytest.approx(exact_log_partition(m), rel=1e-10)


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--method", "lp", "--task", "marginals"], "MAP assignment only"),
        (["--method", "lp", "--level", "SA"], "needs --r"),
        (["--show", "-1"], "--show must be >= 0"),
    ],
)
def test_bad_flags_exit_2(capsys, grid, argv, match):
    path, _ = grid
    code, _, err = run(capsys, path, *argv)
    assert code == 2 and match in err


def test_malformed_file_names_the_line(capsys, tmp_path):
    path = tmp_path / "bad.uai"
    path.write_text("MARKOV\n2\n2 2\n1\n2 0 1\n3\n1 1 1\n")
    code, _, err = run(capsys, path)
    assert code == 1 and "line 6" in err and "4 entries" in err


def test_reroot_needs_a_binary_model(capsys, tmp_path):
    path = tmp_path / "tern.uai"
    write_uai(DiscreteModel([3, 2], [((0, 1), np.zeros((3, 2)))]), path)
    code, _, err = run(capsys, path, "--reroot", "auto")
    assert code == 2 and "binary" in err


def test_bp_is_exact_on_a_tree(capsys, tmp_path):
    rng = np.random.RandomState(3)
    G = nx.random_labeled_tree(8, seed=3)
    m = ising(G, fields=rng.normal(size=8), couplings=rng.normal(size=7))
    path, out_file = tmp_path / "tree.uai", tmp_path / "res.txt"
    write_uai(m, path)
    code, out, _ = run(capsys, path, "--method", "bp", "--out", out_file)
    assert code == 0 and "did not converge" not in out
    res = read_results(out_file)
    assert res["PR"][0] * math.log(10) == pytest.approx(exact_log_partition(m), rel=1e-9)
    mar = np.array(res["MAR"][1:]).reshape(8, 3)[:, 1:]
    np.testing.assert_allclose(mar, exact_marginals(m).marginals, atol=1e-9)
    assert m.score(np.array(res["MAP"][1:], dtype=int)) == pytest.approx(exact_map(m).score)


def test_bp_marginals_through_rerooting_are_mapped_back(capsys, tmp_path, grid):
    path, m = grid
    out_file = tmp_path / "res.txt"
    code, out, _ = run(capsys, path, "--method", "bp", "--reroot", "auto", "--out", out_file)
    assert code == 0 and "rerooted at variable" in out
    mar = np.array(read_results(out_file)["MAR"][1:]).reshape(9, 3)[:, 1:]
    np.testing.assert_allclose(mar.sum(axis=1), 1.0, atol=1e-12)
    # strong couplings, weak fields: BP after rerooting is close to exact here
    np.testing.assert_allclose(mar, exact_marginals(m).marginals, atol=0.01)


def test_bp_says_how_it_ended(capsys, grid):
    path, _ = grid
    code, out, _ = run(capsys, path, "--method", "bp", "--task", "logz", "--max-iter", "1")
    assert code == 0 and "warning: BP did not converge" in out and "schedule" in out
    code, out, _ = run(capsys, path, "--method", "bp", "--task", "logz", "--schedule", "parallel")
    assert code == 0 and ("BP converged" in out or "did not converge" in out)
    assert "schedule parallel" in out


def test_the_cli_choices_are_the_librarys():
    # the CLI keeps its own tuples so that building the parser imports no NumPy; they
    # must not drift from the library's
    from kernelkit.pgm import belief_propagation, uai_answers
    from kernelkit.pgm import cli as pgm_cli

    assert pgm_cli.BP_SCHEDULES == belief_propagation._SCHEDULES
    assert pgm_cli.SOLVE_TASKS == uai_answers.TASKS
