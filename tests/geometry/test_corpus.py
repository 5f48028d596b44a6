"""The §4.2 corpus model (Vempala 1997)."""

from __future__ import annotations

import numpy as np
import pytest

from kernelkit.geometry.corpus import SyntheticCorpus, generate_corpus


@pytest.fixture(scope="module")
def e3():
    return generate_corpus(random_state=0)


def test_e3_defaults(e3):
    assert isinstance(e3, SyntheticCorpus)
    assert e3.counts.shape == (2000, 1000)
    assert e3.primary_terms.shape == (20, 100)
    assert len(np.unique(e3.primary_terms)) == 2000  # disjoint, and they cover all terms
    assert e3.lengths.min() >= 50 and e3.lengths.max() <= 100
    assert np.array_equal(np.asarray(e3.counts.sum(axis=0)).ravel(), e3.lengths)
    assert set(np.unique(e3.labels)) == set(range(20))
    assert np.allclose(e3.topic_distributions.sum(axis=1), 1.0)
    assert np.allclose(e3.topic_weights[np.arange(1000), e3.labels], 1.0)


def test_topic_distribution_is_epsilon_separable(e3):
    P, U = e3.topic_distributions, e3.primary_terms
    own = np.take_along_axis(P, U, axis=1).sum(axis=1)
    assert np.allclose(own, 0.95 + 0.05 * 100 / 2000)  # ≥ 1 − ε on the primary set
    assert np.allclose(P[0, U[1]], 0.05 / 2000)


def test_empirical_primary_mass(e3):
    """Fraction of tokens on the document's primary set ≈ 0.95 + 0.05 · 100/2000 = 0.9525.

    About 75 000 tokens: binomial standard deviation ≈ 0.0008; tolerance 0.005.
    """
    C = e3.counts.tocsc()
    on_primary = 0
    for t in range(20):
        docs = np.flatnonzero(e3.labels == t)
        on_primary += C[e3.primary_terms[t]][:, docs].sum()
    assert abs(on_primary / e3.lengths.sum() - 0.9525) < 0.005


def test_epsilon_zero_is_block_diagonal():
    c = generate_corpus(200, 300, 3, primary_size=100, epsilon=0.0, random_state=1)
    rows, cols = c.counts.nonzero()
    topic_of_term = np.full(300, -1)
    for t in range(3):
        topic_of_term[c.primary_terms[t]] = t
    assert np.array_equal(topic_of_term[rows], c.labels[cols])


def test_mixture_of_topics():
    c = generate_corpus(300, 400, 4, primary_size=50, topics_per_document=2, random_state=0)
    W = c.topic_weights
    assert np.allclose(W.sum(axis=1), 1.0)
    assert ((W > 0).sum(axis=1) == 2).all()
    assert np.array_equal(c.labels, W.argmax(axis=1))


def test_same_seed_same_corpus():
    a = generate_corpus(50, 100, 2, primary_size=10, random_state=3)
    b = generate_corpus(50, 100, 2, primary_size=10, random_state=3)
    assert (a.counts != b.counts).nnz == 0 and np.array_equal(a.labels, b.labels)
    c = generate_corpus(50, 100, 2, primary_size=10, random_state=4)
    assert (a.counts != c.counts).nnz > 0


def test_bad_input():
    with pytest.raises(ValueError, match="exceeds n_terms"):
        generate_corpus(10, 100, 5, primary_size=30)
    with pytest.raises(ValueError, match="epsilon must be in"):
        generate_corpus(10, 100, 2, primary_size=10, epsilon=1.5)
    with pytest.raises(TypeError, match="epsilon"):
        generate_corpus(10, 100, 2, primary_size=10, epsilon="0.1")
    with pytest.raises(ValueError, match="low <= high"):
        generate_corpus(10, 100, 2, primary_size=10, length_range=(10, 5))
    with pytest.raises(TypeError, match="length_range"):
        generate_corpus(10, 100, 2, primary_size=10, length_range=5)
    with pytest.raises(ValueError, match=r"length_range\[0\] must be >= 1"):
        generate_corpus(10, 100, 2, primary_size=10, length_range=(0, 5))
    with pytest.raises(ValueError, match="topics_per_document=3 exceeds"):
        generate_corpus(10, 100, 2, primary_size=10, topics_per_document=3)
    with pytest.raises(TypeError, match="n_documents must be an integer"):
        generate_corpus(10.0)
    with pytest.raises(ValueError, match="n_topics must be >= 1"):
        generate_corpus(10, 100, 0)
