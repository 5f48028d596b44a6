"""UAI evidence and result files, and conditioning on evidence, against enumeration."""

from __future__ import annotations

import doctest
import gzip
import io
import itertools
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp

import kernelkit.pgm.uai_answers as uai_answers
from kernelkit.pgm import DiscreteModel, ising
from kernelkit.pgm.exact import (
    brute_force_log_partition,
    brute_force_marginals,
    exact_log_partition,
)
from kernelkit.pgm.transforms import clamp
from kernelkit.pgm.uai import UAIFormatError, read_uai
from kernelkit.pgm.uai_answers import (
    TASKS,
    ConditionedModel,
    UAIAnswer,
    apply_evidence,
    read_answer,
    read_evidence,
    write_answer,
)


def test_doctests():
    assert doctest.testmod(uai_answers).failed == 0


MODEL = DiscreteModel([2, 2, 3], [((0, 1), np.zeros((2, 2))), ((1, 2), np.zeros((2, 3)))])


# -- reading evidence ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2 1 0 2 1", {1: 0, 2: 1}),  # UAI 2014
        ("2\n1 0\n2 1\n", {1: 0, 2: 1}),  # pairs over lines
        ("1\n2 1 0 2 1\n", {1: 0, 2: 1}),  # 2008-2012, one sample
        ("1 2 1 0 2 1", {1: 0, 2: 1}),
        ("1 0 1", {0: 1}),  # 2014: one pair
        ("1 0", {}),  # 2008-2012: one sample of no evidence
        ("0", {}),
        ("0\n", {}),
        ("", {}),
        ("c no evidence\n# at all\n", {}),
        ("3 0 1 2 2 0 1", {0: 1, 2: 2}),  # the same value twice is no conflict
    ],
)
def test_evidence_in_both_formats(text, expected):
    assert read_evidence(io.StringIO(text), MODEL) == expected


def test_evidence_files_gzip_bom_and_comments(tmp_path):
    text = "c evidence\n# from pgmpy\n2 1 0\n  2 1\n"
    plain = tmp_path / "m.uai.evid"
    plain.write_text(text)
    gz = tmp_path / "m.uai.evid.gz"
    gz.write_bytes(gzip.compress(text.encode("utf-8-sig")))
    bom = tmp_path / "bom.evid"
    bom.write_bytes(text.encode("utf-8-sig"))
    for path in (plain, gz, bom, str(plain)):
        assert read_evidence(path, MODEL) == {1: 0, 2: 1}


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("2 1 0 2 x", r"line 1: expected an integer .*got 'x'"),
        ("2 1 0\n2 1.0", r"line 2: expected an integer .*got '1\.0'"),
        ("2 1 0 2", r"has 4 tokens and fits neither the UAI 2014 format .*k = 2, so 5 tokens"),
        ("3 1 0 2 1", r"has 5 tokens and fits neither .*k = 3, so 7 tokens"),
        ("-1", r"fits neither .*k = -1, but k must be >= 0"),
        ("2\n1 0 1\n1 2 0\n", r"holds 2 evidence samples .*one evidence set at a time"),
        ("1 3 0", r"line 1: variable 3 is not in 0\.\.2: the evidence file does not match"),
        ("1 -1 0", r"variable -1 is not in 0\.\.2"),
        ("1 2 3", r"line 1: value 3 of variable 2 is outside its domain 0\.\.2 \(cardinality 3\)"),
        ("1\n0\n-1", r"line 3: value -1 of variable 0 is outside its domain 0\.\.1"),
        ("2 1 0\n1 1\n", r"line 2: variable 1 is observed twice, with values 0 and 1"),
    ],
)
def test_bad_evidence_is_named(text, match):
    with pytest.raises(UAIFormatError, match=match):
        read_evidence(io.StringIO(text), MODEL)


def test_bad_evidence_names_the_file(tmp_path):
    path = tmp_path / "bad.evid"
    path.write_text("1 7 0\n")
    with pytest.raises(UAIFormatError, match=r"bad\.evid, line 1: variable 7"):
        read_evidence(path, MODEL)
    path.write_bytes(b"1 0 \xff\n")
    with pytest.raises(UAIFormatError, match=r"bad\.evid, line 1: expected UTF-8 text or a gzip"):
        read_evidence(path, MODEL)
    with pytest.raises(UAIFormatError, match=r"variable 0 is not a variable of the model"):
        read_evidence(io.StringIO("1 0 0"), DiscreteModel([], []))


