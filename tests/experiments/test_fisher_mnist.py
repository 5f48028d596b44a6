"""The fisher-mnist experiment (quick version): the assignment's bar, the K sweep, the
Classic3 intersection-kernel table, the figure."""

from __future__ import annotations

import json

from kernelkit.experiments import names, run_experiment
from kernelkit.experiments.fisher_mnist import K_VALUES


def test_fisher_mnist_quick(tmp_path):
    assert "fisher-mnist" in names()
    res = run_experiment("fisher-mnist", quick=True, out=tmp_path, random_state=0).results
    m = res["mnist"]
    assert (m["n_train"], m["n_test"]) == (1600, 400)
    assert m["accuracy_reference"] >= 0.60  # the assignment's bar for -k 16 -f 16 --small
    assert m["accuracy_reference"] >= 0.90  # dense SIFT does much better (measured 96.8 %)
    assert 0.60 <= m["accuracy_detected"] < m["accuracy_reference"]
    for key in ("power", "no_power"):
        assert len(m["accuracy_by_k"][key]) == len(K_VALUES)
        assert min(m["accuracy_by_k"][key]) >= 0.85
    confusion = m["confusion"]
    assert sum(map(sum, confusion)) == 400
    assert sum(confusion[i][i] for i in range(10)) == round(400 * m["accuracy_reference"])
    # Classic3: chi-squared word sets make the three collections separable
    for V, accs in res["classic3"]["accuracy"].items():
        assert set(accs) == {"intersection", "normalised intersection", "linear |A ∩ B|"}
        assert min(accs.values()) >= (0.8 if int(V) == 20 else 0.9)
    assert (tmp_path / "fisher-mnist" / "fisher_mnist.png").stat().st_size > 1000
    json.dumps(res["mnist"])  # the numbers are plain JSON
