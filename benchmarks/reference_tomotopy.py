"""medlda's LDA against tomotopy's, one thread each, side by side (``bench_samplers.py --against tomotopy``).

Both systems get the same corpus: the suite's 20 Newsgroups training set, each document handed to
tomotopy as its tokens spelled as vocabulary words, in medlda's order (the token and word counts
are checked to agree). Both get the same K, the symmetric alpha_k = alpha_sum / K of medlda's
default ``alpha_sum``, the same beta, one thread (medlda ``n_jobs=1``; tomotopy ``workers=1``,
its default parallel scheme, ``optim_interval=0`` so that its alpha stays fixed) and the same
iterations: ``warmup`` untimed, then ``n_iter`` timed. Left out of the timing: medlda's JIT
compilation and tomotopy's model building and initialisation. Each repeat fits every K and
system once, in turn (medlda auto, light, gibbs, then tomotopy), so that the machine's drift
falls on all alike.

Rows (task "lda-against-tomotopy", config ``system`` and ``sampler``): tokens/s and seconds per
timed iteration, setup seconds, and the log joint per token at the end, log p(W, Z) / N with
theta and phi collapsed (docs/mathematics.md §9): medlda's ``log_joint_``, and for tomotopy the
same formula applied to its final topic assignments (``log_joint``), beside tomotopy's own
``ll_per_word`` (the same quantity where tomotopy's vocabulary is the corpus's). Derived rows:
the median tokens/s and log joint per token of each system, sampler and K, and each medlda
sampler's speed against tomotopy (ratio of the medians, each repeat's own ratio in
``each_repeat``).

tomotopy is not a dependency of medlda: ``pip install tomotopy`` to run this comparison.
"""

from __future__ import annotations

import os
import statistics
import time
from collections import defaultdict

import numpy as np
from rows import RowWriter, row
from scipy.special import gammaln

from medlda import LDA, Corpus

TASK = "lda-against-tomotopy"
MEDLDA_SAMPLERS = ("auto", "light", "gibbs")
TOMOTOPY_SAMPLER = "gibbs"  # tomotopy's LDAModel: exact collapsed Gibbs, sparse in topics
INSTALL = ("--against tomotopy needs tomotopy, which medlda does not depend on: "
           "install it with `pip install tomotopy` (the figures in docs/benchmarks.md used tomotopy 0.14)")


def require_tomotopy():
    """The tomotopy module, or SystemExit with how to install it."""
    try:
        import tomotopy
    except ImportError:
        raise SystemExit(INSTALL) from None
    return tomotopy


def log_joint(word_ids: np.ndarray, doc_ptr: np.ndarray, topics: np.ndarray, n_topics: int, n_words: int,
              alpha: float, beta: float) -> float:
    """log p(W, Z) of LDA with theta and phi collapsed, symmetric alpha and beta (the formula of
    medlda's ``log_joint_``), from each token's word and topic: sparse counts, so any K and V."""
    word_ids, topics = np.asarray(word_ids, np.int64), np.asarray(topics, np.int64)
    lengths = np.diff(doc_ptr)
    docs = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    alpha_sum, v_beta = n_topics * alpha, n_words * beta
    total = len(lengths) * gammaln(alpha_sum) - gammaln(lengths + alpha_sum).sum()
    n_dk = np.unique(docs * n_topics + topics, return_counts=True)[1]
    total += (gammaln(n_dk + alpha) - gammaln(alpha)).sum()
    n_k = np.bincount(topics, minlength=n_topics)
    total += n_topics * gammaln(v_beta) - gammaln(n_k + v_beta).sum()
    n_kw = np.unique(word_ids * n_topics + topics, return_counts=True)[1]
    total += (gammaln(n_kw + beta) - gammaln(beta)).sum()
    return float(total)


def tomotopy_docs(corpus: Corpus) -> list[list[str]]:
    """Each document's tokens as vocabulary words, in the corpus's order (word ids spelled as
    numbers where the corpus has no vocabulary)."""
    words = np.asarray(corpus.vocabulary if corpus.vocabulary is not None else np.arange(corpus.n_words)).astype(str)
    tokens = words[corpus.word_ids].tolist()
    ptr = corpus.doc_ptr
    return [tokens[ptr[d]:ptr[d + 1]] for d in range(corpus.n_docs)]


def _tokens_per_second(n_tokens: int, n_iter: int, seconds: float) -> float:
    return n_tokens * n_iter / max(seconds, 1e-12)


def medlda_fit(corpus: Corpus, k: int, sampler: str, warmup: int, n_iter: int, seed: int) -> dict:
    """One medlda LDA fit of warmup + n_iter iterations on one thread: the timed iterations'
    seconds (the loop's sampling clock, JIT compilation apart), the log joint per token at the end."""
    model = LDA(k, sampler=sampler, max_iter=warmup + n_iter, random_state=seed, n_jobs=1).fit(corpus)
    clock = [0.0] + [t["seconds"] for t in model.trace_]
    seconds = clock[-1] - clock[warmup]
    return {"seconds": seconds, "setup_seconds": model.fit_stats_["compile_seconds"],
            "log_joint_per_token": model.log_joint_ / corpus.n_tokens,
            "extra": {"resolved": model.sampler_, "alpha": model.alpha_sum / k, "beta": model.beta}}


