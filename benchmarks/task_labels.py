"""The tasks benchmark's label-learning parts (``bench_tasks.py``, parts r52 and synthetic): their
data, the measurement of how far light's eta lies from its exact conditional, and their summary
rows."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
from rows import row

from medlda.data.corpus import Corpus
from medlda.data.readers.reuters import modapte_subset
from medlda.data.readers.texts import texts_to_corpus
from medlda.data.synthetic import make_supervised_corpus
from medlda.samplers import Light
from medlda.samplers.eta import eta_statistics

SUITE = "tasks"


def r52_split(path: Path) -> tuple[Corpus, Corpus]:
    """R52's training and test corpora (the test documents in the training vocabulary)."""
    texts, labels, _, ids = modapte_subset(path, "train", single_label=True)
    train = texts_to_corpus(texts, labels, [f"NEWID={i}" for i in ids], path, None, None, news=False)
    texts, labels, _, ids = modapte_subset(path, "test", single_label=True)
    return train, texts_to_corpus(texts, labels, [f"NEWID={i}" for i in ids], path, train.vocabulary, None,
                                  news=False)


R8_TOPICS = 10  # R8: R52's documents of the ten most frequent ModApte categories (two never stand alone)


def r8_split(path: Path) -> tuple[Corpus, Corpus]:
    """R8's training and test corpora (5,485 / 2,189): R52's documents whose category is among the
    ``R8_TOPICS`` most frequent of the ModApte training documents (multi-label ones counted too),
    over the words of those training documents."""
    _, labels, _, _ = modapte_subset(path, "train")
    names, counts = np.unique([name for doc in labels for name in doc], return_counts=True)
    kept = set(names[np.argsort(-counts, kind="stable")[:R8_TOPICS]])
    splits = []
    for subset in ("train", "test"):
        texts, labels, _, ids = modapte_subset(path, subset, single_label=True)
        keep = [j for j, doc in enumerate(labels) if doc[0] in kept]
        vocabulary = splits[0].vocabulary if splits else None
        splits.append(texts_to_corpus([texts[j] for j in keep], [labels[j] for j in keep],
                                      [f"NEWID={ids[j]}" for j in keep], path, vocabulary, None, news=False))
    return splits[0], splits[1]


def synthetic_split() -> tuple[Corpus, Corpus]:
    """The ``synthetic`` part's corpus: many small classes, noisy labels; 3,000 train, 1,000 test."""
    corpus, _ = make_supervised_corpus(4000, 30, words_per_topic=30, doc_length=80, n_classes=30, class_skew=1.0,
                                       label_noise=0.2, random_state=0)
    return corpus.subset(np.arange(3000)), corpus.subset(np.arange(3000, 4000))


class EtaLag:
    """Within ``with``: every ``every``-th eta that light draws is compared with eta's exact
    conditional given the chain's zbar and the aux of that iteration. ``lag``: per checkpoint
    (iteration, mean over tasks of (eta_t - m_t)' P_t (eta_t - m_t) / K, root mean square over
    tasks of the z-score of sum_k eta_tk), with P_t and m_t the conditional's precision and mean;
    exact draws give about 1 and 1."""

    def __init__(self, every: int = 5):
        self.every, self.lag, self.calls = every, [], 0

    def __enter__(self):
        self.draw = Light.draw_eta
        lag = self

        def draw_eta(sampler, state, eta, kappa, w, nu, rng):
            new, omega = lag.draw(sampler, state, eta, kappa, w, nu, rng)
            lag.calls += 1
            if lag.calls % lag.every == 0:
                lag.lag.append((lag.calls, *conditional_distance(new, state.zbar(), kappa, w, nu)))
            return new, omega

        Light.draw_eta = draw_eta
        return self

    def __exit__(self, *exc):
        Light.draw_eta = self.draw


def conditional_distance(eta: np.ndarray, zbar: np.ndarray, kappa: np.ndarray, w: np.ndarray,
                         nu: float) -> tuple[float, float]:
    """(mean over tasks of the squared whitened distance of eta_t from its conditional mean over K,
    root mean square of the z-scores of sum_k eta_tk under the conditional)."""
    gram, linear = eta_statistics(zbar, kappa, w)
    n_topics = eta.shape[1]
    ones = np.ones(n_topics)
    d2, z = [], []
    for t in range(eta.shape[0]):
        precision = gram[t] + nu * np.eye(n_topics)
        gap = eta[t] - np.linalg.solve(precision, linear[t])
        d2.append(gap @ precision @ gap / n_topics)
        z.append(ones @ gap / np.sqrt(ones @ np.linalg.solve(precision, ones)))
    return float(np.mean(d2)), float(np.sqrt(np.mean(np.square(z))))


def label_summary(rows: list[dict]) -> list[dict]:
    """Derived rows of the r52 and synthetic parts: each configuration's mean test and training
    accuracy over its seeds (with min, max and seeds), and for each light configuration its mean
    test and training accuracy minus gibbs's on the same part and K (settings other than light's
    own, such as ``eta_draw``, equal)."""
    groups = defaultdict(list)
    for r in rows:
        c = r["config"]
        if c.get("part") in ("r52", "synthetic") and r["metric"] in ("accuracy", "train_accuracy"):
            groups[json.dumps(c, sort_keys=True), r["metric"]].append(r)
    mean = {}
    out = []
    for (key, metric), g in sorted(groups.items()):
        values = [r["value"] for r in g]
        mean[key, metric] = float(np.mean(values))
        out.append(row(SUITE, json.loads(key), f"mean_{metric}", mean[key, metric], "", min=min(values),
                       max=max(values), seeds=[r["seed"] for r in g]))
    own = ("sampler", "eta_draw", "light_variant", "proposal", "n_mh", "n_gibbs", "phi_every")
    for (key, metric), value in sorted(mean.items()):
        config = json.loads(key)
        if config["sampler"] != "light":
            continue
        base = {k: v for k, v in config.items() if k not in own}
        for (other, other_metric), reference in mean.items():
            c = json.loads(other)
            if other_metric == metric and c["sampler"] == "gibbs" and {k: v for k, v in c.items() if k not in own} == base:
                out.append(row(SUITE, {**config, "against": "gibbs"}, f"{metric}_difference", value - reference, ""))
    return out
