"""Scale (suite "scale"): seconds per iteration, tokens/s and peak memory on generated corpora.

Corpora of 10^4, 10^5 and 10^6 documents of about 100 tokens each (Poisson(100) lengths, V =
50,000 words, drawn from 50 planted topics with Zipf-shaped word distributions, three topics per
document), generated once, vectorized, and cached as memory-mapped .npy folders
(``Corpus.save_npy``). Unsupervised LDA with the light sampler, for every K and mode:

- ``local``: one process, one thread;
- ``local-N``: one process, ``n_jobs=N`` sampler threads (N may exceed the machine's cores: the
  CPU seconds of an oversubscribed run bound the work that parallelism adds);
- ``ray-N``: the Ray data-parallel backend with N local workers (a fresh local cluster).

``--corpus FOLDER`` trains on a saved corpus instead (``Corpus.save_npy``, e.g. 20 Newsgroups),
``--supervised`` a MedLDAClassifier on its labels. Ray rows also give the bytes the driver
exchanges with its workers per iteration (mean over the iterations, the first and the last one;
the first sends the whole topic-word counts, later ones the counts' changes): each
object it puts, counted once per worker that reads it, and the workers' answers, by their pickled
(protocol 5) sizes, which is what Ray serializes; and the driver's share of an iteration: the
driver process's CPU seconds over the iterations' wall seconds (the meter's own pickling left out
of both).

Each configuration runs in its own subprocess, so peak memories (``ru_maxrss``) do not mix; the Ray
rows add the workers' own peaks. Seconds per iteration exclude JIT compilation and Ray start-up
(both reported apart). CPU seconds per iteration (all threads of the process) are the difference
between a fit of ``--iters`` iterations and a one-iteration fit run just before it (after a first
one that compiles), over the iterations between them, so set-up and compilation drop out. Derived
rows: seconds per iteration of each corpus size over the next smaller one (same K and mode),
beside the ratio of their tokens; and for each ``local-N`` against ``local``: the speed-up, the
ratio of CPU seconds per iteration and the ratio of peak memories. ``--ceiling`` first measures
what N threads of the machine give at all, on control kernels that share nothing
(``machine_ceiling.py``): on a shared VM two virtual CPUs may share one core's vector units.

    python benchmarks/bench_scale.py                                       # everything (hours)
    python benchmarks/bench_scale.py --docs 10000 100000 --ks 100 --iters 3
    python benchmarks/bench_scale.py --docs 1000 --ks 20 --iters 2 --modes local   # smoke
    python benchmarks/bench_scale.py --docs 100000 --ks 400 --modes local local-2 local-16   # threads
    python benchmarks/bench_scale.py --corpus news20-train --ks 100 --modes ray-2 --supervised   # bytes
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from rows import RowWriter, add_out_argument, row

import medlda.engine.ray as dp
from medlda import LDA, Corpus, MedLDAClassifier

SUITE = "scale"

N_WORDS = 50_000
N_TRUE_TOPICS = 50
DOC_LENGTH = 100
TOPICS_PER_DOC = 3
CHUNK_DOCS = 50_000


def generate(n_docs: int, seed: int = 0):
    """(word_ids int32, doc_ptr int64) of a planted-topic corpus, built in chunks of documents."""
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, N_WORDS + 1, dtype=np.float64)
    cdf = np.cumsum(1.0 / ranks ** 1.05)
    cdf /= cdf[-1]
    offsets = rng.integers(0, N_WORDS, size=N_TRUE_TOPICS)
    lengths = np.maximum(rng.poisson(DOC_LENGTH, size=n_docs), 1)
    doc_ptr = np.concatenate(([0], np.cumsum(lengths, dtype=np.int64)))
    word_ids = np.empty(doc_ptr[-1], dtype=np.int32)
    for start in range(0, n_docs, CHUNK_DOCS):
        stop = min(start + CHUNK_DOCS, n_docs)
        n = stop - start
        doc_topics = rng.integers(0, N_TRUE_TOPICS, size=(n, TOPICS_PER_DOC))
        weights = rng.dirichlet(np.ones(TOPICS_PER_DOC), size=n)
        chunk_lengths = lengths[start:stop]
        doc_of_token = np.repeat(np.arange(n), chunk_lengths)
        pick = (rng.random(doc_of_token.size)[:, None] > np.cumsum(weights, axis=1)[doc_of_token]).sum(axis=1)
        topic = doc_topics[doc_of_token, np.minimum(pick, TOPICS_PER_DOC - 1)]
        rank = np.searchsorted(cdf, rng.random(doc_of_token.size))
        word_ids[doc_ptr[start]:doc_ptr[stop]] = (offsets[topic] + rank) % N_WORDS
    return word_ids, doc_ptr


def cached_corpus(n_docs: int, cache: Path) -> Path:
    """The folder of the generated corpus of ``n_docs`` documents (generated on first use)."""
    folder = cache / f"docs{n_docs}"
    try:
        Corpus.load(folder, mmap=True)
    except (OSError, ValueError):
        word_ids, doc_ptr = generate(n_docs)
        vocabulary = np.array([f"w{v}" for v in range(N_WORDS)])
        Corpus(word_ids, doc_ptr, vocabulary, source=f"generated-{n_docs}").save_npy(folder)
    return folder


class ByteMeter:
    """The ray module as the Ray backend sees it, counting per iteration the pickled bytes of every
    object the driver puts (times the workers, each of which reads it) and of every answer it gets."""

    def __init__(self, ray, n_workers: int):
        self.ray, self.n_workers, self.sent, self.received, self.per_iteration = ray, n_workers, 0, 0, []
        self.own_seconds = 0.0  # the meter's own pickling, left out of the driver's time
        self.driver = []  # per iteration: (driver CPU seconds, wall seconds), the meter's own left out

    def __getattr__(self, name):
        return getattr(self.ray, name)

    def _size(self, obj) -> int:
        tic = time.process_time()
        size = len(pickle.dumps(obj, protocol=5))
        self.own_seconds += time.process_time() - tic
        return size

    def put(self, obj):
        self.sent += self._size(obj) * self.n_workers
        return self.ray.put(obj)

    def get(self, ref, **kwargs):
        out = self.ray.get(ref, **kwargs)
        self.received += self._size(out)
        return out

    def install(self) -> None:
        """Make the Ray backend use this meter and record each iteration's bytes."""
        meter, iterate = self, dp.RayBackend.iterate

        def metered(backend, *args, **kwargs):
            sent, received, own = meter.sent, meter.received, meter.own_seconds
            cpu, wall = time.process_time(), time.perf_counter()
            out = iterate(backend, *args, **kwargs)
            own = meter.own_seconds - own
            meter.driver.append((time.process_time() - cpu - own, time.perf_counter() - wall - own))
            meter.per_iteration.append((meter.sent - sent, meter.received - received))
            return out

        dp.import_ray, dp.RayBackend.iterate = (lambda: meter), metered