def test_read_evidence_needs_a_model():
    with pytest.raises(TypeError, match="model must be a DiscreteModel"):
        read_evidence(io.StringIO("0"), "model.uai")


# -- conditioning on evidence against enumeration -----------------------------------------------


def random_model(rng, n, zeros):
    """A random model with unary, pairwise and triple factors; with ``zeros``, about a
    quarter of the entries are -inf (hard constraints, as in determinism)."""
    cards = rng.randint(1, 4, size=n).tolist()
    factors = []
    for _ in range(rng.randint(0, 2 * n + 1)):
        arity = rng.randint(0, min(n, 3) + 1)
        scope = tuple(int(v) for v in rng.choice(n, arity, replace=False))
        table = rng.normal(scale=1.5, size=tuple(cards[v] for v in scope))
        if zeros:
            table = np.where(rng.rand(*table.shape) < 0.25, -np.inf, table)
        factors.append((scope, table))
    return DiscreteModel(cards, factors)


def random_evidence(rng, model):
    n = model.n_variables
    k = rng.randint(0, n + 1)
    return {int(v): int(rng.randint(model.cardinalities[v])) for v in rng.permutation(n)[:k]}


def all_assignments(model):
    rows = list(itertools.product(*[range(c) for c in model.cardinalities]))
    return np.array(rows, dtype=np.int64).reshape(len(rows), model.n_variables)


def conditioned_by_enumeration(model, evidence):
    """log Z with evidence and the marginals of every variable, by enumerating the
    assignments of ``model`` that agree with the evidence."""
    X = all_assignments(model)
    keep = np.all([X[:, v] == x for v, x in evidence.items()], axis=0) if evidence else None
    if keep is not None:
        X = X[keep]
    scores = model.score(X) if len(X) else np.array([])
    log_z = float(logsumexp(scores)) if np.isfinite(scores).any() else -np.inf
    marginals = None
    if np.isfinite(log_z):
        w = np.exp(scores - log_z)
        marginals = [
            np.bincount(X[:, i], weights=w, minlength=int(c))
            for i, c in enumerate(model.cardinalities)
        ]
    return log_z, marginals


@pytest.mark.parametrize("zeros", [False, True])
@pytest.mark.parametrize("seed", range(25))
def test_apply_evidence_equals_enumeration(seed, zeros):
    rng = np.random.RandomState(seed)
    m = random_model(rng, rng.randint(1, 7), zeros)
    evidence = random_evidence(rng, m)
    c = apply_evidence(m, evidence)
    assert isinstance(c, ConditionedModel)
    assert c.observed == evidence
    assert c.free.tolist() == [i for i in range(m.n_variables) if i not in evidence]
    assert c.model.cardinalities.tolist() == m.cardinalities[c.free].tolist()
    log_z, marginals = conditioned_by_enumeration(m, evidence)
    got = brute_force_log_partition(c.model)
    if log_z == -np.inf:
        assert got == -np.inf
        assert exact_log_partition(c.model) == -np.inf
        return
    assert got == pytest.approx(log_z, rel=1e-12, abs=1e-12)
    assert exact_log_partition(c.model) == pytest.approx(log_z, rel=1e-10, abs=1e-10)
    free_marginals = brute_force_marginals(c.model).marginals
    full = c.to_original_marginals(free_marginals)
    assert len(full) == m.n_variables
    for i in range(m.n_variables):
        np.testing.assert_allclose(full[i], marginals[i], atol=1e-12)
    for i, x in evidence.items():
        assert full[i].tolist() == [float(k == x) for k in range(m.cardinalities[i])]


@pytest.mark.parametrize("seed", range(10))
def test_apply_evidence_is_clamping_one_variable_at_a_time(seed):
    rng = np.random.RandomState(100 + seed)
    m = random_model(rng, rng.randint(1, 6), zeros=seed % 2 == 1)
    evidence = random_evidence(rng, m)
    c = apply_evidence(m, evidence)
    one_by_one = m
    for v, x in evidence.items():
        one_by_one = clamp(one_by_one, m.variables[v], x)
    assert c.model.variables == one_by_one.variables
    X = all_assignments(c.model)
    np.testing.assert_array_equal(c.model.score(X), one_by_one.score(X))
    # and every assignment consistent with the evidence keeps its score
    full = c.to_original_assignment(X)
    np.testing.assert_array_equal(c.model.score(X), m.score(full))
    np.testing.assert_array_equal(c.from_original_assignment(full), X)