def tomotopy_fit(tomotopy, corpus: Corpus, docs: list[list[str]], k: int, warmup: int, n_iter: int,
                 seed: int) -> dict:
    """One tomotopy LDA fit with medlda's default priors, one worker: model building and
    initialisation untimed, ``warmup`` untimed iterations, then ``n_iter`` timed."""
    defaults = LDA(k)
    alpha, beta = defaults.alpha_sum / k, defaults.beta
    tic = time.perf_counter()
    model = tomotopy.LDAModel(k=k, alpha=alpha, eta=beta, seed=seed)
    model.optim_interval = 0
    for doc in docs:
        model.add_doc(doc)  # an empty document is skipped: it adds nothing to either system's log joint
    model.train(0, workers=1)  # builds the vocabulary and draws the initial topics
    setup = time.perf_counter() - tic
    if model.num_words != corpus.n_tokens:
        raise RuntimeError(f"tomotopy holds {model.num_words} tokens, the corpus {corpus.n_tokens}")
    model.train(warmup, workers=1)
    tic = time.perf_counter()
    model.train(n_iter, workers=1)
    seconds = time.perf_counter() - tic
    held = [d for d in model.docs]
    word_ids = np.concatenate([np.asarray(d.words) for d in held])
    topics = np.concatenate([np.asarray(d.topics) for d in held])
    ptr = np.concatenate([[0], np.cumsum([len(d.words) for d in held])])
    joint = log_joint(word_ids, ptr, topics, k, corpus.n_words, alpha, beta)
    return {"seconds": seconds, "setup_seconds": setup, "log_joint_per_token": joint / corpus.n_tokens,
            "extra": {"ll_per_word": model.ll_per_word, "tomotopy_words": len(model.used_vocabs),
                      "tomotopy": tomotopy.__version__, "isa": tomotopy.isa, "alpha": alpha, "beta": beta}}


def against_runs(out: RowWriter, corpus: Corpus, ks: list[int], n_iter: int, warmup: int, seed: int,
                 repeats: int, samplers: tuple[str, ...] | list[str] = MEDLDA_SAMPLERS) -> None:
    """Every K's fits of each medlda sampler and of tomotopy, ``repeats`` times in turn, as rows
    (with the machine's load average before and after)."""
    tomotopy = require_tomotopy()
    docs = tomotopy_docs(corpus)
    out.write({"task": TASK}, "load_average", list(os.getloadavg()), "")
    for repeat in range(repeats):
        for k in ks:
            fits = [("medlda", s, lambda s=s: medlda_fit(corpus, k, s, warmup, n_iter, seed)) for s in samplers]
            fits.append(("tomotopy", TOMOTOPY_SAMPLER,
                         lambda: tomotopy_fit(tomotopy, corpus, docs, k, warmup, n_iter, seed)))
            for system, sampler, fit in fits:
                result = fit()
                config = {"task": TASK, "system": system, "sampler": sampler, "n_topics": k}
                extra = dict(seed=seed, repeat=repeat, n_iter=n_iter, warmup=warmup, n_tokens=corpus.n_tokens,
                             **result["extra"])
                out.write(config, "tokens_per_second", _tokens_per_second(corpus.n_tokens, n_iter, result["seconds"]),
                          "tokens/s", **extra)
                out.write(config, "seconds_per_iter", result["seconds"] / n_iter, "s", **extra)
                out.write(config, "setup_seconds", result["setup_seconds"], "s", **extra)
                out.write(config, "log_joint_per_token", result["log_joint_per_token"], "", **extra)
    out.write({"task": TASK}, "load_average", list(os.getloadavg()), "")


def against_summary(rows: list[dict]) -> list[dict]:
    """Derived rows: the median tokens/s and log joint per token of each system, sampler and K
    (with min, max, n), and each medlda sampler's speed against tomotopy per K
    ("speed_vs_tomotopy", the ratio of the median tokens/s; ``each_repeat`` beside)."""
    table = defaultdict(list)  # (metric, system, sampler, K): values of each repeat, in order
    for r in rows:
        c = r["config"]
        if c.get("task") == TASK and r["metric"] in ("tokens_per_second", "log_joint_per_token"):
            table[(r["metric"], c["system"], c["sampler"], c["n_topics"])].append(r["value"])
    out = []
    for (metric, system, sampler, k), values in sorted(table.items()):
        config = {"task": TASK, "system": system, "sampler": sampler, "n_topics": k}
        unit = "tokens/s" if metric == "tokens_per_second" else ""
        out.append(row("samplers", config, f"median_{metric}", statistics.median(values), unit,
                       min=min(values), max=max(values), n=len(values)))
    for (metric, system, sampler, k), values in sorted(table.items()):
        reference = table.get(("tokens_per_second", "tomotopy", TOMOTOPY_SAMPLER, k))
        if metric != "tokens_per_second" or system != "medlda" or not reference:
            continue
        extra = {"each_repeat": [a / b for a, b in zip(values, reference)]} if len(values) == len(reference) else {}
        config = {"task": TASK, "system": system, "sampler": sampler, "n_topics": k, "against": "tomotopy"}
        out.append(row("samplers", config, "speed_vs_tomotopy",
                       statistics.median(values) / statistics.median(reference), "x", **extra))
    return out
