"""Classic3: MEDLINE, CISI and Cranfield abstracts, labelled by collection."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from kernelkit._validation import check_bool

from . import _files

__all__ = ["Corpus", "load_classic3"]

_COLLECTIONS = (
    ("MED", "classic3/MED.ALL"),
    ("CISI", "classic3/CISI.ALL"),
    ("CRAN", "classic3/cran.all.1400"),
)
_RECORD = re.compile(r"^\.I[ \t]+(\d+)[ \t]*$", re.MULTILINE)
_FIELD = re.compile(r"^\.([A-Z])[ \t]*$", re.MULTILINE)
_TEXT_FIELDS = ("T", "W")


@dataclass(frozen=True)
class Corpus:
    """Labelled documents: what :func:`load_classic3` returns.

    Attributes
    ----------
    documents : list of str
        The text of each document.
    labels : ndarray of str, shape (n_documents,)
        The collection each document belongs to.
    ids : ndarray of int64, shape (n_documents,)
        The record number of each document in its collection's file.
    """

    documents: list[str]
    labels: np.ndarray
    ids: np.ndarray


def load_classic3(*, drop_empty: bool = True) -> Corpus:
    """Load the Classic3 document clustering corpus.

    Parameters
    ----------
    drop_empty : bool, default True
        Drop documents with neither title nor abstract text (Cranfield 471 and 995), giving
        3891 documents; with False all 3893 records are returned.

    Returns
    -------
    Corpus
        ``documents``: title (``.T``) and abstract (``.W``) of each record, separated by a
        newline, with trailing spaces removed from every line (MEDLINE records have no
        title; in Cranfield the abstract usually starts by repeating the title, as in the
        source). ``labels``: ``"MED"`` (1033), ``"CISI"`` (1460) or ``"CRAN"`` (1398, or
        1400 with ``drop_empty=False``), in that order. ``ids``: the ``.I`` number of each
        document in its collection file.

    Notes
    -----
    The Glasgow IR test collections MEDLINE, CISI and Cranfield (SMART format); their
    union is the "Classic3" benchmark of document clustering (e.g. Dhillon, Mallela &
    Modha, "Information-theoretic co-clustering", KDD 2003). Authors (``.A``),
    bibliographic data (``.B``), keywords and cross-references are not included.

    Examples
    --------
    >>> from kernelkit.datasets import load_classic3
    >>> corpus = load_classic3()
    >>> len(corpus.documents), sorted(set(corpus.labels.tolist())), int(corpus.ids[0])
    (3891, ['CISI', 'CRAN', 'MED'], 1)
    """
    drop_empty = check_bool(drop_empty, "drop_empty")
    documents: list[str] = []
    labels: list[str] = []
    ids: list[int] = []
    for label, rel in _COLLECTIONS:
        text = _files.data_path(rel).read_text(encoding="latin-1")
        for number, document in _parse_smart(text, rel):
            if drop_empty and not document:
                continue
            documents.append(document)
            labels.append(label)
            ids.append(number)
    return Corpus(documents, np.array(labels), np.array(ids, dtype=np.int64))


def _parse_smart(text: str, source: str) -> list[tuple[int, str]]:
    """Split a SMART-format collection into ``(record number, title + abstract)``."""
    text = text.replace("\r\n", "\n")
    parts = _RECORD.split(text)
    if parts[0].strip():
        raise ValueError(f"{source}: text before the first '.I' record")
    records = []
    for number, body in zip(parts[1::2], parts[2::2], strict=True):
        fields = _FIELD.split(body)
        chunks = [
            _clean(content)
            for key, content in zip(fields[1::2], fields[2::2], strict=True)
            if key in _TEXT_FIELDS
        ]
        records.append((int(number), "\n".join(c for c in chunks if c)))
    if not records:
        raise ValueError(f"{source}: no '.I' records found")
    return records


def _clean(chunk: str) -> str:
    return "\n".join(line.rstrip() for line in chunk.strip("\n").splitlines()).strip()
