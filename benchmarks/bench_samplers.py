"""Sampler speed on 20 Newsgroups (suite "samplers"): seconds per iteration, tokens/s, accuracy.

- ``binary``: alt.atheism against talk.religion.misc, MedLDAClassifier, test accuracy;
- ``lda-full``: LDA on the full training set, seconds per iteration as K grows, and the log joint
  after each iteration (measured outside the timed sweeps) to compare how fast each sampler
  climbs per second;
- ``sensitivity`` (the KDD paper's study): the binary task at one K with light, one knob at a
  time away from the defaults (proposal, n_mh, n_gibbs);
- ``prediction``: prediction alone on 20 Newsgroups, 20 classes. A light multitask classifier per
  K and seed is fitted once (``--prediction-iters``) and saved with the corpora under
  ``<out>/prediction/``, where later runs find them; then for each inference setting
  (``--infer``: ``cvb0``, the estimators' default ``inference="cvb0"``; ``gibbs``, their Gibbs
  inference at its default sweeps; or ``burn:avg``, Gibbs with those sweeps) the test set is predicted
  on one thread, the settings interleaved: documents per second of wall and of CPU time, and test
  accuracy. With ``--prediction-l1 N``, how near each setting's topic proportions come to the
  posterior mean given the fitted topics: the L1 distance, averaged over N random test documents,
  from a reference that averages ``--reference-chains`` chains of ``--reference`` sweeps (a
  setting ``CxB:A``, C chains of B + A sweeps averaged, is measured for this distance only).

For each task, K and sampler (gibbs, light partial, light collapsed): rows of seconds per
iteration and tokens/s (JIT compilation apart), then derived rows: light's speed-up over gibbs
at each K and light's cost growth with K, as ratios of the median fits over ``--repeats``
interleaved repeats (each repeat's own ratio beside, in ``each_repeat``).

    python benchmarks/bench_samplers.py                                   # everything (about 15 minutes)
    python benchmarks/bench_samplers.py --ks 100,400 --skip-lda --skip-sensitivity \\
        --samplers gibbs,light-collapsed --repeats 3                      # light against gibbs
    python benchmarks/bench_samplers.py --ks 100,1000 --skip-binary --skip-sensitivity \\
        --samplers light-collapsed --repeats 5                            # cost growth with K
    python benchmarks/bench_samplers.py --ks 20 --iters 3 --lda-iters 2 --skip-lda --skip-sensitivity  # smoke
    python benchmarks/bench_samplers.py --skip-binary --skip-lda --skip-sensitivity --prediction \
        --prediction-ks 20,100,400 --prediction-seeds 0,1,2 --infer cvb0,gibbs,100:200 --prediction-l1 300
    python benchmarks/bench_samplers.py --against tomotopy --skip-binary --skip-sensitivity \
        --ks 20,100,400,1000 --lda-iters 20 --repeats 3   # LDA against tomotopy (reference_tomotopy.py)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from rows import RowWriter, add_out_argument, row

from medlda import LDA, Corpus, MedLDAClassifier, load_model
from medlda.data.readers import read_corpus
from medlda.data.text import PAPERS, make_vectorizer

SUITE = "samplers"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "20news-bydate.tar.gz"
SAMPLERS = {"gibbs": dict(sampler="gibbs"),
            "light-partial": dict(sampler="light", light_variant="partial"),
            "light-collapsed": dict(sampler="light", light_variant="collapsed")}
BINARY = ["alt.atheism", "talk.religion.misc"]


def binary_task(archive: Path):
    train = read_corpus(archive, subset="train", categories=BINARY, vectorizer=make_vectorizer(**PAPERS))
    test = read_corpus(archive, subset="test", categories=BINARY, vocabulary=train.vocabulary,
                       vectorizer=make_vectorizer(**PAPERS))
    return train, train.single_labels(), test, test.single_labels()


def _config(task: str, name: str, k: int) -> dict:
    """A fit's config; light-partial's names its phi_every."""
    config = {"task": task, "sampler": name, "n_topics": k}
    if "phi_every" in SAMPLERS[name]:
        config["phi_every"] = SAMPLERS[name]["phi_every"]
    return config


def _fit_rows(out: RowWriter, config: dict, n_iter: int, stats: dict, **extra) -> None:
    """The rows every fit gives: seconds per iteration, tokens/s, compile seconds."""
    out.write(config, "seconds_per_iter", stats["train_seconds"] / n_iter, "s", n_iter=n_iter, **extra)
    out.write(config, "tokens_per_second", stats["tokens_per_second"], "tokens/s", n_tokens=stats["n_tokens"],
              **extra)
    out.write(config, "compile_seconds", stats["compile_seconds"], "s", **extra)


def _binary_fit(out: RowWriter, data, config: dict, n_iter: int, seed: int, options: dict, **extra) -> None:
    train, y, test, y_test = data
    model = MedLDAClassifier(config["n_topics"], max_iter=n_iter, random_state=seed, **options).fit(train, y)
    tic = time.perf_counter()
    accuracy = float(model.score(test, y_test))
    predict_seconds = time.perf_counter() - tic
    _fit_rows(out, config, n_iter, model.fit_stats_, seed=seed, **extra)
    out.write(config, "test_accuracy", accuracy, "", seed=seed, **extra)
    out.write(config, "train_accuracy", float(model.train_accuracy_), "", seed=seed, **extra)
    out.write(config, "predict_seconds", predict_seconds, "s", seed=seed, **extra)


def supervised_runs(out: RowWriter, data, ks: list[int], n_iter: int, seed: int, samplers: list[str],
                    repeats: int) -> None:
    for repeat in range(repeats):
        for k in ks:
            for name in samplers:
                config = _config("binary", name, k)
                _binary_fit(out, data, config, n_iter, seed, SAMPLERS[name], repeat=repeat)


def unsupervised_runs(out: RowWriter, archive: Path, ks: list[int], n_iter: int, seed: int, samplers: list[str],
                      repeats: int) -> None:
    train = read_corpus(archive, subset="train", vectorizer=make_vectorizer(**PAPERS))
    for repeat in range(repeats):
        for k in ks:
            for name in samplers:
                config = _config("lda-full", name, k)
                model = LDA(k, max_iter=n_iter, random_state=seed, trace=True, **SAMPLERS[name]).fit(train)
                _fit_rows(out, config, n_iter, model.fit_stats_, seed=seed, repeat=repeat)
                out.write(config, "log_joint", float(model.log_joint_), "", seed=seed, repeat=repeat)
                out.write(config, "tokens_per_second_second_half", second_half_rate(model.trace_, train.n_tokens),
                          "tokens/s", seed=seed, repeat=repeat)
                out.write(config, "log_joint_climb", [[round(t["seconds"], 3), t["log_joint"]] for t in model.trace_],
                          "[s, log joint]", seed=seed, repeat=repeat)


def second_half_rate(trace: list[dict], n_tokens: int) -> float:
    """Tokens per second over the second half of the iterations: the speed once the chain has left
    its random start (the first sweeps move most tokens and cost more)."""
    seconds = [0.0] + [t["seconds"] for t in trace]
    half = len(trace) // 2
    return n_tokens * (len(trace) - half) / (seconds[-1] - seconds[half])


def sensitivity_runs(out: RowWriter, data, k: int, n_iter: int, seed: int, variant: str) -> None:
    """The KDD paper's study: one knob at a time away from the defaults (mixture, 6, 2)."""
    settings = ([{"proposal": p} for p in ("mixture", "scan", "cycle", "doc", "word", "exp")]
                + [{"n_mh": n} for n in (1, 2, 4, 8)] + [{"n_gibbs": n} for n in (1, 4, 8)])
    for setting in settings:
        config = {"task": "sensitivity", "sampler": f"light-{variant}", "n_topics": k, **setting}
        _binary_fit(out, data, config, n_iter, seed, {"sampler": "light", "light_variant": variant, **setting})


