"""One-vs-rest (SPEC §6): C independent binary models, each with its own topics, in parallel.

The fitted parent keeps them in ``estimators_`` and also presents them as one model: the C
topic sets stacked (C*K topics) and a block-diagonal eta (C, C*K), so ``omega_c = eta_c . zbar_c``
reads the same as in the multi-task model.
"""

import time

import numpy as np

from medlda.data.corpus import Corpus
from medlda.evaluation.metrics import subset_accuracy
from medlda.models.labels import codes_from_omega, effective_jobs


def _fit_binary(model, corpus, column: np.ndarray, seed: int, weight: np.ndarray | None = None):
    """Fit one binary sub-model (a fresh clone of ``model``) on the 0/1 ``column`` with the
    documents' ``weight``; return it with its training discriminants, without the sampler
    scratch space."""
    model.set_params(random_state=seed)
    model._validate()
    model._fit_input = corpus
    model.classes_ = np.array([0, 1])
    model.multilabel_ = False
    model.c_, model.margin_ = model._resolved_c(1), model._resolved_margin(1)
    model.positive_cost_ = model._resolved_positive_cost(1, False)
    state = model._fit_tasks(corpus, column[:, None], np.random.default_rng(seed), weight)
    omega = state.zbar() @ model.eta_.T
    del model._fit_input, model._sampler
    return model, omega[:, 0]


_SUB_RUN = {"checkpoint_every": 0, "checkpoint_path": None, "resume": False, "backend": "local"}


def _sub_template(parent):
    """An unfitted binary sub-model: the parent's parameters with c, margin and positive_cost
    resolved, one process, no checkpoints of its own."""
    from sklearn.base import clone

    template = clone(parent).set_params(strategy="multitask", n_jobs=1, verbose=0, c=parent.c_,
                                        margin=parent.margin_, positive_cost=parent.positive_cost_)
    params = template.get_params()
    return template.set_params(**{k: v for k, v in _SUB_RUN.items() if k in params})


def ovr_seeds(random_state, n_tasks: int) -> list[int]:
    """The seed of each one-vs-rest sub-model, derived from the parent's (fresh entropy if None)."""
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(random_state).spawn(n_tasks)]


def fit_ovr(parent, corpus, indicator: np.ndarray, weight: np.ndarray | None = None) -> None:
    """Train one binary model per column of ``indicator`` (in parallel), each document's c times
    its ``weight`` (None: 1), and store them in ``parent``."""
    from joblib import Parallel, delayed
    from sklearn.base import clone

    n_tasks = indicator.shape[1]
    template = _sub_template(parent)
    seeds = ovr_seeds(parent.random_state, n_tasks)
    tic = time.perf_counter()
    jobs = effective_jobs(parent.n_jobs, n_tasks)
    if getattr(parent, "backend", "local") == "ray":  # label-parallel: one Ray task per class
        from medlda.engine.ray import map_on_ray
        out = map_on_ray(parent, _fit_binary, corpus,
                         [(clone(template), indicator[:, t], seeds[t], weight) for t in range(n_tasks)])
    else:
        out = Parallel(n_jobs=jobs)(delayed(_fit_binary)(clone(template), corpus, indicator[:, t], seeds[t], weight)
                                    for t in range(n_tasks))
    wall = time.perf_counter() - tic
    parent.estimators_ = [m for m, _ in out]
    train_omega = np.column_stack([o for _, o in out])
    parent.vocabulary_ = corpus.vocabulary if isinstance(parent._fit_input, Corpus) else None
    for m in parent.estimators_:
        m.vocabulary_ = parent.vocabulary_
    stack_ovr(parent)
    seconds = sum(m.fit_stats_["train_seconds"] for m in parent.estimators_)
    parent.fit_stats_ = {
        "train_seconds": seconds, "wall_seconds": wall, "backend": getattr(parent, "backend", "local"),
        **({"n_workers": parent.n_workers} if getattr(parent, "backend", "local") == "ray" else {"n_jobs": jobs}),
        "compile_seconds": max(m.fit_stats_["compile_seconds"] for m in parent.estimators_),
        "n_tokens": corpus.n_tokens, "n_docs": corpus.n_docs,
        "tokens_per_second": corpus.n_tokens * parent.n_iter * n_tasks / max(seconds, 1e-12),
    }
    parent.log_joint_ = float(sum(m.log_joint_ for m in parent.estimators_))
    parent.trace_ = []
    truth = indicator.astype(np.int64) if parent.multilabel_ else parent._codes(indicator.astype(float))
    parent.train_accuracy_ = subset_accuracy(codes_from_omega(train_omega, parent.multilabel_), truth)


def stack_ovr(parent) -> None:
    """The parent's stacked view of its sub-models: topics (C*K, V), block-diagonal eta samples."""
    subs = parent.estimators_
    n_tasks, n_topics = len(subs), subs[0].n_topics
    parent.topic_word_counts_ = np.ascontiguousarray(np.concatenate([m.topic_word_counts_ for m in subs]))
    n_keep = subs[0].eta_samples_.shape[0]
    eta = np.zeros((n_keep, n_tasks, n_tasks * n_topics))
    for t, m in enumerate(subs):
        eta[:, t, t * n_topics:(t + 1) * n_topics] = m.eta_samples_[:, 0, :]
    parent.eta_samples_ = eta
    parent.n_features_in_ = subs[0].n_features_in_
    parent._phi_cache = None


def unstack_ovr(parent) -> None:
    """Rebuild ``estimators_`` from the stacked view (after loading a model file)."""
    from sklearn.base import clone

    n_tasks = parent.eta_samples_.shape[1]
    n_topics = parent.n_topics
    template = _sub_template(parent)
    subs = []
    for t, seed in enumerate(ovr_seeds(parent.random_state, n_tasks)):
        m = clone(template).set_params(random_state=seed)
        block = slice(t * n_topics, (t + 1) * n_topics)
        m.topic_word_counts_ = np.ascontiguousarray(parent.topic_word_counts_[block])
        m.eta_samples_ = np.ascontiguousarray(parent.eta_samples_[:, t:t + 1, block])
        m.n_features_in_ = parent.n_features_in_
        m.vocabulary_ = parent.vocabulary_
        m.classes_ = np.array([0, 1])
        m.multilabel_ = False
        m.c_, m.margin_, m.positive_cost_ = parent.c_, parent.margin_, parent.positive_cost_
        m._phi_cache = None
        subs.append(m)
    parent.estimators_ = subs


def _sub_zbar(model, X) -> np.ndarray:
    return model._zbar(X)


def ovr_zbar(parent, X) -> np.ndarray:
    """Each sub-model's inferred zbar of X, side by side (D, C*K); in parallel when cores allow."""
    from joblib import Parallel, delayed

    subs = parent.estimators_
    jobs = effective_jobs(parent.n_jobs, len(subs))
    parts = Parallel(n_jobs=jobs)(delayed(_sub_zbar)(m, X) for m in subs)
    return np.concatenate(parts, axis=1)
