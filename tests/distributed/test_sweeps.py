"""kernelkit.distributed.sweeps on a 2-worker LocalCluster: the same results as in this
process, in order, errors naming their item, and a worker killed mid-sweep survived."""

from __future__ import annotations

import doctest
import functools
import os
import sys
import time

import numpy as np
import pytest

pytest.importorskip("dask.distributed")

import cloudpickle
from dask.distributed import Client, LocalCluster

from kernelkit import cli
from kernelkit.datasets import load_tu
from kernelkit.distributed import map_tasks, sweeps
from kernelkit.graphs import (
    cross_validate_graphs,
    graph_grams,
    random_regular_graph,
    random_walk_kernel,
)
from kernelkit.learning_curves import simulate

# Its functions travel by value, so that the workers need not import this test module.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def client():
    """One 2-process cluster for the whole module (starting one takes seconds)."""
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    client = Client(cluster, set_as_default=False)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def seeded_draw(seed: int, scale: np.ndarray | None = None) -> np.ndarray:
    """A task whose randomness comes from its item only."""
    time.sleep(0.02)
    x = np.random.default_rng(seed).standard_normal(3)
    return x if scale is None else x * scale


def fails_on_odd(item: int) -> int:
    if item % 2:
        raise ValueError(f"odd item {item}")
    return item


def dies_once(seed: int, marker: str) -> np.ndarray:
    """``seeded_draw``, except that the first run of seed 6 anywhere kills its worker
    process (``marker`` records that it happened, atomically)."""
    time.sleep(0.1)
    if seed == 6:
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            pass
        else:
            os._exit(1)  # a crash: no cleanup, no goodbye to the scheduler
    return np.random.default_rng(seed).standard_normal(3)


def always_dies(seed: int) -> int:
    if seed == 1:
        os._exit(1)
    return seed