def prediction_data(archive: Path, folder: Path) -> tuple[Corpus, Corpus]:
    """The 20-class train and test corpora, read once and kept under ``folder``."""
    if not (folder / "test").is_dir():
        train = read_corpus(archive, subset="train", vectorizer=make_vectorizer(**PAPERS))
        read_corpus(archive, subset="test", vocabulary=train.vocabulary,
                    vectorizer=make_vectorizer(**PAPERS)).save_npy(folder / "test")
        train.save_npy(folder / "train")
    return Corpus.load(folder / "train"), Corpus.load(folder / "test")


def prediction_model(train: Corpus, folder: Path, k: int, seed: int, n_iter: int) -> MedLDAClassifier:
    """The light multitask classifier of K and seed: the saved one, else fitted and saved."""
    path = folder / f"light-k{k}-i{n_iter}-s{seed}.medlda"
    if not path.is_file():
        model = MedLDAClassifier(k, sampler="light", max_iter=n_iter, random_state=seed)
        model.fit(train, train.single_labels()).save(path)
    return load_model(path)


def _setting(setting: str, defaults: dict) -> tuple[int, int]:
    """(n_infer_burn, n_infer_avg) of an ``--infer`` setting (of each chain of ``CxB:A``)."""
    if setting in ("gibbs", "cvb0"):
        return defaults["n_infer_burn"], defaults["n_infer_avg"]
    burn, avg = map(int, setting.split("x")[-1].split(":"))
    return burn, avg


