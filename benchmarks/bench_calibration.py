"""predict_proba on 20 Newsgroups, light logistic, 50 iterations: held-out log loss, Brier score,
expected calibration error (10 bins of the top probability) and the share of documents whose top
probability passes 0.999, for sigmoid(c omega) (the loss's own factor), for the fitted
``proba_scale_`` (what predict_proba gives), and for the best single scale fitted on the test set
itself (a bound no method without test labels reaches). One JSON line per (task, strategy, K).

    python benchmarks/bench_calibration.py --data ../shared/data/20news-bydate.tar.gz \
        --runs binary:multitask:20,20:multitask:50,20:ovr:50
"""
import argparse
import json
import time

import numpy as np

from medlda import MedLDAClassifier
from medlda.evaluation.calibration import fit_proba_scale, log_loss, proba_from_omega
from medlda.data.readers import read_corpus

BINARY = ["alt.atheism", "talk.religion.misc"]


def quality(omega: np.ndarray, codes: np.ndarray, scale: float) -> dict:
    p = proba_from_omega(omega, scale, False)
    top, right = p.max(axis=1), p.argmax(axis=1) == codes
    bins = np.minimum((top * 10).astype(int), 9)
    ece = sum(abs(top[bins == b].mean() - right[bins == b].mean()) * np.mean(bins == b)
              for b in range(10) if np.any(bins == b))
    brier = np.mean(np.sum((p - np.eye(p.shape[1])[codes]) ** 2, axis=1))
    return dict(scale=round(float(scale), 4), log_loss=round(log_loss(omega, codes, scale, False), 4),
                brier=round(float(brier), 4), ece=round(float(ece), 4),
                top_above_0999=round(float(np.mean(top > 0.999)), 4))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True, help="20news-bydate.tar.gz")
    p.add_argument("--runs", default="binary:multitask:20,20:multitask:50,20:ovr:50",
                   help="task:strategy:K,... (task: binary or 20)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    for run in args.runs.split(","):
        task, strategy, k = run.split(":")
        cats = BINARY if task == "binary" else None
        train = read_corpus(args.data, subset="train", categories=cats)
        test = read_corpus(args.data, subset="test", categories=cats, vocabulary=train.vocabulary)
        model = MedLDAClassifier(int(k), loss="logistic", strategy=strategy, sampler="light", n_iter=50,
                                 random_state=args.seed, n_jobs=2)
        tic = time.perf_counter()
        model.fit(train, train.single_labels())
        seconds = time.perf_counter() - tic
        omega = model.decision_function(test)
        codes = np.searchsorted(model.classes_, test.single_labels())
        print(json.dumps(dict(
            task=task, strategy=strategy, n_topics=int(k), seed=args.seed, c=model.c_,
            accuracy=round(float(np.mean(model.predict(test) == test.single_labels())), 4),
            fit_seconds=round(seconds, 2), calibration_seconds=round(model.fit_stats_["calibration_seconds"], 2),
            loss_c=quality(omega, codes, model.c_), fitted=quality(omega, codes, model.proba_scale_),
            test_best=quality(omega, codes, fit_proba_scale(omega, codes, False)))), flush=True)


if __name__ == "__main__":
    main()