def test_docstring_examples():
    result = doctest.testmod(sweeps, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_in_process_is_a_loop_in_order():
    assert map_tasks(abs, [-3, 2, -1]) == [3, 2, 1]
    assert map_tasks(abs, iter([-1]), desc="x", show_progress=False) == [1]
    assert map_tasks(abs, []) == []


def test_in_process_error_keeps_its_type_and_names_the_item():
    with pytest.raises(ValueError, match="odd item 1") as info:
        map_tasks(fails_on_odd, [0, 1, 2, 3], desc="parity")
    assert info.value.__notes__ == ["in parity: task 2 of 4, item 1"]


def test_bad_arguments():
    with pytest.raises(TypeError, match="fn must be callable"):
        map_tasks(3, [1])
    with pytest.raises(TypeError, match="items must be an iterable"):
        map_tasks(abs, 3)
    with pytest.raises(ValueError, match="retries"):
        map_tasks(abs, [1], retries=-1)
    with pytest.raises(TypeError, match="shared must be a mapping"):
        map_tasks(abs, [1], shared=[("x", 1)])
    with pytest.raises(TypeError, match="dask_client"):
        map_tasks(abs, [1], client="tcp://127.0.0.1:8786")


def test_cluster_results_equal_in_process_in_order(client):
    scale = np.arange(1.0, 4.0)
    items = list(range(10))
    here = map_tasks(seeded_draw, items, shared={"scale": scale})
    there = map_tasks(seeded_draw, items, client=client, shared={"scale": scale}, desc="draws")
    assert len(there) == len(items)
    for a, b in zip(here, there, strict=True):
        np.testing.assert_array_equal(a, b)
    assert map_tasks(seeded_draw, [], client=client) == []


def test_cluster_error_keeps_its_type_and_names_the_first_failed_item(client):
    with pytest.raises(ValueError, match="odd item 1") as info:
        map_tasks(fails_on_odd, [0, 1, 2, 3], client=client, desc="parity")
    assert info.value.__notes__ == ["in parity: task 2 of 4, item 1"]


def test_simulate_on_the_cluster_equals_simulate_here(client):
    ensemble = functools.partial(random_regular_graph, 3, 40)
    kernel = functools.partial(random_walk_kernel, a=2.0, p=5, normalize="global")
    kw = dict(noise=0.1, nus=[0.5, 2.0], n_graphs=3, n_datasets=2, random_state=7)
    here = simulate(ensemble, kernel, **kw)
    there = simulate(ensemble, kernel, client=client, **kw)
    # the same seeds, graphs and one-BLAS-thread factorisations: equal to rounding (and
    # in practice bit for bit)
    np.testing.assert_allclose(there.vertex_errors, here.vertex_errors, rtol=1e-12, atol=0)
    np.testing.assert_allclose(there.stderr, here.stderr, rtol=1e-12, atol=0)
    assert there.vertex_errors.shape == (3, 2, 2, 40)


def test_cross_validate_graphs_on_the_cluster_equals_here(client):
    graphs, y = load_tu("MUTAG")
    grams = graph_grams(graphs, "wl", [1, 2])
    kw = dict(C_values=[1.0, 10.0], n_folds=3, random_state=0, show_progress=False)
    here = cross_validate_graphs(grams, y, **kw)
    there = cross_validate_graphs(grams, y, client=client, **kw)
    np.testing.assert_array_equal(there.accuracies, here.accuracies)
    assert there.chosen == here.chosen
    for (a_tr, a_te), (b_tr, b_te) in zip(there.folds, here.folds, strict=True):
        np.testing.assert_array_equal(a_tr, b_tr)
        np.testing.assert_array_equal(a_te, b_te)


def test_graph_classify_on_a_running_scheduler(client, capsys):
    argv = ["graph-classify", "--n-iter", "1", "--folds", "2", "--C", "1", "10"]
    address = client.scheduler.address
    assert cli.main(argv) == 0
    here = capsys.readouterr().out
    assert cli.main([*argv, "--scheduler", address]) == 0
    there = capsys.readouterr().out
    assert f"Dask ({address}); dashboard: " in there

    def folds(out):
        return [line for line in out.splitlines() if line.startswith("  fold")]

    assert len(folds(there)) == 2 and folds(there) == folds(here)


def test_a_worker_killed_mid_sweep_changes_nothing(client, tmp_path):
    """Item 6 kills the worker process that runs it (the first time only): the scheduler
    re-runs it, and the results that worker held, elsewhere; the nanny starts a new
    worker. The sweep's result is the undisturbed one."""
    items = list(range(12))
    already = tmp_path / "already-killed"
    already.touch()  # in this process nothing may die
    undisturbed = map_tasks(dies_once, items, shared={"marker": str(already)})

    # Dask re-runs a task whose worker died, up to this many times (default 3)
    assert client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.allowed_failures) >= 1
    client.wait_for_workers(2, timeout=60)
    before = set(client.scheduler_info()["workers"])
    marker = tmp_path / "killed"
    result = map_tasks(dies_once, items, client=client, shared={"marker": str(marker)})

    assert marker.exists()  # a worker did die running the sweep
    for a, b in zip(result, undisturbed, strict=True):
        np.testing.assert_array_equal(a, b)
    client.wait_for_workers(2, timeout=60)  # the nanny replaced the dead worker ...
    assert set(client.scheduler_info()["workers"]) != before  # ... with a new process


def test_a_task_that_keeps_killing_workers_is_named(client):
    """Past ``allowed-failures`` deaths the task fails with Dask's KilledWorker, its item
    named (the limit lowered to 0 for the test: the first death gives up)."""
    from distributed.scheduler import KilledWorker

    def set_allowed(dask_scheduler, n):
        previous, dask_scheduler.allowed_failures = dask_scheduler.allowed_failures, n
        return previous

    client.wait_for_workers(2, timeout=60)
    previous = client.run_on_scheduler(set_allowed, n=0)
    try:
        with pytest.raises(KilledWorker) as info:
            map_tasks(always_dies, [0, 1, 2], client=client, desc="deadly")
    finally:
        client.run_on_scheduler(set_allowed, n=previous)
    assert info.value.__notes__ == ["in deadly: task 2 of 3, item 1"]
    client.wait_for_workers(2, timeout=60)