def _inference(setting: str) -> str:
    """The estimators' ``inference`` of an ``--infer`` setting: 'cvb0' for cvb0, else 'gibbs'."""
    return "cvb0" if setting == "cvb0" else "gibbs"


def _chains(setting: str) -> int:
    """How many chains an ``--infer`` setting averages: C of ``CxB:A``, else 1."""
    return int(setting.split("x")[0]) if "x" in setting else 1


def prediction_runs(out: RowWriter, archive: Path, ks: list[int], seeds: list[int], settings: list[str],
                    n_iter: int, repeats: int, l1_docs: int = 0, reference: str = "100:2000",
                    reference_chains: int = 8) -> None:
    """Each setting's documents/s (wall and CPU, one thread) and accuracy on the test set, the
    settings interleaved within each repeat; JIT compilation is left out (a warm-up prediction).
    With ``l1_docs``, each model's L1 distance per setting from the reference (``l1_rows``)."""
    folder = out.path.parent / "prediction"
    train, test = prediction_data(archive, folder)
    y_test = test.single_labels()
    defaults = MedLDAClassifier().get_params()
    for k in ks:
        for seed in seeds:
            model = prediction_model(train, folder, k, seed, n_iter)
            model.set_params(n_jobs=1, random_state=seed)
            model.predict(test[:3])
            for repeat in range(repeats):
                for setting in [s for s in settings if _chains(s) == 1]:
                    burn, avg = _setting(setting, defaults)
                    model.set_params(n_infer_burn=burn, n_infer_avg=avg, inference=_inference(setting))
                    wall, cpu = time.perf_counter(), time.process_time()
                    accuracy = float(np.mean(model.predict(test) == y_test))
                    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                    extra = dict(seed=seed, repeat=repeat, n_docs=test.n_docs, n_iter=n_iter)
                    config = _prediction_config(k, setting, burn, avg)
                    out.write(config, "docs_per_second", test.n_docs / wall, "docs/s", **extra)
                    out.write(config, "docs_per_cpu_second", test.n_docs / cpu, "docs/s", **extra)
                    out.write(config, "test_accuracy", accuracy, "", **extra)
            if l1_docs:
                l1_rows(out, model, test, k, seed, settings, l1_docs, _setting(reference, defaults),
                        reference_chains)


def _prediction_config(k: int, setting: str, burn: int, avg: int) -> dict:
    return {"task": "prediction", "sampler": "light", "n_topics": k, "setting": setting, "n_infer_burn": burn,
            "n_infer_avg": avg}


def l1_rows(out: RowWriter, model: MedLDAClassifier, test: Corpus, k: int, seed: int, settings: list[str],
            n_docs: int, reference: tuple[int, int], n_chains: int) -> None:
    """For n_docs random non-empty test documents: the reference, the mean of ``transform`` over
    n_chains seeds at ``reference`` (burn, avg) sweeps, and each setting's L1 distance from it,
    sum_k |zbar_dk - reference_dk| averaged over the documents (rows "l1_to_reference"; a
    setting ``CxB:A`` averages C chains of B + A sweeps; the reference's own noise is the
    distance between the means of its two halves' chains)."""
    rng = np.random.default_rng(seed)
    docs = np.sort(rng.choice(np.flatnonzero(test.doc_lengths > 0), n_docs, replace=False))
    sample = test[docs]
    defaults = MedLDAClassifier().get_params()
    model.set_params(n_infer_burn=reference[0], n_infer_avg=reference[1], inference="gibbs")
    chains = [model.set_params(random_state=10_000 + c).transform(sample) for c in range(n_chains)]
    ref = np.mean(chains, axis=0)
    half = n_chains // 2
    noise = np.abs(np.mean(chains[:half], axis=0) - np.mean(chains[half:], axis=0)).sum(axis=1).mean()
    extra = dict(seed=seed, n_docs=n_docs, reference=list(reference), reference_chains=n_chains)
    out.write(_prediction_config(k, "reference", *reference), "l1_half_to_half", float(noise), "", **extra)
    model.set_params(random_state=seed)
    for setting in settings:
        burn, avg = _setting(setting, defaults)
        model.set_params(n_infer_burn=burn, n_infer_avg=avg, inference=_inference(setting))
        zbar = np.mean([model.set_params(random_state=seed + 100 * c).transform(sample)
                        for c in range(_chains(setting))], axis=0)
        out.write(_prediction_config(k, setting, burn, avg), "l1_to_reference",
                  float(np.abs(zbar - ref).sum(axis=1).mean()), "", **extra)


