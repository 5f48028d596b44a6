"""Batch Bayesian optimisation: ask(n), fantasies, pending batches, run(batch_size, client).

Semantics only (small budgets); how much a batch of four gains in rounds on Branin is
measured by ``benchmarks/bayesopt_batch.py``.
"""

from __future__ import annotations

import argparse
import doctest
import threading

import numpy as np
import pytest

import kernelkit.optimize.bayesopt as bayesopt_module
from kernelkit.cli import UsageError
from kernelkit.optimize import BayesianOptimizer, get_function
from kernelkit.optimize.cli import BATCH_STRATEGIES, LIES, register

BRANIN = get_function("branin")


def _told_design(n_initial=4, **kw):
    """An optimiser on Branin whose initial design has been evaluated, in one batch."""
    opt = BayesianOptimizer(None, BRANIN.bounds, n_initial=n_initial, random_state=0, **kw)
    for x in opt.ask(n_initial):
        opt.tell(x, BRANIN(x))
    return opt


def _max_norm_distances(X, Y):
    return np.max(np.abs(X[:, None, :] - Y[None, :, :]), axis=2)


def test_ask_n_gives_distinct_new_points_in_the_box():
    opt = _told_design()
    X = opt.ask(4)
    assert X.shape == (4, 2)
    lo, hi = BRANIN.bounds[:, 0], BRANIN.bounds[:, 1]
    assert np.all((X >= lo) & (X <= hi))
    within = _max_norm_distances(X, X)[np.triu_indices(4, k=1)]
    assert within.min() > 1e-6 * 15  # distinct within the batch
    assert _max_norm_distances(X, opt.result().X).min() > 1e-6 * 15  # and from the data
    assert opt.ask().shape == (2,)  # without n: the oldest pending point
    np.testing.assert_array_equal(opt.ask(), X[0])


def test_the_design_is_handed_out_in_batches():
    opt = BayesianOptimizer(None, BRANIN.bounds, n_initial=5, random_state=0)
    first = opt.ask(4)
    for x in first:
        opt.tell(x, BRANIN(x))
    second = opt.ask(4)  # the last design point, then three from the model
    for x in second:
        opt.tell(x, BRANIN(x))
    res = opt.result()
    assert res.source == ["initial"] * 5 + ["acquisition"] * 3
    assert res.rounds.tolist() == [0] * 4 + [1] * 4
    # the same design as one point at a time
    seq = BayesianOptimizer(None, BRANIN.bounds, n_initial=5, random_state=0)
    design = []
    for _ in range(5):
        design.append(seq.ask())
        seq.tell(design[-1], BRANIN(design[-1]))
    np.testing.assert_array_equal(res.X[:5], design)


def test_nothing_to_model_yet_gives_random_points():
    opt = BayesianOptimizer(None, BRANIN.bounds, n_initial=2, random_state=0)
    X = opt.ask(4)  # no value is known yet: two design points, two uniform ones
    assert len({tuple(x) for x in X}) == 4
    for x in X:
        opt.tell(x, BRANIN(x))
    assert opt.result().source == ["initial"] * 2 + ["random"] * 2


def test_kriging_believer_and_constant_liar_choose_different_batches():
    kb = _told_design(batch_strategy="kriging_believer").ask(4)
    cl = _told_design(batch_strategy="constant_liar", lie="max").ask(4)
    cl_min = _told_design(batch_strategy="constant_liar", lie="min").ask(4)
    np.testing.assert_array_equal(kb[0], cl[0])  # the first point has no fantasy to differ by
    assert not np.allclose(kb[1:], cl[1:])
    assert not np.allclose(cl[1:], cl_min[1:])


def test_fantasies_enter_the_surrogate_with_fixed_hyperparameters():
    opt = _told_design()
    opt.ask(3)
    for x in opt.ask(3)[::-1]:
        opt.tell(x, BRANIN(x))
    steps = [opt.step_surrogate(i)[1] for i in opt.acquisition_steps]
    assert sorted(s.n_fantasies for s in steps) == [0, 1, 2]
    for s in steps:
        assert s.n_data == 4 and s.X.shape == (4 + s.n_fantasies, 2)
    assert len({float(s.kernel.theta[0]) for s in steps}) == 1  # one fit for the batch