def run_one(folder: Path, k: int, mode: str, n_iter: int, options: dict, supervised: bool = False) -> dict:
    """Train once in this process and measure (called in a fresh subprocess per configuration)."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    corpus = Corpus.load(folder, mmap=True)
    estimator, labels = (MedLDAClassifier, (corpus.single_labels(),)) if supervised else (LDA, ())
    params = dict(max_iter=n_iter, sampler="light", random_state=0, **options)
    kind, count = parse_mode(mode)
    if kind == "local":
        params["n_jobs"] = count
        if count > (os.cpu_count() or 1):  # medlda caps n_jobs at the cores it sees: oversubscribe on purpose
            os.cpu_count = lambda: count
    else:
        params.update(backend="ray", n_workers=count)
        meter = ByteMeter(dp.import_ray(), count)
        meter.install()
    cpu_per_iteration = None
    if kind == "local" and n_iter > 1:
        estimator(k, **{**params, "max_iter": 1}).fit(corpus, *labels)  # compiles (or loads) the kernels
        cpu = time.process_time()
        estimator(k, **{**params, "max_iter": 1}).fit(corpus, *labels)
        one = time.process_time() - cpu
    tic, cpu = time.perf_counter(), time.process_time()
    model = estimator(k, **params).fit(corpus, *labels)
    wall = time.perf_counter() - tic
    if kind == "local" and n_iter > 1:
        cpu_per_iteration = (time.process_time() - cpu - one) / (n_iter - 1)
    stats = model.fit_stats_
    driver_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    workers = stats.get("worker_peak_rss_bytes", [])
    per_iteration = np.array(meter.per_iteration if kind == "ray" else np.zeros((0, 2)))
    driver = np.array(meter.driver if kind == "ray" else np.zeros((0, 2)))
    return {
        "n_docs": corpus.n_docs, "n_tokens": corpus.n_tokens, "n_words": corpus.n_words, "k": k,
        "mode": mode, "n_iter": n_iter, "options": options,
        "seconds_per_iteration": stats["train_seconds"] / n_iter,
        "cpu_seconds_per_iteration": cpu_per_iteration,
        "tokens_per_second": stats["tokens_per_second"],
        "compile_seconds": stats["compile_seconds"],
        "ray_worker_startup_seconds": stats.get("worker_startup_seconds"),
        "fit_wall_seconds": wall,
        "peak_rss_bytes": driver_peak + sum(workers),
        "driver_peak_rss_bytes": driver_peak, "worker_peak_rss_bytes": workers,
        "log_joint": model.log_joint_, "supervised": supervised,
        **({"ray_sent_bytes_per_iteration": float(per_iteration[:, 0].mean()),
            "ray_received_bytes_per_iteration": float(per_iteration[:, 1].mean()),
            "ray_first_sent_bytes": float(per_iteration[0, 0]),
            "ray_last_sent_bytes": float(per_iteration[-1, 0]),
            "ray_last_received_bytes": float(per_iteration[-1, 1]),
            "ray_driver_cpu_share": float(driver[:, 0].sum() / driver[:, 1].sum())} if len(per_iteration) else {}),
    }


def parse_mode(mode: str) -> tuple[str, int]:
    """("local" or "ray", threads or workers) of a mode name: local, local-N or ray-N."""
    kind, dash, count = mode.partition("-")
    if kind not in ("local", "ray") or (dash or kind == "ray") and not (count.isdigit() and int(count) > 0):
        raise ValueError(f"mode must be local, local-N or ray-N, got {mode!r}")
    return kind, int(count or 1)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--docs", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    p.add_argument("--ks", type=int, nargs="+", default=[100, 400, 1000])
    p.add_argument("--iters", type=int, default=5)
    p.add_argument("--modes", nargs="+", default=["local", "local-2", "ray-2"],
                   help="local, local-N (N sampler threads), ray-N (N Ray workers)")
    p.add_argument("--light-variant", choices=["partial", "collapsed"], default=None,
                   help="default: the estimator's default")
    p.add_argument("--corpus", type=Path, default=None, help="a saved corpus folder instead of --docs")
    p.add_argument("--supervised", action="store_true", help="MedLDAClassifier on the corpus's labels")
    p.add_argument("--cache", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "medlda-bench-scale")
    p.add_argument("--ceiling", action="store_true",
                   help="first measure the machine's own speed-up on N threads for each local-N mode (N up to "
                        "the cores) on control kernels that share nothing (machine_ceiling.py)")
    p.add_argument("--one", nargs=3, metavar=("FOLDER", "K", "MODE"), help=argparse.SUPPRESS)
    add_out_argument(p)
    args = p.parse_args(argv)
    options = {} if args.light_variant is None else {"light_variant": args.light_variant}
    if args.one:
        folder, k, mode = args.one
        print(json.dumps(run_one(Path(folder), int(k), mode, args.iters, options, args.supervised)))
        return 0

    modes = args.modes
    for mode in modes:
        parse_mode(mode)
    out = RowWriter(SUITE, args.out)
    if args.ceiling:
        ceiling_rows(out, modes)
    for n_docs in [None] if args.corpus else args.docs:
        tic = time.perf_counter()
        folder = args.corpus or cached_corpus(n_docs, args.cache)
        print(f"corpus {folder} ready in {time.perf_counter() - tic:.1f} s", file=sys.stderr)
        for k in args.ks:
            for mode in modes:
                cmd = [sys.executable, __file__, "--one", str(folder), str(k), mode, "--iters", str(args.iters)]
                if args.light_variant:
                    cmd += ["--light-variant", args.light_variant]
                cmd += ["--supervised"] if args.supervised else []
                done = subprocess.run(cmd, capture_output=True, text=True)
                config = {"n_docs": n_docs, "n_topics": k, "mode": mode, **options}
                if args.corpus:
                    config.update(corpus=args.corpus.name, supervised=args.supervised)
                if done.returncode != 0:
                    out.write(config, "error", done.stderr.strip().splitlines()[-1:], "")
                    continue
                result = json.loads(done.stdout.strip().splitlines()[-1])
                sizes = {key: result[key] for key in ("n_tokens", "n_words", "n_iter")}
                for metric, unit in METRICS.items():
                    if result.get(metric) is not None:
                        out.write(config, metric, result[metric], unit, **sizes)
    for derived in (ratios(out.rows) if args.corpus is None else []) + thread_ratios(out.rows):
        out.put(derived)
    print(out.path)
    return 0


METRICS = {"seconds_per_iteration": "s", "cpu_seconds_per_iteration": "s", "tokens_per_second": "tokens/s",
           "compile_seconds": "s",
           "ray_worker_startup_seconds": "s", "fit_wall_seconds": "s", "peak_rss_bytes": "bytes",
           "driver_peak_rss_bytes": "bytes", "worker_peak_rss_bytes": "bytes", "log_joint": "",
           "ray_sent_bytes_per_iteration": "bytes", "ray_received_bytes_per_iteration": "bytes",
           "ray_first_sent_bytes": "bytes", "ray_last_sent_bytes": "bytes", "ray_last_received_bytes": "bytes",
           "ray_driver_cpu_share": ""}


def ceiling_rows(out: RowWriter, modes: list[str]) -> None:
    """Rows ``ceiling_speedup``: each control kernel's speed-up on N threads over one, for each
    local-N mode's N (at most the machine's cores), measured before the fits."""
    from machine_ceiling import ceiling

    counts = sorted({min(n, os.cpu_count() or 1) for kind, n in map(parse_mode, modes) if kind == "local" and n > 1})
    for n in counts:
        for name, r in ceiling(n).items():
            out.write({"control": name, "threads": n}, "ceiling_speedup", round(r["speedup"], 3), "x",
                      min=round(r["min"], 3), max=round(r["max"], 3))


def ratios(rows: list[dict]) -> list[dict]:
    """Seconds per iteration of each corpus size over the next smaller one (same K and mode)."""
    runs = [r for r in rows if r["metric"] == "seconds_per_iteration"]
    out = []
    for r in runs:
        c = r["config"]
        smaller = [s for s in runs if s["config"]["n_topics"] == c["n_topics"] and s["config"]["mode"] == c["mode"]
                   and s["config"]["n_docs"] < c["n_docs"]]
        if smaller:
            s = max(smaller, key=lambda x: x["config"]["n_docs"])
            out.append(row(SUITE, {**c, "against_n_docs": s["config"]["n_docs"]}, "seconds_ratio",
                           r["value"] / s["value"], "x", tokens_ratio=r["n_tokens"] / s["n_tokens"]))
    return out


def thread_ratios(rows: list[dict]) -> list[dict]:
    """Each ``local-N`` run against ``local``, and each ``ray-N`` against ``ray-1`` (same corpus and
    K): speed-up (seconds per iteration of one thread or worker over N), CPU seconds per iteration
    of N over one, peak memory of N over one, and the final log joint of N over one (above 1: the
    parallel chain is behind after as many iterations)."""
    measured = {(r["config"]["n_docs"], r["config"]["n_topics"], r["config"]["mode"], r["metric"]): r
                for r in rows if r["metric"] != "environment" and "mode" in r["config"]}
    out = []
    for (n_docs, k, mode, metric), r in measured.items():
        base = ("local" if mode.startswith("local-")
                else "ray-1" if mode.startswith("ray-") and mode != "ray-1" else None)
        if base is None:
            continue
        for name, source, invert in (("speedup", "seconds_per_iteration", True),
                                     ("cpu_seconds_ratio", "cpu_seconds_per_iteration", False),
                                     ("peak_rss_ratio", "peak_rss_bytes", False),
                                     ("log_joint_ratio", "log_joint", False)):
            one = measured.get((n_docs, k, base, source))
            if metric != source or one is None or not one["value"] or not r["value"]:
                continue
            value = one["value"] / r["value"] if invert else r["value"] / one["value"]
            out.append(row(SUITE, {**r["config"], "against_mode": base}, name, value, "x"))
    return out


if __name__ == "__main__":
    sys.exit(main())