def prediction_summary(rows: list[dict]) -> list[dict]:
    """Derived rows of the prediction task per K and setting: the median documents/s (wall, CPU)
    over seeds and repeats, and the means over seeds of the test accuracy and of the L1 distance
    from the reference (with min, max, seeds)."""
    table = defaultdict(list)
    for r in rows:
        if r["config"].get("task") == "prediction" and r["metric"] in ("docs_per_second", "docs_per_cpu_second",
                                                                       "test_accuracy", "l1_to_reference"):
            table[(r["metric"], _config_key(r["config"]))].append(r)
    out = []
    for (metric, _), group in sorted(table.items()):
        config = group[0]["config"]
        values = [r["value"] for r in group]
        if metric in ("test_accuracy", "l1_to_reference"):
            first = {r["seed"]: r["value"] for r in group if r.get("repeat", 0) == 0}
            out.append(row(SUITE, config, f"mean_{metric}", statistics.mean(first.values()), "",
                           min=min(first.values()), max=max(first.values()), seeds=sorted(first)))
        else:
            out.append(row(SUITE, config, f"median_{metric}", statistics.median(values), "docs/s",
                           min=min(values), max=max(values), n=len(values)))
    return out


def _config_key(config: dict) -> str:
    return ",".join(f"{k}={config[k]}" for k in sorted(config))


def ratios(rows: list[dict]) -> list[dict]:
    """Derived rows from the binary and LDA rows of seconds per iteration: light's speed-up over
    gibbs at each K ("speedup_vs_gibbs") and its cost growth with K ("seconds_ratio", K = 1000
    against 100 and the largest K against the smallest). Each is the ratio of the medians over
    the repeated fits; with several repeats, ``each_repeat`` lists each repeat's own ratio."""
    out = []
    table = defaultdict(list)  # (task, sampler, K): seconds per iteration of each repeat, in order
    for r in rows:
        c = r["config"]
        if r["metric"] == "seconds_per_iter" and c.get("task") in ("binary", "lda-full"):
            table[(c["task"], c["sampler"], c["n_topics"])].append(r["value"])

    def put(metric: str, config: dict, num: tuple, den: tuple) -> None:
        extra = {}
        if len(table[num]) > 1 and len(table[num]) == len(table[den]):
            extra["each_repeat"] = [a / b for a, b in zip(table[num], table[den])]
        out.append(row(SUITE, config, metric, statistics.median(table[num]) / statistics.median(table[den]), "x",
                       **extra))

    for task in sorted({t for t, _, _ in table}):
        ks = sorted({k for t, _, k in table if t == task})
        for name in ("light-partial", "light-collapsed"):
            mine = [k for k in ks if (task, name, k) in table]
            for k in mine:
                if (task, "gibbs", k) in table:
                    put("speedup_vs_gibbs", {"task": task, "sampler": name, "n_topics": k},
                        (task, "gibbs", k), (task, name, k))
            pairs = [(1000, 100)] if 1000 in mine and 100 in mine else []
            if len(mine) > 1:
                pairs.append((mine[-1], mine[0]))
            for high, low in dict.fromkeys(pairs):
                put("seconds_ratio", {"task": task, "sampler": name, "n_topics": high, "against_n_topics": low},
                    (task, name, high), (task, name, low))
    return out