def test_evidence_that_forbids_everything_gives_minus_infinity():
    m = DiscreteModel([2, 2], [((0, 1), [[0.0, -np.inf], [-np.inf, 0.0]]), ((0,), [0.3, 0.1])])
    c = apply_evidence(m, {0: 0, 1: 1})
    assert c.model.n_variables == 0
    assert brute_force_log_partition(c.model) == -np.inf
    assert exact_log_partition(c.model) == -np.inf
    half = apply_evidence(m, {0: 0})
    assert exact_log_partition(half.model) == pytest.approx(0.3)
    m2 = DiscreteModel([2, 3], [((0,), [-np.inf, 0.0]), ((1,), [0.0, 1.0, 2.0])])
    c2 = apply_evidence(m2, {0: 0})
    assert c2.model.n_variables == 1
    assert exact_log_partition(c2.model) == -np.inf


def test_empty_and_full_evidence():
    m = ising(nx.path_graph(3), fields=0.2, couplings=0.7)
    none = apply_evidence(m, {})
    assert none.model is m and none.free.tolist() == [0, 1, 2]
    full = apply_evidence(m, {0: 1, 1: 1, 2: 0})
    assert full.free.tolist() == []
    assert exact_log_partition(full.model) == pytest.approx(m.score([1, 1, 0]))
    assert full.to_original_assignment(np.zeros(0, dtype=int)).tolist() == [1, 1, 0]


def test_named_models_keep_their_names():
    m = ising(nx.grid_2d_graph(2, 2), fields=0.1, couplings=0.5)
    c = apply_evidence(m, {1: 1})  # index 1, the node (0, 1)
    assert c.model.variables == [(0, 0), (1, 0), (1, 1)]
    X = all_assignments(c.model)
    np.testing.assert_allclose(c.model.score(X), m.score(c.to_original_assignment(X)))


def test_evidence_from_a_file_on_a_model_from_a_file(tmp_path):
    text = "BAYES\n2\n2 2\n2\n1 0\n2 0 1\n\n2\n0.3 0.7\n4\n0.9 0.1\n0.2 0.8\n"
    m = read_uai(io.StringIO(text))
    c = apply_evidence(m, read_evidence(io.StringIO("1 1 1"), m))
    # P(x1 = 1) = 0.3 * 0.1 + 0.7 * 0.8
    assert math.exp(exact_log_partition(c.model)) == pytest.approx(0.59)


@pytest.mark.parametrize(
    ("evidence", "error", "match"),
    [
        ([(0, 1)], TypeError, "evidence must be a mapping"),
        ({0: 1.0}, TypeError, "both integers; got the value 1.0"),
        ({True: 1}, TypeError, "got the variable index True"),
        ({3: 0}, ValueError, r"variable 3 is not an index of model \(0\.\.2\)"),
        ({2: 3}, ValueError, r"value 3 of variable 2 is outside its domain 0\.\.2"),
    ],
)
def test_apply_evidence_bad_input(evidence, error, match):
    with pytest.raises(error, match=match):
        apply_evidence(MODEL, evidence)


def test_maps_back_check_their_input():
    c = apply_evidence(MODEL, {1: 1})
    with pytest.raises(ValueError, match=r"disagrees with the evidence \(variable 1 is observed"):
        c.from_original_assignment([0, 0, 2])
    with pytest.raises(ValueError, match=r"x must have shape \(2,\) or \(m, 2\)"):
        c.to_original_assignment([0, 1, 2])
    with pytest.raises(ValueError, match=r"x\[1\] = 3 is outside the domain 0\.\.2"):
        c.to_original_assignment([0, 3])
    with pytest.raises(ValueError, match="one array per free variable"):
        c.to_original_marginals([[0.5, 0.5]])
    with pytest.raises(ValueError, match=r"marginals\[1\] \(variable 2\) must have shape \(3,\)"):
        c.to_original_marginals([[0.5, 0.5], [0.5, 0.5]])
    assert c.to_original_assignment([[0, 2], [1, 0]]).tolist() == [[0, 1, 2], [1, 1, 0]]


