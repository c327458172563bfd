"""A corpus's labels: as one class per document, label tuples or real responses, and how a
message names a document.

``CorpusLabels`` is a mixin of ``medlda.data.corpus.Corpus``: it reads its ``labels``,
``doc_names`` and ``source``.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


class CorpusLabels:
    """The label accessors of a ``Corpus`` (a mixin)."""

    labels: list[tuple[str, ...]] | None
    doc_names: list[str] | None
    source: str | None

    def single_labels(self) -> np.ndarray:
        """One label per document: what a classifier's ``fit`` takes as y.

        Returns
        -------
        ndarray of shape (n_docs,)
            int64 when every label is an integer ("+1", "-1", "3"), else str.

        Raises
        ------
        ValueError
            For a corpus without labels, or with a document that has not exactly one label.

        Examples
        --------
        >>> from medlda import Corpus
        >>> corpus = Corpus.from_tokens([["apple", "pear"], ["fig"]], labels=["3", "-1"])
        >>> corpus.single_labels()
        array([ 3, -1])
        """
        labels = self.require_labels()
        bad = [d for d, lab in enumerate(labels) if len(lab) != 1]
        if bad:
            raise ValueError(
                f"{len(bad)} documents do not carry exactly one label (first: {self.where(bad[0])}, with "
                f"{len(labels[bad[0]])}); single-label training needs one label per document"
            )
        return parse_label_values([lab[0] for lab in labels])

    def multi_labels(self) -> list[tuple[str, ...]]:
        """The label tuples of every document (multi-label data).

        Returns
        -------
        list of tuple of str
            Possibly empty tuples.

        Raises
        ------
        ValueError
            For a corpus without labels.

        Examples
        --------
        >>> from medlda import Corpus
        >>> corpus = Corpus.from_tokens([["apple", "pear"], ["fig"]], labels=[("x", "y"), ()])
        >>> corpus.multi_labels()
        [('x', 'y'), ()]
        """
        return list(self.require_labels())

    def real_labels(self) -> np.ndarray:
        """One real response per document: what a regressor's ``fit`` takes as y.

        Returns
        -------
        ndarray of shape (n_docs,)
            float64.

        Raises
        ------
        ValueError
            For a corpus without labels, or with a document whose label is not one number.

        Examples
        --------
        >>> from medlda import Corpus
        >>> corpus = Corpus.from_tokens([["apple", "pear"], ["fig"]], labels=["1.5", "-2"])
        >>> corpus.real_labels()
        array([ 1.5, -2. ])
        """
        labels = self.require_labels()
        out = np.empty(len(labels))
        for d, lab in enumerate(labels):
            try:
                if len(lab) != 1:
                    raise ValueError
                out[d] = float(lab[0])
            except ValueError:
                raise ValueError(f"{self.where(d)}: response {' '.join(lab)!r} is not one real number") from None
        return out

    def where(self, d: int) -> str:
        """How a message names document ``d``: its file and name in it ('line N') when known.

        Parameters
        ----------
        d : int
            The document's index.

        Returns
        -------
        str

        Examples
        --------
        >>> from medlda import Corpus
        >>> Corpus.from_tokens([["apple"]]).where(0)
        'document 0'
        """
        if self.doc_names is None:
            return f"document {d}" + (f" of {self.source}" if self.source else "")
        return f"{self.source}, {self.doc_names[d]}" if self.source else self.doc_names[d]

    def require_labels(self) -> list[tuple[str, ...]]:
        """The label tuples of every document, refusing an unlabeled corpus.

        Returns
        -------
        list of tuple of str

        Raises
        ------
        ValueError
            For a corpus without labels.

        Examples
        --------
        >>> from medlda import Corpus
        >>> corpus = Corpus.from_tokens([["apple", "pear"], ["fig"]], labels=["a", "b"])
        >>> corpus.require_labels()
        [('a',), ('b',)]
        """
        if self.labels is None:
            raise ValueError(f"corpus {self.source or ''} has no labels".replace("  ", " "))
        return self.labels


def parse_label_values(values: Sequence[str]) -> np.ndarray:
    """Label strings as an int array when all are integers ("+1", "-1", "3"), else a str array."""
    try:
        return np.array([int(v) for v in values], dtype=np.int64)
    except ValueError:
        return np.array(values, dtype=str)


def as_label_tuples(labels, n_docs: int) -> list[tuple[str, ...]] | None:
    if labels is None:
        return None
    if len(labels) != n_docs:
        raise ValueError(f"{len(labels)} labels for {n_docs} documents")
    out = []
    for lab in labels:
        if isinstance(lab, (tuple, list, set, frozenset)):
            out.append(tuple(str(x) for x in lab))
        else:
            out.append((str(lab),))
    return out