def main() -> None:
    if "--choice" in sys.argv:  # the choice task (sampler="auto"): sampler_choice.py's own options
        return __import__("sampler_choice").main([a for a in sys.argv[1:] if a != "--choice"])
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="20news-bydate.tar.gz")
    p.add_argument("--ks", default="10,20,50,100,200,400,1000")
    p.add_argument("--iters", type=int, default=50, help="iterations of the supervised runs")
    p.add_argument("--lda-iters", type=int, default=30, help="iterations of the unsupervised runs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeats", type=int, default=1,
                   help="fits of every binary and LDA configuration, interleaved (every K and sampler once, then "
                        "again), so that the machine's drift falls on all alike; ratios use the medians")
    p.add_argument("--samplers", default=",".join(SAMPLERS), help="subset of " + ",".join(SAMPLERS))
    p.add_argument("--skip-binary", action="store_true")
    p.add_argument("--skip-lda", action="store_true")
    p.add_argument("--skip-sensitivity", action="store_true")
    p.add_argument("--against", choices=["tomotopy"],
                   help="the LDA part fits medlda (auto, light, gibbs) and tomotopy side by side on one thread "
                        "(reference_tomotopy.py; needs `pip install tomotopy`)")
    p.add_argument("--against-warmup", type=int, default=5, help="untimed iterations before the timed --lda-iters")
    p.add_argument("--sensitivity-k", type=int, default=100)
    p.add_argument("--sensitivity-variant", default="collapsed", choices=["collapsed", "partial"])
    p.add_argument("--phi-every", type=int, default=1, help="light-partial draws phi every N iterations")
    p.add_argument("--prediction", action="store_true", help="run the prediction task (20 classes)")
    p.add_argument("--prediction-ks", default="20,100,400")
    p.add_argument("--prediction-seeds", default="0", help="seeds of the fitted models (and of their inference)")
    p.add_argument("--prediction-iters", type=int, default=40, help="training iterations of those models")
    p.add_argument("--infer", default="cvb0,gibbs",
                   help="comma-separated inference settings: cvb0, gibbs (at the estimators' default sweeps) "
                        "or burn:avg (Gibbs)")
    p.add_argument("--prediction-l1", type=int, default=0,
                   help="test documents on which to measure each setting's L1 distance from the reference")
    p.add_argument("--reference", default="100:2000", help="burn:avg of each reference chain")
    p.add_argument("--reference-chains", type=int, default=8, help="chains averaged into the reference")
    add_out_argument(p)
    args = p.parse_args()
    against = __import__("reference_tomotopy")  # a sibling module, read when run (as sampler_choice)
    if args.against == "tomotopy" and not args.skip_lda:
        against.require_tomotopy()
    SAMPLERS["light-partial"]["phi_every"] = args.phi_every
    if not args.data.is_file():
        sys.exit(f"20 Newsgroups archive not found at {args.data}; pass --data")
    ks = [int(k) for k in args.ks.split(",")]
    samplers = [s for s in args.samplers.split(",") if s]
    unknown = set(samplers) - set(SAMPLERS)
    if unknown:
        sys.exit(f"unknown samplers {sorted(unknown)}; choose from {list(SAMPLERS)}")
    out = RowWriter(SUITE, args.out)
    data = None if args.skip_binary and args.skip_sensitivity else binary_task(args.data)
    if not args.skip_binary:
        supervised_runs(out, data, ks, args.iters, args.seed, samplers, args.repeats)
    if not args.skip_lda and args.against:
        train = read_corpus(args.data, subset="train", vectorizer=make_vectorizer(**PAPERS))
        against.against_runs(out, train, ks, args.lda_iters, args.against_warmup, args.seed, args.repeats)
    elif not args.skip_lda:
        unsupervised_runs(out, args.data, ks, args.lda_iters, args.seed, samplers, args.repeats)
    if not args.skip_sensitivity:
        sensitivity_runs(out, data, args.sensitivity_k, args.iters, args.seed, args.sensitivity_variant)
    if args.prediction:
        prediction_runs(out, args.data, [int(k) for k in args.prediction_ks.split(",")],
                        [int(s) for s in args.prediction_seeds.split(",")], args.infer.split(","),
                        args.prediction_iters, args.repeats, args.prediction_l1, args.reference,
                        args.reference_chains)
    for derived in ratios(out.rows) + prediction_summary(out.rows) + against.against_summary(out.rows):
        out.put(derived)
    print(out.path)


if __name__ == "__main__":
    main()
