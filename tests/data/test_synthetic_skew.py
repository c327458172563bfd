"""make_supervised_corpus's class_skew: Zipf class shares, and nothing else changed."""

from __future__ import annotations

import numpy as np

from medlda.data.synthetic import make_supervised_corpus


def test_class_skew_gives_zipf_shares():
    _, truth = make_supervised_corpus(3000, 12, words_per_topic=5, doc_length=20, n_classes=20, class_skew=1.0,
                                      random_state=1)
    target = 1.0 / np.arange(1, 21)
    target *= 3000 / target.sum()
    counts = np.bincount(truth.y, minlength=20)
    assert np.all(np.abs(counts - target) <= 0.1 * target + 5), (counts, target.round())
    assert np.array_equal(truth.y, np.argmax(truth.zbar @ truth.eta.T, axis=1))  # the biases are in eta


def test_no_skew_leaves_the_draws():
    """class_skew=0 draws no extra random numbers: the same corpus as without the argument."""
    a, ta = make_supervised_corpus(200, 6, words_per_topic=5, n_classes=5, random_state=3)
    b, tb = make_supervised_corpus(200, 6, words_per_topic=5, n_classes=5, class_skew=0.0, random_state=3)
    c, tc = make_supervised_corpus(200, 6, words_per_topic=5, n_classes=5, class_skew=1.0, random_state=3)
    assert np.array_equal(a.word_ids, b.word_ids) and np.array_equal(ta.y, tb.y)
    assert np.array_equal(a.word_ids, c.word_ids) and not np.array_equal(ta.y, tc.y)
