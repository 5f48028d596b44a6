"""The graph transformers as scikit-learn citizens: feature names, model selection in a
Pipeline, clone and pickle."""

from __future__ import annotations

import pickle

import networkx as nx
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC

from kernelkit.datasets import load_tu
from kernelkit.graphs import (
    EdgeHistogram,
    ShortestPath,
    VertexHistogram,
    WeisfeilerLehman,
    wl_kernel,
)

TRANSFORMERS = [
    WeisfeilerLehman(2),
    WeisfeilerLehman(2, variant="final", normalize=False),
    VertexHistogram(),
    EdgeHistogram(),
    EdgeHistogram(edge_label=None),
    ShortestPath(),
]


@pytest.fixture(scope="module")
def mutag():
    return load_tu("MUTAG")


def labelled(G, labels):
    nx.set_node_attributes(G, dict(enumerate(labels)), "label")
    return G


@pytest.mark.parametrize("t", TRANSFORMERS, ids=repr)
def test_feature_names_one_per_column_and_unique(t, mutag):
    graphs, _ = mutag
    t = clone(t)
    with pytest.raises(NotFittedError):
        t.get_feature_names_out()
    X = t.fit_transform(graphs[:60])
    names = t.get_feature_names_out()
    assert names.dtype == object and names.shape == (X.shape[1],)
    assert all(isinstance(n, str) for n in names)
    assert len(set(names.tolist())) == len(names)
    with pytest.raises(ValueError, match="input_features must be None"):
        t.get_feature_names_out(["x0"])


def test_feature_names_say_what_each_column_counts():
    a = labelled(nx.path_graph(3), ["C", "O", "C"])
    b = labelled(nx.path_graph(2), ["C", "N"])
    nx.set_edge_attributes(a, 1, "bond")
    nx.set_edge_attributes(b, 2, "bond")
    names = VertexHistogram().fit([a, b]).get_feature_names_out().tolist()
    assert names == ["label='C'", "label='N'", "label='O'"]
    wl = WeisfeilerLehman(1).fit([a, b])
    out = wl.get_feature_names_out().tolist()
    assert out == ["iter0_" + n for n in names] + [
        f"iter1_colour{k}" for k in range(wl.n_colours_[1])
    ]
    wl.set_params(n_iter=3, variant="final")  # the names follow the fitted columns
    assert wl.get_feature_names_out().tolist() == out
    final = WeisfeilerLehman(1, variant="final").fit([a, b]).get_feature_names_out()
    assert final.tolist() == [f"iter1_colour{k}" for k in range(wl.n_colours_[1])]
    assert EdgeHistogram(edge_label="bond").fit([a, b]).get_feature_names_out().tolist() == [
        "edge_bond=1",
        "edge_bond=2",
    ]
    pairs = EdgeHistogram(edge_label=None).fit([a, b]).get_feature_names_out().tolist()
    assert pairs == ["endpoints_label=('C', 'N')", "endpoints_label=('C', 'O')"]
    deg = VertexHistogram(node_label=None).fit([a, b]).get_feature_names_out().tolist()
    assert deg == ["degree=1", "degree=2"]
    sp = ShortestPath().fit([b]).get_feature_names_out().tolist()
    assert sp == ["path_label=('C', 'N', 1)", "path_label=('N', 'C', 1)"]


def test_grid_search_over_a_pipeline_of_wl_features_and_an_svm(mutag):
    graphs, y = mutag
    pipe = Pipeline([("wl", WeisfeilerLehman()), ("svm", SVC(kernel="linear"))])
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    search = GridSearchCV(pipe, {"wl__n_iter": [1, 3], "svm__C": [0.1, 10.0]}, cv=cv)
    search.fit(graphs, y)
    assert search.best_params_["wl__n_iter"] in (1, 3)
    assert search.best_params_["svm__C"] in (0.1, 10.0)
    assert 0.75 < search.best_score_ <= 1.0  # published WL figures on MUTAG: 85-90 %
    assert search.cv_results_["mean_test_score"].shape == (4,)
    # the refitted best pipeline predicts graphs directly
    assert search.predict(graphs[:5]).shape == (5,)
    wl = search.best_estimator_.named_steps["wl"]
    assert wl.n_iter == search.best_params_["wl__n_iter"] and hasattr(wl, "n_features_out_")
    names = search.best_estimator_[:-1].get_feature_names_out()
    assert len(names) == wl.n_features_out_


def test_cross_val_score_of_the_pipeline(mutag):
    graphs, y = mutag
    pipe = Pipeline([("wl", WeisfeilerLehman(3)), ("svm", SVC(kernel="linear", C=1.0))])
    scores = cross_val_score(pipe, graphs, y, cv=StratifiedKFold(3, shuffle=True, random_state=0))
    assert scores.shape == (3,) and np.all((scores > 0.7) & (scores <= 1.0))


@pytest.mark.parametrize("t", TRANSFORMERS, ids=repr)
def test_clone_and_pickle_round_trips_give_identical_features(t, mutag):
    graphs, _ = mutag
    train, test = graphs[:100], graphs[100:]
    fitted = clone(t).fit(train)
    expected = fitted.transform(test).toarray()
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.transform(test).toarray(), expected)
    np.testing.assert_array_equal(again.get_feature_names_out(), fitted.get_feature_names_out())
    fresh = clone(fitted)
    assert fresh.get_params() == fitted.get_params() and not hasattr(fresh, "n_features_out_")
    np.testing.assert_array_equal(fresh.fit(train).transform(test).toarray(), expected)


def test_pickle_keeps_object_and_nan_labels():
    graphs = [
        labelled(nx.path_graph(3), [("a", 1), float("nan"), "b"]),
        labelled(nx.path_graph(2), [np.nan, ("a", 1)]),
    ]
    wl = WeisfeilerLehman(2).fit(graphs)
    again = pickle.loads(pickle.dumps(wl))
    np.testing.assert_array_equal(
        again.transform(graphs).toarray(), wl.fit_transform(graphs).toarray()
    )


def test_grid_search_over_a_precomputed_wl_gram_matrix(mutag):
    # the kernel route: one WL Gram matrix, sliced by scikit-learn (pairwise estimator)
    from kernelkit.models import KernelSVC

    graphs, y = mutag
    K = wl_kernel(graphs, 3)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    search = GridSearchCV(KernelSVC(kernel="precomputed"), {"C": [0.1, 10.0]}, cv=cv)
    search.fit(K, y)
    assert 0.75 < search.best_score_ <= 1.0
    assert cross_val_score(KernelSVC(kernel="precomputed"), K, y, cv=cv).shape == (3,)
