"""Labeled corpora drawn from the supervised topic model itself: known topics and classifier.

The built-in data of the README's main command, and the planted structure of recovery tests.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from medlda.data.corpus import Corpus


def make_topic_word(n_topics: int, words_per_topic: int, purity: float,
                    rng: np.random.Generator) -> np.ndarray:
    """phi (K, V) with V = K * words_per_topic: topic k puts ``purity`` of its mass on its own
    block of words (Dirichlet(1) weights inside the block) and the rest uniformly on all words."""
    n_words = n_topics * words_per_topic
    phi = np.full((n_topics, n_words), (1.0 - purity) / n_words)
    for k in range(n_topics):
        block = slice(k * words_per_topic, (k + 1) * words_per_topic)
        phi[k, block] += purity * rng.dirichlet(np.ones(words_per_topic))
    return phi


def _draw_documents(n_docs: int, n_topics: int, words_per_topic: int, doc_length: int,
                    alpha_sum: float, purity: float, rng: np.random.Generator):
    """theta_d ~ Dir(alpha), z ~ theta_d, w ~ phi_z: (word_ids, doc_ptr, phi, theta, zbar, z)."""
    phi = make_topic_word(n_topics, words_per_topic, purity, rng)
    theta = rng.dirichlet(np.full(n_topics, alpha_sum / n_topics), size=n_docs)
    lengths = np.maximum(rng.poisson(doc_length, size=n_docs), 1)
    doc_ptr = np.concatenate(([0], np.cumsum(lengths)))
    doc_of_token = np.repeat(np.arange(n_docs), lengths)
    cum = np.cumsum(theta, axis=1)
    z = (rng.random(doc_ptr[-1])[:, None] > cum[doc_of_token]).sum(axis=1).clip(max=n_topics - 1)
    word_ids = np.empty(doc_ptr[-1], dtype=np.int32)
    for k in range(n_topics):
        at = np.flatnonzero(z == k)
        word_ids[at] = rng.choice(phi.shape[1], size=at.size, p=phi[k])
    zbar = np.zeros((n_docs, n_topics))
    np.add.at(zbar, (doc_of_token, z), 1.0)
    zbar /= lengths[:, None]
    return word_ids, doc_ptr, phi, theta, zbar, z.astype(np.int32)


def _vocabulary(n_topics: int, words_per_topic: int) -> np.ndarray:
    return np.array([f"t{k}_{j}" for k in range(n_topics) for j in range(words_per_topic)])


def make_supervised_corpus(n_docs: int = 2000, n_topics: int = 10, *, words_per_topic: int = 30,
                           doc_length: int = 80, n_classes: int = 2, alpha_sum: float = 1.0,
                           purity: float = 0.9, eta_scale: float = 4.0, label_noise: float = 0.0,
                           class_skew: float = 0.0,
                           random_state: int | np.random.Generator | None = None) -> tuple[Corpus, Bunch]:
    """A labeled corpus drawn from the supervised topic model, with the truth that made it.

    theta_d ~ Dir(alpha), z ~ theta_d, w ~ phi_z; the label is sign(eta . zbar_d) (two classes,
    balanced) or argmax_t eta_t . zbar_d, then ``label_noise`` of the labels are replaced by a
    uniformly drawn class.

    Parameters
    ----------
    n_docs : int, default=2000
        Documents.
    n_topics : int, default=10
        Topics K; the vocabulary has ``n_topics * words_per_topic`` words.
    n_classes : int, default=2
        Classes (at least 2).
    words_per_topic : int, default=30
        Words in each topic's own block.
    doc_length : int, default=80
        Mean document length (Poisson; at least 1 token).
    alpha_sum : float, default=1.0
        Dirichlet prior mass of each document's topic proportions.
    purity : float, default=0.9
        Share of a topic's mass on its own block of words (the rest is spread on all words).
    eta_scale : float, default=4.0
        Standard deviation of the drawn weights eta.
    label_noise : float, default=0.0
        Share of the labels replaced by a uniformly drawn class.
    class_skew : float, default=0.0
        s > 0 (several classes): biases give class t a share of the documents about proportional
        to (t + 1)^-s (Zipf: many small classes); 0 leaves eta as drawn.
    random_state : int, Generator or None
        Seed.

    Returns
    -------
    corpus : Corpus
        Vocabulary ``t{k}_{j}`` (word j of topic k's block); labels ``"0"``, ``"1"``, ...
    truth : Bunch
        ``topic_word`` (K, V), ``eta`` (T, K), ``doc_topic`` (D, K), ``zbar`` (D, K), ``z`` (the
        tokens' topics) and ``y`` (D,), the labels as ints.

    Examples
    --------
    >>> from medlda.data.synthetic import make_supervised_corpus
    >>> corpus, truth = make_supervised_corpus(200, 4, n_classes=3, random_state=0)
    >>> corpus.n_docs, corpus.n_words, truth.eta.shape
    (200, 120, (3, 4))
    >>> corpus.labels[0], int(truth.y[0])
    (('2',), 2)
    """
    if n_classes < 2:
        raise ValueError(f"n_classes must be >= 2, got {n_classes}")
    rng = np.random.default_rng(random_state)
    word_ids, doc_ptr, phi, theta, zbar, z = _draw_documents(n_docs, n_topics, words_per_topic, doc_length,
                                                              alpha_sum, purity, rng)

    n_tasks = 1 if n_classes == 2 else n_classes
    eta = rng.normal(scale=eta_scale, size=(n_tasks, n_topics))
    omega = zbar @ eta.T
    if n_tasks == 1:
        shift = np.median(omega[:, 0])  # balanced classes; zbar sums to 1, so a shift of eta is a bias
        eta -= shift
        y = (omega[:, 0] - shift > 0).astype(np.int64)
    else:
        if class_skew > 0:
            eta += class_biases(omega, class_skew)[:, None]
        y = np.argmax(zbar @ eta.T, axis=1)
    noisy = rng.random(n_docs) < label_noise
    y[noisy] = rng.integers(0, n_classes, size=int(noisy.sum()))
    corpus = Corpus(word_ids, doc_ptr, _vocabulary(n_topics, words_per_topic),
                    labels=[(str(c),) for c in y], source="synthetic")
    truth = Bunch(topic_word=phi, eta=eta, doc_topic=theta, zbar=zbar, y=y, z=z)
    return corpus, truth


def class_biases(omega: np.ndarray, skew: float, rounds: int = 300) -> np.ndarray:
    """Biases b (T,) such that argmax_t (omega_dt + b_t) gives class t about a share proportional
    to (t + 1)^-skew of the rows of ``omega`` (D, T): each round moves b_t by the log ratio of
    the target share to the share found (clipped to +-1), times 0.02 of omega's spread."""
    n_docs, n_classes = omega.shape
    target = np.arange(1, n_classes + 1, dtype=float) ** -skew
    target /= target.sum()
    bias = np.zeros(n_classes)
    for _ in range(rounds):
        share = np.bincount(np.argmax(omega + bias, axis=1), minlength=n_classes) / n_docs
        bias += 0.02 * np.std(omega) * np.clip(np.log(target) - np.log(np.maximum(share, 0.5 / n_docs)), -1, 1)
    return bias


def make_multilabel_corpus(n_docs: int = 2000, n_topics: int = 10, *, n_labels: int = 5,
                           words_per_topic: int = 30, doc_length: int = 80, alpha_sum: float = 1.0,
                           purity: float = 0.9, eta_scale: float = 4.0, prevalence: float = 0.25,
                           random_state: int | np.random.Generator | None = None) -> tuple[Corpus, Bunch]:
    """A multi-label corpus drawn from the supervised topic model, with the truth that made it.

    Documents are drawn as in ``make_supervised_corpus``; label t is present when
    eta_t . zbar_d > b_t, with b_t chosen so that a fraction ``prevalence`` of the documents carry it.

    Parameters
    ----------
    n_docs : int, default=2000
        Documents.
    n_topics : int, default=10
        Topics K; the vocabulary has ``n_topics * words_per_topic`` words.
    n_labels : int, default=5
        Labels.
    words_per_topic : int, default=30
        Words in each topic's own block.
    doc_length : int, default=80
        Mean document length (Poisson; at least 1 token).
    alpha_sum : float, default=1.0
        Dirichlet prior mass of each document's topic proportions.
    purity : float, default=0.9
        Share of a topic's mass on its own block of words (the rest is spread on all words).
    eta_scale : float, default=4.0
        Standard deviation of the drawn weights eta.
    prevalence : float, default=0.25
        Share of the documents carrying each label, in (0, 1).
    random_state : int, Generator or None
        Seed.

    Returns
    -------
    corpus : Corpus
        Labels: tuples of ``"L{t}"``, possibly empty.
    truth : Bunch
        As ``make_supervised_corpus``'s, with ``Y`` the (D, n_labels) 0/1 indicator matrix
        instead of ``y``, and ``eta`` (n_labels, K) including the shift b_t.

    Examples
    --------
    >>> from medlda.data.synthetic import make_multilabel_corpus
    >>> corpus, truth = make_multilabel_corpus(200, 4, n_labels=3, random_state=0)
    >>> corpus.labels[:2], truth.Y.shape, truth.Y.mean(axis=0).round(2).tolist()
    ([('L0',), ('L2',)], (200, 3), [0.25, 0.25, 0.25])
    """
    if not 0 < prevalence < 1:
        raise ValueError(f"prevalence must lie in (0, 1), got {prevalence}")
    rng = np.random.default_rng(random_state)
    word_ids, doc_ptr, phi, theta, zbar, z = _draw_documents(n_docs, n_topics, words_per_topic, doc_length,
                                                              alpha_sum, purity, rng)
    eta = rng.normal(scale=eta_scale, size=(n_labels, n_topics))
    omega = zbar @ eta.T
    eta -= np.quantile(omega, 1.0 - prevalence, axis=0)[:, None]  # a shift of eta is a bias (sum zbar = 1)
    Y = (zbar @ eta.T > 0).astype(np.int64)
    labels = [tuple(f"L{t}" for t in np.flatnonzero(row)) for row in Y]
    corpus = Corpus(word_ids, doc_ptr, _vocabulary(n_topics, words_per_topic), labels=labels, source="synthetic")
    return corpus, Bunch(topic_word=phi, eta=eta, doc_topic=theta, zbar=zbar, Y=Y, z=z)


def make_regression_corpus(n_docs: int = 2000, n_topics: int = 10, *, words_per_topic: int = 30,
                           doc_length: int = 80, alpha_sum: float = 1.0, purity: float = 0.9,
                           eta_scale: float = 1.0, noise: float = 0.1,
                           random_state: int | np.random.Generator | None = None) -> tuple[Corpus, Bunch]:
    """A corpus with a real response drawn from the supervised topic model, and its truth.

    Documents are drawn as in ``make_supervised_corpus``; the response is
    y_d = eta . zbar_d + N(0, noise^2).

    Parameters
    ----------
    n_docs : int, default=2000
        Documents.
    n_topics : int, default=10
        Topics K; the vocabulary has ``n_topics * words_per_topic`` words.
    words_per_topic : int, default=30
        Words in each topic's own block.
    doc_length : int, default=80
        Mean document length (Poisson; at least 1 token).
    alpha_sum : float, default=1.0
        Dirichlet prior mass of each document's topic proportions.
    purity : float, default=0.9
        Share of a topic's mass on its own block of words (the rest is spread on all words).
    eta_scale : float, default=1.0
        Standard deviation of the drawn weights eta.
    noise : float, default=0.1
        Standard deviation of the response's noise.
    random_state : int, Generator or None
        Seed.

    Returns
    -------
    corpus : Corpus
        Labels: the responses written as text.
    truth : Bunch
        As ``make_supervised_corpus``'s, ``eta`` of shape (1, K) and ``y`` the responses.

    Examples
    --------
    >>> from medlda.data.synthetic import make_regression_corpus
    >>> corpus, truth = make_regression_corpus(200, 4, random_state=0)
    >>> corpus.real_labels()[:2].round(3), truth.y[:2].round(3)
    (array([-0.261, -0.275]), array([-0.261, -0.275]))
    """
    rng = np.random.default_rng(random_state)
    word_ids, doc_ptr, phi, theta, zbar, z = _draw_documents(n_docs, n_topics, words_per_topic, doc_length,
                                                              alpha_sum, purity, rng)
    eta = rng.normal(scale=eta_scale, size=(1, n_topics))
    y = zbar @ eta[0] + rng.normal(scale=noise, size=n_docs)
    corpus = Corpus(word_ids, doc_ptr, _vocabulary(n_topics, words_per_topic),
                    labels=[(repr(float(v)),) for v in y], source="synthetic")
    return corpus, Bunch(topic_word=phi, eta=eta, doc_topic=theta, zbar=zbar, y=y, z=z)
