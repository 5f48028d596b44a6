"""Real datasets packaged with kernelkit, and readers for the same formats on disk.

Every packaged file is checked against ``data/SHA256SUMS`` the first time a loader reads
it in a process; ``provenance(name)`` tells where each dataset comes from.

=======================  ==============================================================
``load_mnist``           MNIST test set: 10000 images 28 x 28 and their digit labels
``load_tu``              TU graph benchmarks MUTAG, NCI1, NCI109 as networkx graphs
``read_tu``              any TU-format folder of your own
``load_exp``             EXP: 600 pairs of 1-WL-indistinguishable SAT / UNSAT graphs
``load_uci``             tables: boston, wine, insurance, cpu, cpu_act, cpu_small (a ``Table``:
                         ``X``, ``y``, ``feature_names``)
``load_uci_regression``  pol, elevators, bike, protein, keggdirected: one of ten fixed
                         train / test splits (a ``RegressionSplit``; names in
                         ``UCI_REGRESSION_DATASETS``)
``load_classic3``        MEDLINE / CISI / Cranfield abstracts labelled by collection (a
                         ``Corpus``: ``documents``, ``labels``, ``ids``)
``catalog``              name, kind, shape and source of every packaged dataset
``load_dataset``         load any of them by catalog name
``provenance``           origin, cleaning and checksums of one dataset
=======================  ==============================================================
"""

from .catalog import DatasetInfo, catalog, load_dataset, provenance
from .classic3 import Corpus, load_classic3
from .exp import load_exp
from .mnist import load_mnist
from .tu import load_tu, read_tu
from .uci import Table, load_uci
from .uci_regression import UCI_REGRESSION_DATASETS, RegressionSplit, load_uci_regression

__all__ = [
    "UCI_REGRESSION_DATASETS",
    "Corpus",
    "DatasetInfo",
    "RegressionSplit",
    "Table",
    "catalog",
    "load_classic3",
    "load_dataset",
    "load_exp",
    "load_mnist",
    "load_tu",
    "load_uci",
    "load_uci_regression",
    "provenance",
    "read_tu",
]
