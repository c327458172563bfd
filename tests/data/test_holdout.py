"""Holding out test documents (``medlda train --holdout``): seeded, stratified, every test class seen in training."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from medlda.data.corpus import Corpus, holdout_indices


def _labels(*groups: tuple[str, int]) -> list[tuple[str, ...]]:
    return [(name,) for name, n in groups for _ in range(n)]


def test_a_class_of_one_document_stays_in_training():
    labels = _labels(("a", 8), ("b", 8), ("c", 8), ("rare", 1))
    rare = labels.index(("rare",))
    for seed in range(20):
        kept, held = holdout_indices(labels, len(labels), 6, seed)
        assert rare in kept and held.size == 6 and np.intersect1d(kept, held).size == 0
        assert np.union1d(kept, held).tolist() == list(range(len(labels)))
        assert sorted(labels[d][0] for d in held) == ["a", "a", "b", "b", "c", "c"]  # stratified among the others


def test_without_rare_classes_the_split_is_the_stratified_one_of_before():
    labels = _labels(("x", 10), ("y", 6), ("z", 4))
    y = np.array([lab[0] for lab in labels])
    kept, held = holdout_indices(labels, 20, 5, 3)
    old_kept, old_held = train_test_split(np.arange(20), test_size=5, random_state=3, stratify=y)
    assert kept.tolist() == sorted(old_kept) and held.tolist() == sorted(old_held)
    assert holdout_indices(labels, 20, 5, 3)[1].tolist() == held.tolist()  # seeded
    assert any(holdout_indices(labels, 20, 5, s)[1].tolist() != held.tolist() for s in range(4, 10))


def test_plain_draws_when_stratifying_cannot_work():
    multi = [("a", "b"), ("a",), (), ("b",), ("a",), ("b",)]
    kept, held = holdout_indices(multi, 6, 2, 0)
    assert (kept.size, held.size) == (4, 2)
    singles = _labels(("a", 1), ("b", 1), ("c", 1), ("d", 2))  # too few others: every document is drawn from
    kept, held = holdout_indices(singles, 5, 3, 0)
    assert (kept.size, held.size) == (2, 3)
    kept, held = holdout_indices(None, 10, 4, 0)
    assert (kept.size, held.size) == (6, 4)
    with pytest.raises(ValueError, match="cannot hold out 5 of 5 documents"):
        holdout_indices(None, 5, 5, 0)


def test_rare_csv_holds_out_only_classes_it_trains_on(tmp_path):
    from medlda.data.readers import read_corpus

    rows = [f"word{d % 4} text{d % 3} common note,{'abc'[d % 3]}" for d in range(24)] + ["word1 text2 note,rare"]
    path = tmp_path / "rare.csv"
    path.write_text("text,label\n" + "\n".join(rows) + "\n")
    corpus = read_corpus(path)
    for seed in range(5):
        train, test = corpus.holdout(round(0.25 * corpus.n_docs), random_state=seed)
        assert ("rare",) in train.labels and set(test.labels) <= set(train.labels)
        assert (train.n_docs, test.n_docs, train.source) == (19, 6, str(path))
    _, test = corpus.holdout(6, random_state=0, stratify=False)
    assert test.n_docs == 6
    assert isinstance(test, Corpus)