def test_ask_again_returns_the_same_batch_and_tell_in_any_order():
    opt = _told_design()
    X = opt.ask(4)
    np.testing.assert_array_equal(opt.ask(4), X)
    np.testing.assert_array_equal(opt.ask(2), X[:2])  # the oldest pending points
    for i in (2, 0):
        opt.tell(X[i], BRANIN(X[i]))
    Y = opt.ask(4)  # still pending first (oldest first), then two new ones
    np.testing.assert_array_equal(Y[:2], X[[1, 3]])
    assert _max_norm_distances(Y[2:], np.vstack([opt.result().X, X])).min() > 1e-6
    for i in (3, 1, 0, 2):
        opt.tell(Y[i], BRANIN(Y[i]))
    res = opt.result()
    # told: X[2], X[0], then Y[3] (new), Y[1] = X[3], Y[0] = X[1], Y[2] (new)
    assert res.rounds.tolist() == [0] * 4 + [1, 1] + [2, 1, 1, 2]
    assert set(res.source[4:]) <= {"acquisition", "greedy"}  # asked points keep their origin
    assert res.n_rounds == 3
    np.testing.assert_array_equal(res.X[4:6], X[[2, 0]])


def test_telling_an_unasked_point_releases_the_whole_batch():
    opt = _told_design()
    X = opt.ask(3)
    opt.tell(np.round(X[0]), BRANIN(np.round(X[0])))  # a rounded point: not pending
    Y = opt.ask(3)
    assert _max_norm_distances(Y, X).min() > 0  # a new batch
    res = opt.result()
    assert res.source[-1] == "told" and res.rounds[-1] == -1
    assert res.n_rounds == 2  # the design's round and the told point


def test_run_in_batches_records_rounds_and_makes_exactly_n_calls():
    opt = BayesianOptimizer(BRANIN, n_initial=4, random_state=1)
    res = opt.run(10, batch_size=4)
    assert res.n_calls == 10 and res.n_rounds == 3
    assert res.rounds.tolist() == [0] * 4 + [1] * 4 + [2] * 2
    assert res.source[:4] == ["initial"] * 4 and "acquisition" in res.source[4:]
    # with four points the surrogate is nearly linear and its batch piles into a corner:
    # a search that ends on a known point is replaced by a random one, so all differ
    assert set(res.source[4:]) <= {"acquisition", "greedy", "random"}
    assert _max_norm_distances(res.X, res.X)[np.triu_indices(10, k=1)].min() > 0
    np.testing.assert_allclose(res.y, BRANIN(res.X))
    assert opt.run(3, batch_size=2).rounds[-3:].tolist() == [3, 3, 4]


def test_batch_size_one_is_the_sequential_run():
    a = BayesianOptimizer(BRANIN, random_state=2).run(7)
    b = BayesianOptimizer(BRANIN, random_state=2).run(7, batch_size=1)
    np.testing.assert_array_equal(a.X, b.X)
    assert a.rounds.tolist() == list(range(7)) and a.n_rounds == 7


@pytest.mark.parametrize(
    "maximize, lie, expected",
    [
        (False, "max", lambda y: -y.max()),
        (True, "min", np.min),
        (False, "mean", lambda y: -y.mean()),
    ],
)
def test_the_constant_liars_fantasy_is_the_lie(maximize, lie, expected):
    sign = -1.0 if maximize else 1.0
    opt = BayesianOptimizer(
        lambda x: sign * BRANIN(x), BRANIN.bounds, n_initial=3, maximize=maximize,
        batch_strategy="constant_liar", lie=lie, random_state=0,
    )  # fmt: skip
    res = opt.run(6, batch_size=3)
    step = opt.step_surrogate(5)[1]  # the third point of the second round: two fantasies
    assert step.n_fantasies == 2
    # the fantasies in the maximised g = -f (or f with maximize): the lie of the values y,
    # on the surrogate's (output-transformed) scale
    lie_g = step.output_transform.transform(np.array([expected(res.y[:3])]))
    np.testing.assert_allclose(step.g[-2:], lie_g[0])


