"""Prediction time on the 20 Newsgroups test set with 1 and 2 inference threads.

Trains one light multitask model per K (20 classes, 50 iterations), then predicts the test set
with n_jobs = 1 and 2 in alternating runs (order swapped every round, the parallel kernel
compiled before the first timed run). Prints JSON: each run's seconds, the median speed-up, and
whether the predictions were identical (they must be: each document's draws are seeded by the
model's random_state and its own words).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from medlda import MedLDAClassifier
from medlda.data.readers import read_corpus

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "20news-bydate.tar.gz"


def time_predictions(model: MedLDAClassifier, test, rounds: int) -> dict:
    """Seconds of ``model.predict(test)`` with 1 and 2 threads, alternating, and the predictions."""
    model.set_params(n_jobs=2).predict(test)  # compiles the parallel kernel
    seconds, labels = {1: [], 2: []}, {}
    for r in range(rounds):
        for jobs in ((1, 2) if r % 2 == 0 else (2, 1)):
            model.set_params(n_jobs=jobs)
            tic = time.perf_counter()
            labels[jobs] = model.predict(test)
            seconds[jobs].append(time.perf_counter() - tic)
    return {"seconds": seconds, "labels": labels}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--ks", default="100,400")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    train = read_corpus(args.data, subset="train")
    test = read_corpus(args.data, subset="test", vocabulary=train.vocabulary)
    y, y_test = train.single_labels(), test.single_labels()
    rows = []
    for k in (int(k) for k in args.ks.split(",") if k):
        model = MedLDAClassifier(k, n_iter=50, sampler="light", random_state=args.seed).fit(train, y)
        run = time_predictions(model, test, args.rounds)
        one, two = run["seconds"][1], run["seconds"][2]
        rows.append({"n_topics": k, "seed": args.seed, "n_test_docs": test.n_docs, "seconds_1_thread": one,
                     "seconds_2_threads": two, "speedup_median": float(np.median(one) / np.median(two)),
                     "identical_predictions": bool(np.array_equal(run["labels"][1], run["labels"][2])),
                     "accuracy": float(np.mean(run["labels"][1] == y_test))})
    print(json.dumps({"benchmark": "inference threads", "runs": rows}, indent=1))


if __name__ == "__main__":
    main()
