"""Shared test fixtures: the planted corpora many tests train on (built once per session), a
classifier fitted on three classes, bag-of-words files for the command line, and the shared data.

Session fixtures are shared by every test that asks for them: a test must not modify them in
place (take a ``subset`` or a copy first). Also makes the helper modules of this folder (exact,
files) importable.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

from medlda import MedLDAClassifier
from medlda.data.readers import write_bow
from medlda.data.synthetic import make_multilabel_corpus, make_regression_corpus, make_supervised_corpus

sys.path.insert(0, str(Path(__file__).resolve().parent))

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The benchmark archives beside the repository, or a skip saying they are absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"benchmark data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def binary_corpus():
    """(corpus, truth): 300 documents of 4 planted topics, two classes '0' and '1'."""
    return make_supervised_corpus(300, 4, words_per_topic=10, random_state=0)


@pytest.fixture(scope="session")
def multiclass_corpus():
    """(corpus, truth): 700 documents of 6 planted topics, three classes '0', '1', '2'."""
    return make_supervised_corpus(700, 6, words_per_topic=20, n_classes=3, random_state=2)


@pytest.fixture(scope="session")
def multilabel_corpus():
    """(corpus, truth): 700 documents of 6 planted topics, four labels (``truth.Y``)."""
    return make_multilabel_corpus(700, 6, n_labels=4, words_per_topic=20, random_state=3)


@pytest.fixture(scope="session")
def regression_corpus():
    """(corpus, truth): 300 documents of 5 planted topics and a real response (``truth.y``)."""
    return make_regression_corpus(300, 5, words_per_topic=15, noise=0.1, random_state=4)


@pytest.fixture(scope="session")
def three_classes():
    """A 3-class corpus from a planted model, split 300 / 120, and a classifier fitted on it (light
    sampler, 15 iterations, trace kept): (model, train, test, y_test)."""
    corpus, _ = make_supervised_corpus(420, 6, words_per_topic=12, doc_length=40, random_state=2)
    zbar_class = np.array([int(lab[0]) for lab in corpus.labels])
    rng = np.random.default_rng(0)
    y = np.where(zbar_class == 1, "pos", rng.choice(["neg", "mid"], size=corpus.n_docs))
    train, test = corpus.subset(np.arange(300)), corpus.subset(np.arange(300, 420))
    model = MedLDAClassifier(6, c=1.0, margin=1.0, max_iter=15, trace=True, alpha_sum=1.0, sampler="light",
                             n_infer_burn=10, n_infer_avg=5, random_state=0).fit(train, y[:300])
    return model, train, test, y[300:]


@pytest.fixture(scope="session")
def bow_files(tmp_path_factory):
    """Train and test bag-of-words files (500 and 200 documents) drawn from a planted model of 5
    topics, labels 'neg' / 'pos'."""
    root = tmp_path_factory.mktemp("bow")
    corpus, _ = make_supervised_corpus(700, 5, words_per_topic=15, doc_length=50, random_state=3)
    corpus.labels = [("pos",) if lab == ("1",) else ("neg",) for lab in corpus.labels]
    train, test = corpus.subset(np.arange(500)), corpus.subset(np.arange(500, 700))
    return write_bow(train, root / "train.txt"), write_bow(test, root / "test.txt")
