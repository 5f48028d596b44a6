"""Scaling out with Dask: clients, sweeps of independent tasks, and the command-line options.

``client``
    ``dask_client``: no Dask, a ``LocalCluster`` started for the block, or a
    running cluster by address (a clear error within a timeout when none answers)
``options``
    ``add_cluster_arguments`` / ``cluster_from_args``: ``--scheduler ADDRESS``
    and ``--n-workers N`` for the commands that run sweeps
``sweeps``
    ``map_tasks``: one task per item, in this process (``client=None``) or on
    a cluster, results in order and independent of where each task ran

Dask is the optional ``dask`` extra (``pip install 'kernelkit[dask]'``); kernelkit imports
without it, and only this subpackage and the blockwise paths of ``kernelkit._dask`` import
it. The names below are imported on first use (PEP 562).
"""

from __future__ import annotations

from kernelkit._lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "client": ["DEFAULT_TIMEOUT", "dask_client", "import_distributed"],
        "options": ["add_cluster_arguments", "cluster_from_args"],
        "sweeps": ["DEFAULT_RETRIES", "map_tasks"],
    },
)