# -- result files ----------------------------------------------------------------------------

finite = st.floats(allow_nan=False, allow_infinity=False)
probabilities = st.lists(st.floats(0.0, 1.0), min_size=1, max_size=5).filter(lambda p: sum(p) > 0)


@st.composite
def answers(draw):
    task = draw(st.sampled_from(TASKS))
    if task == "PR":
        return UAIAnswer("PR", log10_partition=draw(finite | st.just(-math.inf)))
    if task == "MAR":
        ps = draw(st.lists(probabilities, max_size=6))
        return UAIAnswer("MAR", marginals=[np.array(p) / math.fsum(p) for p in ps])
    if task == "MAP":
        return UAIAnswer("MAP", assignment=draw(st.lists(st.integers(0, 10**6), max_size=8)))
    query = draw(st.dictionaries(st.integers(0, 10**6), st.integers(0, 50), max_size=8))
    return UAIAnswer("MMAP", query=query)


def same_answer(a, b):
    assert a.task == b.task
    assert a.log10_partition == b.log10_partition
    assert (a.marginals is None) == (b.marginals is None)
    for p, q in zip(a.marginals or [], b.marginals or [], strict=True):
        np.testing.assert_array_equal(p, q)  # exactly: repr round-trips
    if a.assignment is None:
        assert b.assignment is None
    else:
        assert a.assignment.tolist() == b.assignment.tolist()
    assert a.query == b.query


@settings(max_examples=150, deadline=None, derandomize=True)
@given(answers())
def test_answers_round_trip(answer):
    out = io.StringIO()
    write_answer(out, answer)
    assert out.getvalue().splitlines()[0] == answer.task
    same_answer(read_answer(io.StringIO(out.getvalue())), answer)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(answers(), min_size=1, max_size=4))
def test_appended_solutions_read_back_the_last(tmp_path_factory, solutions):
    path = tmp_path_factory.mktemp("answers") / "out.MAR"
    task = solutions[0].task
    solutions = [a for a in solutions if a.task == task]
    for k, a in enumerate(solutions):
        write_answer(path, a, append=k > 0)
    text = path.read_text()
    assert text.count("-BEGIN-") == len(solutions) - 1
    same_answer(read_answer(path), solutions[-1])


def test_minus_infinity_is_written_as_such():
    out = io.StringIO()
    write_answer(out, UAIAnswer("PR", log10_partition=-np.inf))
    assert out.getvalue() == "PR\n-inf\n"
    assert read_answer(io.StringIO(out.getvalue())).log10_partition == -math.inf


def test_the_last_solution_is_read_and_mpe_is_map(tmp_path):
    text = "MPE\n-BEGIN-\n3 0 1 0\n-BEGIN-\n3 1 1 0\n-BEGIN-\n"
    a = read_answer(io.StringIO(text))
    assert a.task == "MAP" and a.assignment.tolist() == [1, 1, 0]
    path = tmp_path / "r.MAR.gz"
    path.write_bytes(gzip.compress(b"c a comment\nMAR\n2 2 0.1 0.9 1 1\n-BEGIN-\n1 2 0.5 0.5\n"))
    a = read_answer(path)
    assert a.task == "MAR" and [p.tolist() for p in a.marginals] == [[0.5, 0.5]]
    assert UAIAnswer("mpe", assignment=[0, 1]).task == "MAP"