def test_a_dask_client_gives_the_same_run():
    pytest.importorskip("dask.distributed")
    from kernelkit.distributed import dask_client

    here = BayesianOptimizer(BRANIN, n_initial=4, random_state=3).run(8, batch_size=4)
    with dask_client(n_workers=2) as client:
        there = BayesianOptimizer(BRANIN, n_initial=4, random_state=3).run(
            8, batch_size=4, client=client
        )

        class Locked:  # an objective Dask cannot pickle
            def __init__(self):
                self.lock = threading.Lock()

            def __call__(self, x):
                return 0.0

        with pytest.raises(TypeError, match="with a client it must be picklable"):
            BayesianOptimizer(Locked(), BRANIN.bounds).run(2, batch_size=2, client=client)
    np.testing.assert_array_equal(here.X, there.X)
    np.testing.assert_array_equal(here.y, there.y)
    assert here.rounds.tolist() == there.rounds.tolist()


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "n, error, match",
    [
        (0, ValueError, r"n must be >= 1 \(the number of points in the batch\), got 0"),
        (-2, ValueError, "n must be >= 1"),
        (2.0, TypeError, r"n must be None \(one point\) or an integer >= 1 \(a batch\), got float"),
        (True, TypeError, "got bool"),
        ("4", TypeError, "got str"),
    ],
)
def test_bad_batch_sizes_for_ask(n, error, match):
    opt = BayesianOptimizer(None, BRANIN.bounds)
    with pytest.raises(error, match=match):
        opt.ask(n)


@pytest.mark.parametrize(
    "kw, match",
    [
        (
            {"batch_strategy": "believer"},
            "batch_strategy must be one of 'kriging_believer', 'constant_liar'; got 'believer'",
        ),
        ({"lie": "median"}, "lie must be one of 'min', 'mean', 'max'; got 'median'"),
    ],
)
def test_bad_batch_strategy(kw, match):
    with pytest.raises(ValueError, match=match):
        BayesianOptimizer(BRANIN, **kw)


def test_bad_batch_size_and_client_for_run():
    opt = BayesianOptimizer(BRANIN)
    with pytest.raises(ValueError, match="batch_size must be >= 1, got 0"):
        opt.run(4, batch_size=0)
    with pytest.raises(TypeError, match="batch_size must be an integer, got float"):
        opt.run(4, batch_size=2.0)
    pytest.importorskip("dask.distributed")
    with pytest.raises(
        TypeError, match=r"client must be a dask\.distributed\.Client or None, got str"
    ):
        opt.run(4, batch_size=2, client="tcp://localhost:8786")
    assert opt.result().n_calls == 0  # refused before anything ran


# ---------------------------------------------------------------- command line
def _parse(argv):
    parser = argparse.ArgumentParser(prog="kernelkit")
    register(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def test_command_line_batches(tmp_path, capsys):
    argv = ["bayesopt", "--n-calls", "9", "--initial", "4", "--out", str(tmp_path)]
    args = _parse([*argv, "--batch-size", "4", "--batch-strategy", "constant_liar"])
    assert args.scheduler is None and args.n_workers is None
    assert args.handler(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "branin: 9 evaluations (4 initial design, 5 model-guided) in 3 rounds of up to 4 "
        "(constant liar (min)), acquisition ei, seed 0"
    )


@pytest.mark.parametrize(
    "argv, match",
    [
        (["--batch-size", "0"], r"--batch-size must be >= 1 \(evaluations per round\), got 0"),
        (["--scheduler", "tcp://h:1", "--n-workers", "2"], "exclude each other"),
    ],
)
def test_command_line_bad_batch_options(argv, match, tmp_path):
    args = _parse(["bayesopt", "--n-calls", "3", "--out", str(tmp_path), *argv])
    with pytest.raises(UsageError, match=match):
        args.handler(args)


def test_command_line_choices_are_the_optimizers():
    for strategy in BATCH_STRATEGIES:
        for lie in LIES:
            BayesianOptimizer(BRANIN, batch_strategy=strategy, lie=lie)
    with pytest.raises(SystemExit):
        _parse(["bayesopt", "--lie", "median"])


def test_docstring_examples():
    result = doctest.testmod(bayesopt_module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
