"""kernelkit without Dask (an optional extra): everything imports, sweeps run in this
process, and asking for a cluster says how to get Dask."""

from __future__ import annotations

import subprocess
import sys
import textwrap

# Run in a fresh interpreter with every ``dask*`` and ``distributed*`` import refused, as
# if the extra were not installed.
SCRIPT = textwrap.dedent(
    """
    import importlib
    import importlib.abc
    import pkgutil
    import sys

    class HideDask(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.startswith(("dask", "distributed")):
                raise ImportError(f"No module named {name!r} (hidden by the test)")
            return None

    sys.meta_path.insert(0, HideDask())

    import kernelkit
    from kernelkit import cli

    cli.build_parser()
    modules = [m.name for m in pkgutil.walk_packages(kernelkit.__path__, "kernelkit.")]
    for name in modules:
        if name != "kernelkit.__main__":  # which runs the command
            importlib.import_module(name)

    from kernelkit.distributed import dask_client, map_tasks
    from kernelkit.learning_curves import simulate
    from kernelkit.graphs import random_regular_graph, random_walk_kernel
    import functools

    assert map_tasks(abs, [-1, 2], desc="abs") == [1, 2]
    curve = simulate(
        functools.partial(random_regular_graph, 3, 20),
        functools.partial(random_walk_kernel, a=2.0, p=3),
        0.1, [1.0], n_graphs=2, n_datasets=2, random_state=0,
    )
    assert curve.epsilon.shape == (1,)
    with dask_client() as client:
        assert client is None
    try:
        with dask_client(n_workers=2):
            pass
    except ImportError as exc:
        print("ImportError:", exc)
    print("imported", len(modules), "modules;", "dask loaded:",
          any(m.split(".")[0] in ("dask", "distributed") for m in sys.modules))
    """
)


def test_kernelkit_imports_and_runs_sweeps_without_dask():
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("ImportError: running on a Dask cluster needs dask.distributed")
    assert "pip install 'kernelkit[dask]'" in lines[0]
    assert lines[1].endswith("dask loaded: False")