def test_append_to_a_missing_file_starts_it_and_checks_the_task(tmp_path):
    path = tmp_path / "out.PR"
    write_answer(path, UAIAnswer("PR", log10_partition=-1.5), append=True)
    assert path.read_text() == "PR\n-1.5\n"
    path.write_text("PR\n-1.5")  # no final newline
    write_answer(path, UAIAnswer("PR", log10_partition=-1.25), append=True)
    assert path.read_text() == "PR\n-1.5\n-BEGIN-\n-1.25\n"
    with pytest.raises(ValueError, match="holds PR solutions: cannot append a MAP answer"):
        write_answer(path, UAIAnswer("MAP", assignment=[0]), append=True)
    write_answer(path, UAIAnswer("MAP", assignment=[0]))  # overwrites
    assert read_answer(path).assignment.tolist() == [0]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"task": "XYZ", "log10_partition": 0.0}, ValueError, "task must be one of 'PR'"),
        ({"task": "PR"}, ValueError, "a PR answer needs log10_partition"),
        (
            {"task": "PR", "log10_partition": 0.0, "assignment": [0]},
            ValueError,
            "a PR answer holds log10_partition only, but assignment is given",
        ),
        ({"task": "PR", "log10_partition": math.nan}, ValueError, "finite or -inf, got nan"),
        ({"task": "PR", "log10_partition": math.inf}, ValueError, "finite or -inf, got inf"),
        ({"task": "PR", "log10_partition": "1"}, TypeError, "log10_partition must be a number"),
        ({"task": "MAR", "marginals": [[0.5, -0.5]]}, ValueError, r"marginals\[0\] must hold"),
        ({"task": "MAR", "marginals": [[]]}, ValueError, r"marginals\[0\] must be a non-empty"),
        ({"task": "MAR", "marginals": [[np.nan, 1]]}, ValueError, "finite probabilities"),
        ({"task": "MAR", "marginals": "0.5 0.5"}, TypeError, "marginals must be a sequence"),
        ({"task": "MAP", "assignment": [0.5, 1]}, TypeError, "assignment must be an array of int"),
        ({"task": "MAP", "assignment": [0, -1]}, ValueError, r"assignment\[1\] = -1 is negative"),
        ({"task": "MAP", "assignment": [[0]]}, ValueError, "assignment must be a 1-d array"),
        ({"task": "MMAP", "query": [(0, 1)]}, TypeError, "query must be a mapping"),
        ({"task": "MMAP", "query": {0: 1.5}}, TypeError, "got the value 1.5"),
        ({"task": "MMAP", "query": {-1: 0}}, ValueError, "variable index -1 is negative"),
    ],
)
def test_bad_answers_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        UAIAnswer(**kwargs)


def test_write_checks_marginals_and_arguments():
    with pytest.raises(ValueError, match=r"answer\.marginals\[1\] sums to 0\.9, not to 1"):
        write_answer(io.StringIO(), UAIAnswer("MAR", marginals=[[1.0], [0.4, 0.5]]))
    write_answer(io.StringIO(), UAIAnswer("MAR", marginals=[[0.3, 0.7 + 5e-7]]))  # within 1e-6
    with pytest.raises(TypeError, match="answer must be a UAIAnswer"):
        write_answer(io.StringIO(), {"task": "PR"})
    with pytest.raises(TypeError, match="target must be a path"):
        write_answer(None, UAIAnswer("PR", log10_partition=0.0))
    with pytest.raises(TypeError, match="target must be a text file object"):
        write_answer(io.BytesIO(), UAIAnswer("PR", log10_partition=0.0))


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("PRX\n0.5\n", r"line 1: expected the task \(PR, MAR, MAP, MPE or MMAP\), got 'PRX'"),
        ("", r"line 1: the file ends where the task"),
        ("PR\n", r"line 2: the file holds no PR solution"),
        ("MAR\n-BEGIN-\n", r"the file holds no MAR solution"),
        ("PR\nabc\n", r"line 2: expected log10 of the partition function, got 'abc'"),
        ("PR\nnan\n", r"line 2: .*must be finite or -inf, got nan"),
        # the multi-task files of other tools: one task per file
        ("PR\n-0.2\nMAR\n1 2 0.5 0.5\n", r"line 3: unexpected token 'MAR' after the PR solution"),
        ("MAP\n3 0 1\n", r"line 2: the solution ends where the value of variable 2 was expected"),
        ("MAR\n1 2 0.5 -0.5\n", r"line 2: the marginal of variable 0: entries must be .*>= 0"),
        (
            "MAR\n2 2 0.5 0.5\n-BEGIN-\n1 3 0.5\n0.5\n",
            r"line 4: the marginal of variable 0: expected 3 entries, the solution has only 2",
        ),
        ("MAP\n2 0 -1\n", r"line 2: expected the value of variable 1 >= 0, got -1"),
        ("MMAP\n2 3 0\n3 1\n", r"line 3: query variable 3 appears twice"),
        ("MMAP\n1 3 x\n", r"expected the value of query variable 3 \(an integer\), got 'x'"),
    ],
)
def test_bad_result_files_are_named(text, match):
    with pytest.raises(UAIFormatError, match=match):
        read_answer(io.StringIO(text))
