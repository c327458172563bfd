"""Golden outputs: fixed seeds on small generated corpora give bitwise the arrays recorded in
``golden/golden.npz``, for every sampler, variant, loss and strategy, on one and two threads.

A change that alters draws on purpose re-records them (``python tests/test_golden.py --record``)
and says so in its commit; any other difference is a regression.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import medlda

GOLDEN = Path(__file__).resolve().parent / "golden" / "golden.npz"


def _corpus(n_docs: int, n_words: int, n_topics: int, seed: int):
    """A count matrix drawn from LDA (block topics) and the documents' dominant topics."""
    rng = np.random.default_rng(seed)
    per = n_words // n_topics
    phi = np.full((n_topics, n_words), 0.1 / n_words)
    for k in range(n_topics):
        phi[k, k * per:(k + 1) * per] += 0.9 / per
    phi /= phi.sum(axis=1, keepdims=True)
    theta = rng.dirichlet(np.full(n_topics, 0.3), size=n_docs)
    lengths = rng.integers(5, 40, size=n_docs)
    rows = [rng.multinomial(n, theta[d] @ phi) for d, n in enumerate(lengths)]
    return sp.csr_matrix(np.array(rows)), theta.argmax(axis=1)


def _cases():
    """name -> (estimator, kind): kind is lda, binary, multiclass, multilabel or regression."""
    common = dict(n_components=4, max_iter=6, random_state=3, n_infer_burn=3, n_infer_avg=4)
    cases = {}
    for sampler, extra in (("gibbs", {}), ("light", {"light_variant": "collapsed"}),
                           ("light-partial", {"light_variant": "partial"}),
                           ("light-partial-phi2", {"light_variant": "partial", "phi_every": 2})):
        name = sampler.split("-")[0]
        for jobs in (1, 2):
            if name == "gibbs" and jobs == 2:
                continue
            cases[f"lda-{sampler}-j{jobs}"] = (medlda.LDA(sampler=name, n_jobs=jobs, **extra, **common), "lda")
    for sim in ("nested", "backward"):
        cases[f"lda-blocked-{sim}"] = (medlda.LDA(sampler="blocked", block_simulation=sim, **common), "lda")
    for sampler in ("gibbs", "light"):
        for loss in ("hinge", "logistic"):
            cases[f"binary-{sampler}-{loss}"] = (medlda.MedLDAClassifier(sampler=sampler, loss=loss, **common),
                                                 "binary")
            for strategy in ("multitask", "ovr"):
                cases[f"multi-{sampler}-{loss}-{strategy}"] = (
                    medlda.MedLDAClassifier(sampler=sampler, loss=loss, strategy=strategy, **common), "multiclass")
        cases[f"multilabel-{sampler}"] = (medlda.MedLDAClassifier(sampler=sampler, **common), "multilabel")
        for loss in ("epsilon", "squared"):
            cases[f"regression-{sampler}-{loss}"] = (medlda.MedLDARegressor(sampler=sampler, loss=loss, **common),
                                                     "regression")
    for jobs in (1, 2):
        for variant in ("collapsed", "partial"):
            cases[f"multi-light-{variant}-j{jobs}"] = (
                medlda.MedLDAClassifier(sampler="light", light_variant=variant, n_jobs=jobs, **common), "multiclass")
        cases[f"multi-light-coordinate-eta-j{jobs}"] = (
            medlda.MedLDAClassifier(sampler="light", eta_draw="coordinate", n_jobs=jobs, **common), "multiclass")
    return cases


def _fit(model, kind: str) -> dict[str, np.ndarray]:
    """The fitted arrays of ``model`` on its kind's corpus, and its transform of a few documents."""
    X, topic = _corpus(600, 60, 4, seed=11)
    if kind == "lda":
        model.fit(X)
    elif kind == "binary":
        model.fit(X, np.where(topic < 2, "a", "b"))
    elif kind == "multiclass":
        model.fit(X, topic)
    elif kind == "multilabel":
        model.fit(X, np.column_stack([topic == 0, topic <= 1, topic == 3]).astype(int))
    else:
        model.fit(X, topic + 0.1 * np.arange(X.shape[0]) % 1.0)
    out = {"topic_word_counts": model.topic_word_counts_, "transform": model.transform(X[:7])}
    if kind != "lda":
        out["eta_samples"] = model.eta_samples_
    return out


CASES = _cases()


@pytest.fixture(scope="module")
def golden():
    if not GOLDEN.exists():
        pytest.fail(f"{GOLDEN} is missing: record it with python tests/test_golden.py --record")
    with np.load(GOLDEN, allow_pickle=False) as archive:
        return {k: archive[k] for k in archive.files}


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_seed_gives_the_recorded_arrays(name, golden):
    model, kind = CASES[name]
    for key, value in _fit(model, kind).items():
        expected = golden[f"{name}/{key}"]
        assert value.shape == expected.shape, f"{name}/{key}: shape {value.shape}, recorded {expected.shape}"
        assert np.array_equal(value, expected), f"{name}/{key} differs from the recorded golden output"


def _record() -> None:
    arrays = {f"{name}/{key}": value for name, (model, kind) in sorted(CASES.items())
              for key, value in _fit(model, kind).items()}
    GOLDEN.parent.mkdir(exist_ok=True)
    np.savez_compressed(GOLDEN, **arrays)
    print(f"recorded {len(arrays)} arrays of {len(CASES)} cases in {GOLDEN}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python tests/test_golden.py --record")
    _record()
