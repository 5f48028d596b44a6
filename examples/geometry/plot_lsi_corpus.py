"""
Latent semantic indexing of a synthetic corpus
==============================================

Draw 300 documents from the topic model of Vempala (1997) §4.2
(:func:`~kernelkit.geometry.generate_corpus`): 6 topics over 2000 terms, each topic
putting ``1 - epsilon`` of its mass uniformly on its own 100 primary terms and
``epsilon = 0.3`` on all terms, each document on one topic, 30 to 60 terms long. Short
documents share few terms even within a topic, so the cosine similarities of their raw
term counts are small for every pair.

Rank-``k`` LSI (:func:`~kernelkit.geometry.lsi`, §4.1) projects the documents onto the
top ``k = 6`` left singular vectors of the term-document matrix. For a pure,
``epsilon``-separable corpus, documents of one topic become nearly parallel and documents
of different topics nearly orthogonal (Thm 9). LSI after a random projection of the
terms to ``l = 200`` dimensions (:func:`~kernelkit.geometry.random_projection_lsi`, §4.4)
keeps most of that for the price of an SVD of a ``200 x 300`` matrix instead of a
``2000 x 300`` one.
"""

import matplotlib.pyplot as plt
import numpy as np

from kernelkit.geometry import generate_corpus, lsi, random_projection_lsi

corpus = generate_corpus(
    300, 2000, 6, primary_size=100, epsilon=0.3, length_range=(30, 60), random_state=0
)
order = np.argsort(corpus.labels, kind="stable")  # documents sorted by topic
labels = corpus.labels[order]
counts = corpus.counts[:, order]  # terms x documents
print(f"{counts.shape[1]} documents, {counts.shape[0]} terms, {counts.nnz} non-zero counts")

# %%
# The documents in three representations, and the cosine similarity of every pair.


def cosines(rows):
    rows = np.asarray(rows, dtype=float)
    rows = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return rows @ rows.T


representations = {
    "raw term counts": cosines(counts.T.toarray()),
    "LSI, k = 6": cosines(lsi(counts, 6)),
    "random projection to l = 200, then LSI": cosines(
        random_projection_lsi(counts, 200, 6, random_state=0)
    ),
}
same_topic = labels[:, None] == labels[None, :]
np.fill_diagonal(same_topic, False)
other_topic = labels[:, None] != labels[None, :]
for name, similarity in representations.items():
    print(
        f"{name:40s} mean cosine: same topic {similarity[same_topic].mean():.2f}, "
        f"different topics {similarity[other_topic].mean():.2f}"
    )

# %%
# With the documents sorted by topic, LSI turns the faint block structure of the raw
# counts into six clean blocks.

fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), layout="constrained")
for ax, (name, similarity) in zip(axes, representations.items(), strict=True):
    image = ax.imshow(similarity, cmap="magma", vmin=0, vmax=1)
    ax.set_title(name)
    ax.set_xlabel("document (sorted by topic)")
axes[0].set_ylabel("document (sorted by topic)")
fig.colorbar(image, ax=axes, shrink=0.85, label="cosine similarity")
plt.show()
