"""Synthetic corpora from the probabilistic corpus model of Vempala (1997) §4.2.

A *topic* is a probability distribution over the terms; a document picks a topic (or a
convex combination of topics), a length ``ℓ``, and draws its ``ℓ`` terms independently
from that distribution. The model is *pure* when every document has one topic, and
*ε-separable* when each topic has its own primary set of terms (disjoint across topics)
carrying at least ``1 − ε`` of its mass (§4.3.2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from kernelkit._memory import check_memory
from kernelkit._validation import check_int, check_random_state

__all__ = ["SyntheticCorpus", "generate_corpus"]


@dataclass(frozen=True)
class SyntheticCorpus:
    """A corpus drawn by :func:`generate_corpus`.

    Attributes
    ----------
    counts : scipy.sparse.csc_array of int64, shape (n_terms, n_documents)
        Term × document counts (the thesis's orientation): ``counts[t, j]`` is how often
        term ``t`` occurs in document ``j``; each column sums to that document's length.
    labels : ndarray of int64, shape (n_documents,)
        The topic of each document (for a mixture, the topic of largest weight).
    topic_weights : ndarray, shape (n_documents, n_topics)
        Each document's convex combination of topics (one-hot for a pure corpus).
    topic_distributions : ndarray, shape (n_topics, n_terms)
        Each topic's distribution over the terms (rows sum to 1).
    primary_terms : ndarray of int64, shape (n_topics, primary_size)
        The primary set of terms of each topic (disjoint across topics).
    lengths : ndarray of int64, shape (n_documents,)
        The number of term occurrences in each document.
    epsilon : float
        The separability: each topic puts ``1 − epsilon`` of its mass on its primary set
        (uniformly) plus its share of the ``epsilon`` spread uniformly over all terms.
    """

    counts: sp.csc_array
    labels: np.ndarray
    topic_weights: np.ndarray
    topic_distributions: np.ndarray
    primary_terms: np.ndarray
    lengths: np.ndarray
    epsilon: float


def generate_corpus(
    n_documents: int = 1000,
    n_terms: int = 2000,
    n_topics: int = 20,
    *,
    primary_size: int = 100,
    epsilon: float = 0.05,
    length_range: tuple[int, int] = (50, 100),
    topics_per_document: int = 1,
    random_state: Any = None,
) -> SyntheticCorpus:
    """Draw a corpus from the ε-separable topic model of Vempala (1997) §4.2–4.3.

    The defaults are the experiment of Vempala (1997) §4.3.3: 1000 documents of 50 to 100
    terms, 2000 terms, 20 topics, each with a disjoint random set of 100 primary terms
    carrying 0.95 of its mass uniformly, the other 0.05 spread uniformly over all 2000
    terms (a pure, 0.05-separable model).

    Parameters
    ----------
    n_documents : int, default 1000
        Number of documents ``m``.
    n_terms : int, default 2000
        Size of the term universe ``n``.
    n_topics : int, default 20
        Number of topics; ``n_topics * primary_size <= n_terms``.
    primary_size : int, default 100
        Terms in each topic's primary set (the sets are disjoint, drawn at random).
    epsilon : float in [0, 1], default 0.05
        Mass of each topic outside the primary-set part: topic ``T`` gives term ``t`` the
        probability ``(1 − ε) 1[t ∈ U_T] / primary_size + ε / n_terms``. ``epsilon=0`` is
        the block-diagonal case of the proof of Thm 9 (documents use only their primary
        terms); the model is ε-separable.
    length_range : (int, int), default (50, 100)
        Document lengths are uniform on ``{low, ..., high}`` (both included, ``low >= 1``).
    topics_per_document : int, default 1
        ``1`` gives a *pure* corpus (each document on one topic drawn uniformly). A larger
        value mixes that many distinct random topics per document with weights drawn from
        a flat Dirichlet; each term is drawn from the mixture.
    random_state : int, RandomState or None
        Seed.

    Returns
    -------
    SyntheticCorpus
        The counts (sparse, terms × documents), the labels and the model.

    Examples
    --------
    >>> corpus = generate_corpus(random_state=0)
    >>> corpus.counts.shape, corpus.labels.shape
    ((2000, 1000), (1000,))
    >>> bool((corpus.counts.sum(axis=0) == corpus.lengths).all())
    True
    >>> tiny = generate_corpus(6, 40, 2, primary_size=20, epsilon=0.0, random_state=0)
    >>> own = tiny.primary_terms[tiny.labels]  # each document's primary set
    >>> bool(all(set(tiny.counts[:, [j]].nonzero()[0]) <= set(own[j]) for j in range(6)))
    True
    """
    n_documents = check_int(n_documents, "n_documents", minimum=1)
    n_terms = check_int(n_terms, "n_terms", minimum=1)
    n_topics = check_int(n_topics, "n_topics", minimum=1)
    primary_size = check_int(primary_size, "primary_size", minimum=1)
    topics_per_document = check_int(topics_per_document, "topics_per_document", minimum=1)
    if n_topics * primary_size > n_terms:
        raise ValueError(
            f"n_topics * primary_size = {n_topics} * {primary_size} = "
            f"{n_topics * primary_size} exceeds n_terms={n_terms}: the primary sets are disjoint"
        )
    if topics_per_document > n_topics:
        raise ValueError(f"topics_per_document={topics_per_document} exceeds n_topics={n_topics}")
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.floating)):
        raise TypeError(f"epsilon must be a number in [0, 1], got {type(epsilon).__name__}")
    epsilon = float(epsilon)
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon must be in [0, 1], got {epsilon}")
    low, high = _check_length_range(length_range)
    # the topic distributions and weights, and about six arrays over the tokens
    check_memory(
        8 * (n_terms + n_topics * n_terms + 3 * n_documents * n_topics + 6 * n_documents * high),
        f"generate_corpus(n_documents={n_documents}, n_terms={n_terms}, n_topics={n_topics}, "
        f"length_range=({low}, {high}))",
        "ask for fewer documents, terms or topics",
    )
    rng = check_random_state(random_state)

    primary = rng.permutation(n_terms)[: n_topics * primary_size].reshape(n_topics, -1)
    topic_distributions = np.full((n_topics, n_terms), epsilon / n_terms)
    rows = np.repeat(np.arange(n_topics), primary_size)
    topic_distributions[rows, primary.ravel()] += (1.0 - epsilon) / primary_size

    weights = np.zeros((n_documents, n_topics))
    if topics_per_document == 1:
        labels = rng.randint(n_topics, size=n_documents)
        weights[np.arange(n_documents), labels] = 1.0
    else:
        # topics_per_document distinct topics per document: the first columns of a random
        # permutation of the topics (argsort of uniform noise), with Dirichlet(1) weights
        chosen = np.argsort(rng.random_sample((n_documents, n_topics)), axis=1)
        chosen = chosen[:, :topics_per_document]
        mix = rng.dirichlet(np.ones(topics_per_document), size=n_documents)
        np.put_along_axis(weights, chosen, mix, axis=1)
        labels = np.argmax(weights, axis=1)

    lengths = rng.randint(low, high + 1, size=n_documents)
    doc = np.repeat(np.arange(n_documents), lengths)  # the document of each token
    if topics_per_document == 1:
        topic = labels[doc]
    else:
        cumulative = np.cumsum(weights, axis=1)[doc]
        u = rng.random_sample(doc.size)[:, None]
        topic = np.minimum((u >= cumulative).sum(axis=1), n_topics - 1)
    # each token: with probability ε a uniform term, else a uniform primary term of its topic
    uniform = rng.random_sample(doc.size) < epsilon
    term = primary[topic, rng.randint(primary_size, size=doc.size)]
    term[uniform] = rng.randint(n_terms, size=int(uniform.sum()))
    counts = sp.csc_array(
        (np.ones(doc.size, dtype=np.int64), (term, doc)), shape=(n_terms, n_documents)
    )
    counts.sum_duplicates()
    return SyntheticCorpus(
        counts=counts,
        labels=labels.astype(np.int64),
        topic_weights=weights,
        topic_distributions=topic_distributions,
        primary_terms=primary.astype(np.int64),
        lengths=lengths.astype(np.int64),
        epsilon=epsilon,
    )


def _check_length_range(length_range: Any) -> tuple[int, int]:
    try:
        low, high = length_range
    except (TypeError, ValueError):
        raise TypeError(
            f"length_range must be a pair (low, high) of integers, got {length_range!r}"
        ) from None
    low = check_int(low, "length_range[0]", minimum=1)
    high = check_int(high, "length_range[1]", minimum=1)
    if high < low:
        raise ValueError(f"length_range must have low <= high, got ({low}, {high})")
    return low, high
