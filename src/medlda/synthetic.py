"""Labeled corpora drawn from the supervised topic model itself: known topics and classifier.

The built-in data of the README's main command, and the planted structure of recovery tests.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from .corpus import Corpus


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


def make_supervised_corpus(n_docs: int = 2000, n_topics: int = 10, *, words_per_topic: int = 30,
                           doc_length: int = 80, n_classes: int = 2, alpha_sum: float = 1.0,
                           purity: float = 0.9, eta_scale: float = 4.0, label_noise: float = 0.0,
                           random_state=None) -> tuple[Corpus, Bunch]:
    """Draw documents and labels from the model: theta_d ~ Dir(alpha), z ~ theta_d, w ~ phi_z,
    label = sign(eta . zbar_d) (two classes) or argmax_t eta_t . zbar_d, then ``label_noise`` of
    the labels replaced by a uniformly drawn class.

    Returns the Corpus (vocabulary ``t{k}_{j}``: word j of topic k's block; labels ``"0"..``) and
    the truth: ``topic_word`` (K, V), ``eta`` (T, K), ``doc_topic`` (D, K), ``zbar`` (D, K), ``y``.
    """
    if n_classes < 2:
        raise ValueError(f"n_classes must be >= 2, got {n_classes}")
    rng = np.random.default_rng(random_state)
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

    n_tasks = 1 if n_classes == 2 else n_classes
    eta = rng.normal(scale=eta_scale, size=(n_tasks, n_topics))
    omega = zbar @ eta.T
    if n_tasks == 1:
        shift = np.median(omega[:, 0])  # balanced classes; zbar sums to 1, so a shift of eta is a bias
        eta -= shift
        y = (omega[:, 0] - shift > 0).astype(np.int64)
    else:
        y = np.argmax(omega, axis=1)
    noisy = rng.random(n_docs) < label_noise
    y[noisy] = rng.integers(0, n_classes, size=int(noisy.sum()))
    vocabulary = np.array([f"t{k}_{j}" for k in range(n_topics) for j in range(words_per_topic)])
    corpus = Corpus(word_ids, doc_ptr, vocabulary, labels=[(str(c),) for c in y], source="synthetic")
    truth = Bunch(topic_word=phi, eta=eta, doc_topic=theta, zbar=zbar, y=y, z=z.astype(np.int32))
    return corpus, truth
