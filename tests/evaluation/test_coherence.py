"""Topic coherence: NPMI and UMass against their definitions counted document by document."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from medlda import LDA
from medlda.data.corpus import Corpus
from medlda.data.synthetic import make_supervised_corpus
from medlda.evaluation.coherence import topic_coherence


def corpus_of(word_sets: list[set[int]], n_words: int) -> Corpus:
    """Documents containing the given words (each twice, so repeats must not count)."""
    rows = np.zeros((len(word_sets), n_words), np.int64)
    for d, words in enumerate(word_sets):
        rows[d, list(words)] = 2
    return Corpus.from_sparse(sp.csr_matrix(rows))


def by_hand(top: list[int], docs: list[set[int]], measure: str) -> float:
    """The measure's definition, counting documents with Python sets; NaN-free inputs only."""
    n = len(docs)
    values = []
    for j in range(1, len(top)):
        for i in range(j):
            a, b = top[i], top[j]
            d_a = sum(a in doc for doc in docs)
            d_b = sum(b in doc for doc in docs)
            d_ab = sum(a in doc and b in doc for doc in docs)
            if measure == "umass":
                values.append(math.log((d_ab + 1) / d_a))
            elif d_ab == 0:
                values.append(-1.0)
            elif d_ab == n:
                values.append(1.0)
            else:
                values.append(math.log(d_ab * n / (d_a * d_b)) / -math.log(d_ab / n))
    return sum(values) / len(values)


@pytest.mark.parametrize("measure", ["npmi", "umass"])
def test_matches_the_definition_on_random_corpora(measure):
    rng = np.random.default_rng(0)
    for _ in range(5):
        n_words = 12
        docs = [set(rng.choice(n_words, size=rng.integers(1, 7), replace=False).tolist()) for _ in range(30)]
        seen = sorted(set().union(*docs))
        top = np.array([rng.choice(seen, size=5, replace=False) for _ in range(4)])
        got = topic_coherence(top, corpus_of(docs, n_words), measure)
        want = [by_hand(row.tolist(), docs, measure) for row in top]
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_npmi_is_one_together_zero_independent_minus_one_apart():
    docs = [{0, 1, 2}, {0, 1}, {2, 3}, {3}]
    corpus = corpus_of(docs, 4)
    # 0 and 1 always together; 0 and 2 independent (each in half the documents, together in a
    # quarter); 1 and 3 never together
    np.testing.assert_allclose(topic_coherence(np.array([[0, 1], [0, 2], [1, 3]]), corpus, "npmi"),
                               [1.0, 0.0, -1.0], atol=1e-12)
    everywhere = corpus_of([{0, 1}, {0, 1, 2}], 3)
    assert topic_coherence(np.array([[0, 1]]), everywhere, "npmi")[0] == 1.0


def test_umass_orders_pairs_by_rank():
    """UMass conditions on the higher-ranked word: swapping a rare and a common word changes it."""
    docs = [{0, 1}, {0}, {0}, {0}]
    corpus = corpus_of(docs, 2)
    common_first, rare_first = topic_coherence(np.array([[0, 1], [1, 0]]), corpus, "umass")
    assert common_first == pytest.approx(math.log(2 / 4))
    assert rare_first == pytest.approx(math.log(2 / 1))


def test_words_missing_from_the_reference_are_left_out():
    corpus = corpus_of([{0, 1}, {1}], 4)
    got = topic_coherence(np.array([[0, 1, 3], [2, 3, 0]]), corpus, "npmi")
    assert got[0] == pytest.approx(by_hand([0, 1], [{0, 1}, {1}], "npmi"))  # the pairs with word 3 dropped
    assert np.isnan(got[1])  # only one word present: no pair


def test_bad_arguments_are_refused_by_name():
    corpus = corpus_of([{0, 1}], 3)
    with pytest.raises(ValueError, match="measure must be one of npmi, umass"):
        topic_coherence(np.array([[0, 1]]), corpus, "cv")
    with pytest.raises(ValueError, match="at least 2 words"):
        topic_coherence(np.array([[0]]), corpus)
    with pytest.raises(ValueError, match=r"\[0, 3\)"):
        topic_coherence(np.array([[0, 3]]), corpus)


@pytest.fixture(scope="module")
def planted():
    corpus, truth = make_supervised_corpus(600, 6, words_per_topic=12, doc_length=60, random_state=4)
    return corpus, LDA(6, max_iter=60, alpha_sum=1.0, random_state=0).fit(corpus)


def test_learned_topics_are_more_coherent_than_random_words(planted):
    corpus, model = planted
    learned = model.coherence(corpus, "npmi", n_words=8)
    np.testing.assert_allclose(learned, topic_coherence(model.top_word_ids(8), corpus, "npmi"))
    rng = np.random.default_rng(1)
    shuffled = topic_coherence(np.array([rng.choice(corpus.n_words, 8, replace=False) for _ in range(6)]), corpus)
    assert learned.min() > shuffled.max()
    assert model.coherence(corpus, "umass").mean() > topic_coherence(
        np.array([rng.choice(corpus.n_words, 10, replace=False) for _ in range(6)]), corpus, "umass").mean()
    with pytest.raises(ValueError, match="but LDA is expecting 72 features as input"):
        model.coherence(sp.csr_matrix(np.ones((2, corpus.n_words + 1))))
