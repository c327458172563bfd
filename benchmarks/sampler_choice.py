"""The measurement behind ``sampler="auto"`` (suite "samplers", task "choice"): seconds per
iteration of the exact ``gibbs`` and the ``light`` sampler (its default, collapsed variant) by
number of topics K and number of tasks T, on 20 Newsgroups.

Each configuration trains on the same number of training documents drawn at random (seed 0)
from the first C newsgroups, over the words of at least 3 of them (the command line's
``--min-df``): C = 20 unsupervised (LDA, T = 0), and C = 2, 5, 20 with
MedLDAClassifier (T = 1, 5, 20 tasks). Every K, T and sampler is fitted once per repeat,
interleaved, on one thread; rows give seconds per iteration over the second half of the
iterations (JIT compilation and the log joint of the trace apart) and
nanoseconds per token, and derived rows light's speed-up over gibbs (the ratio of the medians
over the repeats) with the sampler that ``medlda.samplers.choice`` picks there.

    python benchmarks/sampler_choice.py --repeats 3                       # the figures of docs/benchmarks.md
    python benchmarks/bench_samplers.py --choice --repeats 3              # the same, from the samplers suite
    python benchmarks/sampler_choice.py --ks 5,50 --classes 0,2 --docs 200 --iters 2   # smoke
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from rows import RowWriter, add_out_argument, row

from medlda import LDA, MedLDAClassifier
from medlda.data.readers import read_corpus
from medlda.data.text import PAPERS, make_vectorizer
from medlda.samplers.choice import choose_sampler

SUITE = "samplers"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "20news-bydate.tar.gz"
CHOICE_SAMPLERS = ("gibbs", "light")
MIN_DF = 3  # a corpus keeps the words of at least this many of its documents, as the command line does


def corpora(archive: Path, classes: list[int], n_docs: int, seed: int) -> dict:
    """{C: (corpus, labels)}: ``n_docs`` training documents drawn from the first C newsgroups (0:
    all 20, unlabelled)."""
    train = read_corpus(archive, subset="train", vectorizer=make_vectorizer(**PAPERS))
    labels = train.single_labels()
    names = sorted(set(labels))
    out = {}
    for c in classes:
        pool = np.flatnonzero(np.isin(labels, names[:c] if c else names))
        docs = np.sort(np.random.default_rng(seed).choice(pool, min(n_docs, pool.size), replace=False))
        corpus = train.subset(docs)
        df = np.bincount(np.unique(np.repeat(np.arange(corpus.n_docs), corpus.doc_lengths) * corpus.n_words
                                   + corpus.word_ids) % corpus.n_words, minlength=corpus.n_words)
        out[c] = (corpus.to_vocabulary(corpus.vocabulary[df >= MIN_DF]), labels[docs])
    return out


def seconds_per_iter(corpus, labels, n_classes: int, k: int, sampler: str, n_iter: int, seed: int) -> float:
    """One fit's seconds per iteration over the second half of its iterations, once the chain has
    left its random start (LDA when ``n_classes`` is 0)."""
    options = dict(max_iter=n_iter, random_state=seed, sampler=sampler, n_jobs=1, trace=True)
    if n_classes == 0:
        model = LDA(k, **options).fit(corpus)
    else:
        model = MedLDAClassifier(k, **options).fit(corpus, labels)
    seconds = [0.0] + [t["seconds"] for t in model.trace_]
    half = n_iter // 2
    return (seconds[-1] - seconds[half]) / (n_iter - half)


def choice_runs(out: RowWriter, archive: Path, ks: list[int], classes: list[int], n_docs: int, n_iter: int,
                seed: int, repeats: int) -> None:
    """Fit every (repeat, C, K, sampler) in that order and write its rows, then the derived ones."""
    data = corpora(archive, classes, n_docs, seed)
    for repeat in range(repeats):
        for c, (corpus, labels) in data.items():
            n_tasks = 0 if c == 0 else (1 if c == 2 else c)
            for k in ks:
                for sampler in CHOICE_SAMPLERS:
                    seconds = seconds_per_iter(corpus, labels, c, k, sampler, n_iter, seed)
                    config = {"task": "choice", "sampler": sampler, "n_topics": k, "n_tasks": n_tasks}
                    out.write(config, "seconds_per_iter", seconds, "s", n_iter=n_iter, repeat=repeat,
                              n_docs=corpus.n_docs, n_tokens=corpus.n_tokens)
                    out.write(config, "ns_per_token", 1e9 * seconds / corpus.n_tokens, "ns", repeat=repeat)
    for derived in choice_ratios(out.rows):
        out.put(derived)


def choice_ratios(rows: list[dict]) -> list[dict]:
    """light's speed-up over gibbs per (K, T): median gibbs seconds over median light seconds,
    with the sampler ``choose_sampler`` picks there."""
    table = defaultdict(list)
    for r in rows:
        c = r["config"]
        if r["metric"] == "seconds_per_iter" and c.get("task") == "choice":
            table[(c["n_topics"], c["n_tasks"], c["sampler"])].append(r["value"])
    derived = []
    for k, t in sorted({(k, t) for k, t, _ in table}):
        if (k, t, "gibbs") in table and (k, t, "light") in table:
            ratio = statistics.median(table[k, t, "gibbs"]) / statistics.median(table[k, t, "light"])
            derived.append(row(SUITE, {"task": "choice", "n_topics": k, "n_tasks": t}, "speedup_light_vs_gibbs",
                               ratio, "x", auto=choose_sampler(k, t)))
    return derived


def main(argv: list[str] | None = None) -> None:
    """The choice task from the command line (``argv``: the arguments, default ``sys.argv[1:]``)."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="20news-bydate.tar.gz")
    p.add_argument("--ks", default="5,10,20,50,100,200")
    p.add_argument("--classes", default="0,2,5,20", help="newsgroups per corpus (0: all 20, unsupervised LDA)")
    p.add_argument("--docs", type=int, default=1500, help="training documents per corpus")
    p.add_argument("--iters", type=int, default=10, help="iterations per fit (the second half timed)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeats", type=int, default=1, help="interleaved fits of every configuration")
    add_out_argument(p)
    args = p.parse_args(argv)
    if not args.data.is_file():
        sys.exit(f"20 Newsgroups archive not found at {args.data}; pass --data")
    out = RowWriter(SUITE, args.out, None if argv is None else ["python", "benchmarks/sampler_choice.py", *argv])
    choice_runs(out, args.data, [int(k) for k in args.ks.split(",")], [int(c) for c in args.classes.split(",")],
                args.docs, args.iters, args.seed, args.repeats)
    print(out.path)


if __name__ == "__main__":
    main()
